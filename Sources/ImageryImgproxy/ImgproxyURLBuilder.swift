import Foundation
import Imagery

/// Builds imgproxy URLs for an `imagery-server` (or imgproxy itself), so that an app downloads
/// the 240-pixel thumbnail it shows instead of the 12-megapixel original.
///
/// As the pipeline's `ImagePipeline/Configuration/requestRouter`, it moves a request's
/// `resize` and the processors the server applies (rotate, blur, sharpen, background, in
/// imgproxy's order, as a prefix of `processors`) into the URL; the others (rounded corners,
/// circle, your own) stay in the request and run on the device, on the small image. Only
/// `http` and `https` sources without headers of their own are routed, and a request already
/// routed is left as it is.
///
/// ```swift
/// var configuration = ImagePipeline.Configuration.standard
/// configuration.requestRouter = ImgproxyURLBuilder(baseURL: URL(string: "https://img.example.com")!)
/// // every http(s) request now asks the server for its size
/// ```
///
/// The signing key belongs on the server side. Either your backend signs URLs and hands them
/// to the app, or signing is off (``init(baseURL:)`` sends `_` as the signature) and the
/// server sits behind a CDN rule that limits which sources and sizes it serves.
/// ``init(baseURL:signer:)`` exists for backends written in Swift and for tests.
///
/// With a ``sourceCipher`` (the server's `IMAGERY_SOURCE_URL_ENCRYPTION_KEY`), every source is
/// written encrypted, `/enc/…`, so that URLs reveal neither the origin nor the path they read:
///
/// ```swift
/// let builder = ImgproxyURLBuilder(
///     baseURL: URL(string: "https://img.example.com")!, signer: signer,
///     sourceCipher: try ImgproxySourceCipher(keyHex: encryptionKeyHex)
/// )
/// builder.url(source: "https://example.com/private/a.jpg", options: options)
/// // https://img.example.com/{signature}/rs:fit:300:0/enc/…
/// ```
public struct ImgproxyURLBuilder: ImageRequestRouting, Sendable {
    /// The server's address, without a trailing path.
    public let baseURL: URL
    /// Signs the URLs; `nil` writes `_` as the signature.
    public let signer: ImgproxySigner?
    /// Encrypts the sources (`/enc/…`); `nil` writes them in base64url.
    public let sourceCipher: ImgproxySourceCipher?
    private let base: String

    /// URLs with `_` as the signature, for a server that does not check signatures.
    public init(baseURL: URL) {
        self.init(baseURL: baseURL, signer: nil)
    }

    /// URLs signed by `signer`, as imgproxy signs them.
    public init(baseURL: URL, signer: ImgproxySigner?) {
        self.init(baseURL: baseURL, signer: signer, sourceCipher: nil)
    }

    /// URLs signed by `signer` whose sources `sourceCipher` encrypts (`/enc/…`), as imgproxy
    /// reads them with `IMGPROXY_SOURCE_URL_ENCRYPTION_KEY`.
    public init(baseURL: URL, signer: ImgproxySigner?, sourceCipher: ImgproxySourceCipher?) {
        self.baseURL = baseURL
        self.signer = signer
        self.sourceCipher = sourceCipher
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        self.base = base
    }

    /// The unsigned path of `source` with option `segments`: encrypted with a cipher, else base64url.
    private func unsigned(_ segments: [String], source: String, format: ImageFormat?) -> String {
        if let sourceCipher { return ImgproxyPath.unsigned(options: segments, source: source, format: format, cipher: sourceCipher) }
        return ImgproxyPath.unsigned(options: segments, source: source, format: format)
    }

    /// The URL of `source` with `options`, signed when the builder has a signer.
    ///
    /// ```swift
    /// var options = ImgproxyOptions()
    /// options.width = 300
    /// let url = builder.url(source: "https://example.com/a.jpg", options: options, format: .webp)
    /// // https://img.example.com/_/rs:fit:300:0/aHR0cHM6Ly9leGFtcGxlLmNvbS9hLmpwZw.webp
    /// ```
    public func url(source: String, options: ImgproxyOptions, format: ImageFormat? = nil) -> URL? {
        URL(string: base + path(source: source, options: options, format: format))
    }

    /// The `/info` URL of `source` with info `options`, signed as image URLs are: its options
    /// are written through the same table the server parses them with.
    ///
    /// ```swift
    /// var options = ImgproxyInfoOptions()
    /// options.thumbHash = true
    /// let url = builder.infoURL(source: photo.absoluteString, options: options)!
    /// struct Info: Decodable { let thumb_hash: String }
    /// let info = try JSONDecoder().decode(Info.self, from: try await URLSession.shared.data(from: url).0)
    /// request.placeholder = PlaceholderHash(thumbHashHex: info.thumb_hash)
    /// ```
    public func infoURL(source: String, options: ImgproxyInfoOptions) -> URL? {
        let unsigned = unsigned(options.segments, source: source, format: nil)
        return URL(string: base + "/info/" + (signer?.sign(unsigned) ?? "_") + unsigned)
    }

    /// The `/info` URL of `source` with option segments as imgproxy writes them, or `nil` when
    /// one does not parse.
    @available(*, deprecated, message: "pass ImgproxyInfoOptions: infoURL(source:options:) writes them through the option table")
    public func infoURL(source: String, options segments: [String]) -> URL? {
        guard let options = try? ImgproxyInfoOptions(segments: segments) else { return nil }
        return infoURL(source: source, options: options)
    }

    /// The signed path (`/{signature}/{options}/{source}`) of `source` with `options`.
    public func path(source: String, options: ImgproxyOptions, format: ImageFormat? = nil) -> String {
        let unsigned = unsigned(options.segments, source: source, format: format)
        return "/" + (signer?.sign(unsigned) ?? "_") + unsigned
    }

    /// The server URL for `request`'s source, size and the processors the server applies,
    /// or `nil` when the source is not an `http(s)` URL.
    ///
    /// ```swift
    /// let url = builder.url(for: ImageRequest(url: photo, resize: .fill(width: 240, height: 240)))
    /// // https://img.example.com/_/rs:fill:240:240/aHR0cHM6Ly9…
    /// ```
    public func url(for request: ImageRequest, format: ImageFormat? = nil) -> URL? {
        routing(request, format: format)?.url
    }

    public func route(_ request: ImageRequest) -> ImageRequest {
        route(request, format: nil)
    }

    /// `request` rerouted through the server with the output `format`: its source is the server
    /// URL, its `resize` and the processors the server applied are gone, and the rest still run
    /// on the device. A request that cannot be routed is returned as it is.
    public func route(_ request: ImageRequest, format: ImageFormat?) -> ImageRequest {
        guard let routing = routing(request, format: format) else { return request }
        var routed = request
        routed.source = .url(routing.url)
        routed.resize = nil   // the server's image is already the size asked for
        routed.allowsUpscaling = false
        routed.processors = Array(request.processors.dropFirst(routing.processorsApplied))
        return routed
    }

    private func routing(_ request: ImageRequest, format: ImageFormat?) -> (url: URL, processorsApplied: Int)? {
        // Not routed: other schemes, sources with their own headers (credentials the server
        // would not send), and URLs of this server already (routing is idempotent).
        guard case let .url(source, headers) = request.source.kind, headers.isEmpty,
              let scheme = source.scheme?.lowercased(), scheme == "http" || scheme == "https",
              !source.absoluteString.hasPrefix(base + "/")
        else { return nil }
        let (options, applied) = Self.options(for: request)
        // A box past the server's limits would be refused: such a request stays on the device.
        guard max(options.width, options.height) <= ImgproxyLimits.maximumOutputSide, let url = url(source: source.absoluteString, options: options, format: format) else { return nil }
        return (url, applied)
    }
}
