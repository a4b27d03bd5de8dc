import Foundation

/// The client hints a request carries (`DPR`, `Width`, and their `Sec-CH-` names), for a server
/// with `IMAGERY_ENABLE_CLIENT_HINTS` on: where a URL leaves `dpr` or the width unsaid, the
/// hints fill them in, as imgproxy does. `Width` is in physical pixels, so it is divided by the
/// `dpr` in effect.
///
/// ```swift
/// let hints = ClientHints(dpr: "2", width: "600")
/// var options = try ImgproxyOptions(segments: ["rs:fit"])
/// hints.apply(to: &options)   // dpr 2, width 300: 600 physical pixels
/// hints.key                   // "dpr=2,width=600", part of the response's cache key
/// ```
public struct ClientHints: Sendable, Hashable {
    /// The hints' header names, for `Vary` and `Accept-CH`.
    public static let headerNames = ["DPR", "Width", "Sec-CH-DPR", "Sec-CH-Width"]

    /// ``ImgproxyLimits/minimumDPR`` to ``ImgproxyLimits/maximumDPR`` (a larger hint is held
    /// there); `nil` when absent, unreadable or smaller.
    public var dpr: Double?
    /// Physical pixels, 1 to ``ImgproxyLimits/maximumOutputSide``; `nil` when absent or unreadable.
    public var width: Int?

    /// The hints from header values (`Sec-CH-DPR` before `DPR`, as the caller chooses); values
    /// out of range or unreadable are ignored, as a hint may be.
    public init(dpr: String?, width: String?) {
        if let value = dpr.flatMap({ Double($0.trimmingCharacters(in: .whitespaces)) }), value.isFinite, value >= ImgproxyLimits.minimumDPR {
            self.dpr = min(value, ImgproxyLimits.maximumDPR)
        }
        if let value = width.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }), (1...ImgproxyLimits.maximumOutputSide).contains(value) {
            self.width = value
        }
    }

    /// Whether any hint was read.
    public var isEmpty: Bool { dpr == nil && width == nil }

    /// The hints as the response's cache key holds them; empty when there are none.
    public var key: String {
        [dpr.map { "dpr=\(ImgproxyOptions.number($0))" }, width.map { "width=\($0)" }].compactMap { $0 }.joined(separator: ",")
    }

    /// Fills in what `options` leave unsaid: the `dpr` when it is 1, then the width when neither
    /// side is given, in CSS pixels at that `dpr` (rounded up, so the result is never narrower).
    /// Hints that would take the options past their size limit (a `DPR` of 8 on a URL's own
    /// largest box) are ignored, as a hint may be, rather than refusing the URL.
    public func apply(to options: inout ImgproxyOptions) {
        var hinted = options
        if hinted.dpr == 1, let dpr { hinted.dpr = dpr }
        if hinted.width == 0, hinted.height == 0, let width {
            // A dpr set in code may be 0 or NaN: a width no Int holds is a hint ignored.
            let css = (Double(width) / hinted.dpr).rounded(.up)
            guard (1...Double(Int32.max)).contains(css) else { return }
            hinted.width = Int(css)
        }
        guard (try? hinted.check()) != nil else { return }
        options = hinted
    }
}
