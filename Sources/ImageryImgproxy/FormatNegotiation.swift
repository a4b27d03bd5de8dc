import Imagery

/// How `Accept` chooses a response's format, with imgproxy's six switches: JPEG XL first (where
/// it is switched on), then AVIF, then WebP, then JPEG (or PNG where alpha must survive).
///
/// Unlike imgproxy, Imagery negotiates AVIF and WebP by default (`autoAVIF` and `autoWebP` are
/// on); imgproxy's `IMGPROXY_AUTO_AVIF` and `IMGPROXY_AUTO_WEBP` default to off. JPEG XL stays
/// off by default, as in imgproxy (`autoJXL`): of the current browsers only Safari decodes it,
/// and Safari takes AVIF. `enforce…` lets `Accept` replace a format the URL names too.
/// Enforcement follows the client's best class: a client that takes AVIF and WebP, on a server
/// that enforces WebP but not AVIF, keeps the URL's format, since its class is AVIF; a JPEG XL
/// client counts as an AVIF one where JPEG XL is not enforced. One class per client keeps the
/// response cache and an edge cache keyed by four classes exact.
///
/// ```swift
/// let negotiation = FormatNegotiation(writable: [.jpeg, .png, .webp, .avif])
/// let accepted = negotiation.accepted("image/avif,image/webp,*/*")        // .avif
/// negotiation.format(requested: nil, accepted: accepted, hasTransparency: false)     // .avif
/// negotiation.format(requested: .png, accepted: accepted, hasTransparency: false)    // .png
/// negotiation.variesByAccept(requested: .png)                             // false
/// ```
public struct FormatNegotiation: Sendable, Hashable {
    /// The formats this server writes.
    public var writable: Set<ImageFormat>
    /// `Accept` may choose AVIF for a URL that names no format. Default on.
    public var autoAVIF = true
    /// `Accept` may choose WebP for a URL that names no format. Default on.
    public var autoWebP = true
    /// `Accept` chooses AVIF even over a format the URL names. Implies ``autoAVIF``. Default off.
    public var enforceAVIF = false
    /// `Accept` chooses WebP even over a format the URL names. Implies ``autoWebP``. Default off.
    public var enforceWebP = false
    /// `Accept` may choose JPEG XL for a URL that names no format. Default off, as in imgproxy.
    public var autoJXL = false
    /// `Accept` chooses JPEG XL even over a format the URL names. Implies ``autoJXL``. Default off.
    public var enforceJXL = false
    /// imgproxy's `IMGPROXY_PREFERRED_FORMATS`: where neither the URL nor `Accept` chooses, the
    /// source's own format when it is listed, else the first listed that keeps the image's alpha
    /// and animation (else the first listed). Empty, the default, answers JPEG, or PNG where alpha
    /// must survive (imgproxy's default list is `jpeg,png,gif`, which also keeps a PNG source PNG).
    public var preferredFormats: [ImageFormat] = []

    public init(writable: Set<ImageFormat>) {
        self.writable = writable
    }

    /// The formats `Accept` can choose among, in this build and with these switches.
    public var negotiable: Set<ImageFormat> {
        var formats: Set<ImageFormat> = []
        if autoAVIF || enforceAVIF { formats.insert(.avif) }
        if autoWebP || enforceWebP { formats.insert(.webp) }
        if autoJXL || enforceJXL { formats.insert(.jxl) }
        return formats.intersection(writable)
    }

    /// The client's class for `accept` (the value of its `Accept` header).
    public func accepted(_ accept: String?) -> AcceptedFormats {
        AcceptedFormats(accept: accept, negotiable: negotiable)
    }

    /// The format of a response for a URL that names `requested` (or none), a client of class
    /// `accepted` and an image with or without transparency. An animation is never answered in
    /// AVIF or JPEG XL by negotiation: where `Accept` would choose either it is WebP (every
    /// browser that takes them takes WebP), and where JPEG or PNG, GIF. A URL that names a still
    /// format (JPEG, PNG, AVIF, JPEG XL) gets that format, of the first frame.
    ///
    /// ```swift
    /// negotiation.format(requested: nil, accepted: .avif, hasTransparency: false, isAnimated: true)   // .webp
    /// negotiation.format(requested: nil, accepted: .other, hasTransparency: false, isAnimated: true)  // .gif
    /// ```
    public func format(
        requested: ImageFormat?, accepted: AcceptedFormats, hasTransparency: Bool, isAnimated: Bool = false, source: ImageFormat? = nil
    ) -> ImageFormat {
        if requested == nil, accepted == .other, let preferred = preferred(source: source, hasTransparency: hasTransparency, isAnimated: isAnimated) {
            return preferred
        }
        let chosen: ImageFormat
        if let requested {
            switch accepted {
            case .jxl where enforceJXL && writable.contains(.jxl): chosen = .jxl
            // A JPEG XL client takes AVIF: with JPEG XL not enforced, it is enforced AVIF as it
            // was before --auto-jxl put it in a class of its own.
            case .jxl where enforceAVIF && writable.contains(.avif): chosen = .avif
            case .avif where enforceAVIF && writable.contains(.avif): chosen = .avif
            case .webp where enforceWebP && writable.contains(.webp): chosen = .webp
            default: chosen = requested
            }
        } else {
            chosen = accepted.format(hasTransparency: hasTransparency)
        }
        let stillOnly: Set<ImageFormat> = [.avif, .jxl]
        guard isAnimated, stillOnly.contains(chosen) || requested == nil else { return chosen }
        let animated: ImageFormat = writable.contains(.webp) ? .webp : .gif
        guard let requested else { return stillOnly.contains(chosen) || chosen == .webp ? animated : .gif }
        // AVIF or JPEG XL enforced over a URL's animated format: the animation stays animated.
        return requested == .gif || requested == .webp ? (writable.contains(.webp) ? .webp : requested) : chosen
    }

    /// The first of ``preferredFormats`` that fits, the source's own first; `nil` when none are set.
    private func preferred(source: ImageFormat?, hasTransparency: Bool, isAnimated: Bool) -> ImageFormat? {
        let listed = preferredFormats.filter(writable.contains)
        func keeps(_ format: ImageFormat) -> Bool {
            (!hasTransparency || format != .jpeg) && (!isAnimated || format == .gif || format == .webp)
        }
        if let source, listed.contains(source), keeps(source) { return source }
        return listed.first(where: keeps) ?? listed.first
    }

    /// `format:best`'s candidates for a still image and a client of class `accepted`: the
    /// preferred formats (JPEG and PNG where none are set), and WebP, AVIF and JPEG XL where
    /// negotiation may choose them and the client takes them (a client that takes JPEG XL takes
    /// AVIF and WebP, and one that takes AVIF takes WebP), each only if it keeps the image's
    /// alpha. Only these compete: GIF's palette and BMP's size never win on both bytes and
    /// fidelity.
    ///
    /// ```swift
    /// negotiation.bestCandidates(accepted: .avif, hasTransparency: false)    // [.jpeg, .png, .webp, .avif]
    /// negotiation.bestCandidates(accepted: .other, hasTransparency: true)    // [.png]
    /// ```
    public func bestCandidates(accepted: AcceptedFormats, hasTransparency: Bool) -> [ImageFormat] {
        let taken: Set<ImageFormat> = switch accepted {
        case .jxl: [.jxl, .avif, .webp]
        case .avif: [.avif, .webp]
        case .webp: [.webp]
        case .other: []
        }
        let offered = (preferredFormats.isEmpty ? [.jpeg, .png] : preferredFormats) + [.webp, .avif, .jxl]
        var seen: Set<ImageFormat> = []
        return offered.filter { format in
            let competes = [.jpeg, .png].contains(format) || (taken.contains(format) && negotiable.contains(format))
            return competes && writable.contains(format) && !(hasTransparency && format == .jpeg) && seen.insert(format).inserted
        }
    }

    /// Whether a response for a URL that names `requested` (or none) depends on `Accept`, and so
    /// carries `Vary: Accept`.
    public func variesByAccept(requested: ImageFormat?) -> Bool {
        requested == nil || (enforceAVIF && negotiable.contains(.avif)) || (enforceWebP && negotiable.contains(.webp))
            || (enforceJXL && negotiable.contains(.jxl))
    }

    /// The switches, for a cache key: responses made under other switches are other responses.
    public var settingsDescription: String {
        "auto-avif=\(autoAVIF),auto-webp=\(autoWebP),enforce-avif=\(enforceAVIF),enforce-webp=\(enforceWebP)"
            + (preferredFormats.isEmpty ? "" : ",preferred=" + preferredFormats.map(\.rawValue).joined(separator: ","))
            // Only when on, so that the keys of servers that never negotiate JPEG XL stay as they were.
            + (autoJXL || enforceJXL ? ",auto-jxl=\(autoJXL),enforce-jxl=\(enforceJXL)" : "")
    }
}
