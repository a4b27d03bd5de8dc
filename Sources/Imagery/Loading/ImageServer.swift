import Crypto
import Foundation

/// Builds imgproxy-format URLs for an `imagery-server` (or imgproxy itself), so that an app
/// downloads the 240-pixel thumbnail it shows instead of the 12-megapixel original.
///
/// The request's `resize` and the processors the server applies (rotate, blur, sharpen,
/// background, in that order, as a prefix of `processors`) move into the URL; the others
/// (rounded corners, circle, your own) stay in the request and run on the device, on the
/// small image. Only `http` and `https` sources without headers of their own are routed, and a
/// request already routed is left as it is.
///
/// ```swift
/// let server = ImageServer(baseURL: URL(string: "https://img.example.com")!)
/// var configuration = ImagePipeline.Configuration.standard
/// configuration.imageServer = server   // every http(s) request now asks the server for its size
/// ```
///
/// The signing key belongs on the server side. Either your backend signs URLs and hands them
/// to the app, or signing is off (`ImageServer(baseURL:)` sends `_` as the signature) and the
/// server sits behind a CDN rule that limits which sources and sizes it serves.
/// ``init(baseURL:keyHex:saltHex:)`` exists for backends written in Swift and for tests.
public struct ImageServer: Sendable, Hashable {
    /// The server's address, without a trailing path.
    public var baseURL: URL
    private var key: [UInt8]?
    private var salt: [UInt8] = []

    /// URLs with `_` as the signature, for a server that does not check signatures.
    public init(baseURL: URL) {
        self.baseURL = baseURL
    }

    /// URLs signed as imgproxy signs them: HMAC-SHA256(key, salt ‖ path), base64url without
    /// padding. `nil` when `keyHex` or `saltHex` is not hex, or the key is empty.
    public init?(baseURL: URL, keyHex: String, saltHex: String) {
        guard let key = Base64URL.bytes(hex: keyHex), !key.isEmpty, let salt = Base64URL.bytes(hex: saltHex) else { return nil }
        self.baseURL = baseURL
        self.key = key
        self.salt = salt
    }

    /// The server URL for `request`'s source, size and the processors the server applies,
    /// or `nil` when the source is not an `http(s)` URL.
    ///
    /// ```swift
    /// let url = server.url(for: ImageRequest(url: photo, resize: .fill(width: 240, height: 240)))
    /// // https://img.example.com/_/rs:fill:240:240/aHR0cHM6Ly9…
    /// ```
    public func url(for request: ImageRequest, format: ImageFormat? = nil) -> URL? {
        routing(request, format: format)?.url
    }

    /// `request` rerouted through the server: its source is the server URL, its `resize` and
    /// the processors the server applied are gone, and the rest still run on the device. A
    /// request that cannot be routed is returned as it is.
    public func route(_ request: ImageRequest, format: ImageFormat? = nil) -> ImageRequest {
        guard let routing = routing(request, format: format) else { return request }
        var routed = request
        routed.source = .url(routing.url)
        routed.resize = nil   // the server's image is already the size asked for
        routed.allowsUpscaling = false
        routed.processors = Array(request.processors.dropFirst(routing.processorsApplied))
        return routed
    }

    private func routing(_ request: ImageRequest, format: ImageFormat?) -> (url: URL, processorsApplied: Int)? {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        // Not routed: other schemes, sources with their own headers (credentials the server
        // would not send), and URLs of this server already (routing is idempotent).
        guard case let .url(source, headers) = request.source.kind, headers.isEmpty,
              let scheme = source.scheme?.lowercased(), scheme == "http" || scheme == "https",
              !source.absoluteString.hasPrefix(base + "/")
        else { return nil }
        var options: [String] = []
        // The server's order is fixed (rotate, blur, sharpen, background): the longest prefix
        // of the processors that fits it goes to the server, each step at most once; the rest
        // stays on the device.
        var applied = 0, stage = 0   // processors taken; the server step the last one was
        var rotation = 0
        var blur: Double?, sharpen: Double?, background: RGBA?
        for processor in request.processors {
            let previous = stage
            switch processor {
            case let rotate as ImageProcessors.Rotate where stage < 1 && rotate.degrees % 90 == 0:
                rotation = ((rotate.degrees % 360) + 360) % 360
                stage = 1
            case let gaussian as ImageProcessors.GaussianBlur where stage < 2 && gaussian.sigma > 0 && gaussian.sigma <= 100:
                blur = gaussian.sigma
                stage = 2
            case let unsharp as ImageProcessors.Sharpen
                where stage < 3 && unsharp.amount == 1 && unsharp.threshold == 0 && unsharp.sigma > 0 && unsharp.sigma <= 10:
                sharpen = unsharp.sigma
                stage = 3
            case let flatten as ImageProcessors.Background where stage < 4 && flatten.color.alpha == 255:
                background = flatten.color
                stage = 4
            default:
                break
            }
            guard stage > previous else { break }
            applied += 1
        }
        if let resize = request.resize {
            // The server fits the box to the rotated image; Imagery resizes, then rotates.
            let swap = rotation == 90 || rotation == 270
            switch resize {
            case let .fit(width, height): options.append("rs:fit:\(swap ? height : width):\(swap ? width : height)")
            case let .fill(width, height): options.append("rs:fill:\(swap ? height : width):\(swap ? width : height)")
            case let .width(width): options.append(swap ? "h:\(width)" : "w:\(width)")
            case let .height(height): options.append(swap ? "w:\(height)" : "h:\(height)")
            }
            if request.allowsUpscaling { options.append("el:1") }
        }
        if rotation != 0 { options.append("rot:\(rotation)") }
        if let blur { options.append("bl:\(blur)") }
        if let sharpen { options.append("sh:\(sharpen)") }
        if let background {
            options.append("bg:" + [background.red, background.green, background.blue].map { String($0) }.joined(separator: ":"))
        }
        if options.isEmpty { options.append("rs:fit:0:0") }   // imgproxy needs at least one option segment

        var path = "/" + options.joined(separator: "/") + "/" + Base64URL.encode(Array(source.absoluteString.utf8))
        if let format { path += "." + format.fileExtension }
        let signature = key.map { sign(path, key: $0) } ?? "_"
        guard let url = URL(string: base + "/" + signature + path) else { return nil }
        return (url, applied)
    }

    private func sign(_ path: String, key: [UInt8]) -> String {
        var hmac = HMAC<SHA256>(key: SymmetricKey(data: key))
        hmac.update(data: salt)
        hmac.update(data: Array(path.utf8))
        return Base64URL.encode(Array(hmac.finalize()))
    }
}
