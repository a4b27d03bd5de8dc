import Imagery

/// The class of formats a client accepts, among those the server negotiates: the one thing
/// an `Accept` header changes about a response, and so part of the key imagery-server stores
/// every response under. Browsers send `image/*` or `*/*` whether or not they decode WebP or
/// AVIF, so only the format's own type counts.
///
/// ```swift
/// let accepted = AcceptedFormats(accept: "image/avif,image/webp,*/*", negotiable: [.webp])
/// accepted              // .webp (this server does not write AVIF)
/// accepted.format(hasTransparency: false)   // .webp
/// AcceptedFormats(accept: "*/*", negotiable: [.webp]).format(hasTransparency: true)   // .png
/// ```
public enum AcceptedFormats: String, Sendable, Hashable, CaseIterable {
    /// JPEG XL, the first choice when the client takes it and the server negotiates it (off by
    /// default, as in imgproxy).
    case jxl
    /// AVIF, the next.
    case avif
    /// WebP.
    case webp
    /// Neither: JPEG for opaque images, PNG where alpha must survive.
    case other

    /// The best class `accept` names among `negotiable`, in imgproxy's order: JPEG XL, AVIF,
    /// WebP, other.
    public init(accept: String?, negotiable: Set<ImageFormat>) {
        if let accept, !negotiable.isEmpty {
            for (candidate, format) in [(AcceptedFormats.jxl, ImageFormat.jxl), (.avif, .avif), (.webp, .webp)]
            where negotiable.contains(format) && Self.accepts(accept, format.mimeType) {
                self = candidate
                return
            }
        }
        self = .other
    }

    /// The format a response for this class is written in.
    public func format(hasTransparency: Bool) -> ImageFormat {
        switch self {
        case .jxl: .jxl
        case .avif: .avif
        case .webp: .webp
        case .other: hasTransparency ? .png : .jpeg
        }
    }

    /// Whether `accept` names `type` with a non-zero weight.
    static func accepts(_ accept: String, _ type: String) -> Bool {
        // Most headers do not name the type at all: answer those without splitting.
        guard accept.utf8.count >= type.utf8.count, accept.lowercased().contains(type) else { return false }
        for range in accept.split(separator: ",") {
            let parameters = range.split(separator: ";")
            guard parameters.first?.trimmingWhitespace().lowercased() == type else { continue }
            let weight = parameters.dropFirst().lazy.map { $0.trimmingWhitespace() }.first { $0.hasPrefix("q=") }
                .flatMap { Double($0.dropFirst(2)) } ?? 1
            return weight > 0
        }
        return false
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> Substring {
        var trimmed = self
        while let first = trimmed.first, first == " " || first == "\t" { trimmed = trimmed.dropFirst() }
        while let last = trimmed.last, last == " " || last == "\t" { trimmed = trimmed.dropLast() }
        return trimmed
    }
}
