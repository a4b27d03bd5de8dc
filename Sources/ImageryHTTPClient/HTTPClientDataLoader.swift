import AsyncHTTPClient
import Foundation
import Imagery
import NIOCore
import NIOHTTP1
import NIOSSL
import Tracing

/// Loads `http` and `https` sources with AsyncHTTPClient, the server-side Swift client, and
/// every other source as `DataLoader` does.
///
/// What it adds over `URLSession` on Linux, where FoundationNetworking kept reading an endless
/// body into gigabytes after a cancel and spun a core while waiting:
/// - **Bounded memory at any line rate.** The body streams with backpressure and reading stops
///   at the limit; a declared `Content-Length` over the limit is refused before the body.
/// - **No busy waiting.** NIO waits in `epoll`.
/// - **A total deadline** per download (60 s by default) beside the idle timeout, so a source
///   that trickles a byte a second never holds a download slot past it.
/// - **Redirects checked hop by hop**: at most 5, http(s) only, a loop is a permanent
///   `DataLoadingError.redirectRefused(source:detail:)`; ``Configuration/hopCheck`` sees every
///   URL of the chain before it is requested, and ``Configuration/connectionGuard`` every
///   address each hop connects to (where an SSRF guard plugs in).
/// - **Refused connections fail at once** (and `RetryingDataLoader` retries them), instead of
///   waiting out the connect timeout.
/// - **Connection pooling**, and an `Accept` header naming the formats you decode.
///
/// ```swift
/// import ImageryHTTPClient
///
/// let http = HTTPClientDataLoader()
/// let pipeline = ImagePipeline(configuration: .standard.with { $0.dataLoader = RetryingDataLoader(wrapping: http) })
/// // …
/// try await http.shutdown()   // before the loader is released: NIO's client must be shut down
/// ```
public final class HTTPClientDataLoader: DataLoading {
    /// Limits and hooks for every request.
    public struct Configuration: Sendable {
        /// The largest response accepted, in bytes. Default: 64 MiB.
        public var maximumResponseSize = 64 << 20
        /// How long the connection may stay silent (while connecting, waiting for the head, or
        /// between body bytes) before the load fails with `DataLoadingError.timedOut(source:)`.
        /// Default: 30 seconds.
        public var idleTimeout: Duration = .seconds(30)
        /// How long one download may take in all, redirects included. Default: 60 seconds.
        public var totalDeadline: Duration = .seconds(60)
        /// Redirects followed for one request. Default: 5.
        public var maximumRedirects = 5
        /// The `Accept` header. Default: JPEG, PNG, GIF and WebP, what `ImageryCodecs` decodes
        /// with the WebP trait. Set it from the build's decoder, so that a server which
        /// negotiates never sends a format this build cannot read:
        ///
        /// ```swift
        /// configuration.accept = HTTPClientDataLoader.Configuration.accept(ImageDecoder.supportedFormats)
        /// ```
        public var accept = Configuration.accept([.jpeg, .png, .gif, .webp])

        /// An `Accept` value naming `formats` first, then any other image at a lower weight.
        public static func accept(_ formats: some Collection<ImageFormat>) -> String {
            (ImageFormat.allCases.filter(formats.contains).map(\.mimeType) + ["image/*;q=0.8"]).joined(separator: ",")
        }
        /// Extra headers sent with every request (for example a `User-Agent`). Default: none.
        public var additionalHeaders: [String: String] = [:]
        /// Called with every URL of a chain, the first included, before it is requested; throw
        /// to refuse it. Default: `nil`, every http(s) URL allowed.
        public var hopCheck: (@Sendable (URL) async throws(DataLoadingError) -> Void)?
        /// Resolves each hop's host once, checks every address, and connects to a checked one.
        /// Default: `nil`, AsyncHTTPClient resolves and connects as it does.
        public var connectionGuard: ConnectionGuard?
        /// Where `s3://bucket/key[?version]` sources are read, signed; `nil` refuses them as
        /// unsupported. Neither ``hopCheck`` nor ``connectionGuard`` applies to its endpoint.
        /// With its decryption set, objects the S3 Encryption Client wrote are decrypted.
        public var s3: S3Configuration?
        /// Whether a source's credential headers (`Authorization`, `Cookie`,
        /// `Proxy-Authorization`) follow a redirect to another host. By default they go only to
        /// the source's host and its subdomains, as Go's client and browsers send them, so that a
        /// redirect cannot hand them to an origin they were not meant for. Default: `false`.
        ///
        /// ```swift
        /// configuration.keepsCredentialsAcrossHosts = true   // a CDN that redirects to a sibling host
        /// ```
        public var keepsCredentialsAcrossHosts = false
        /// How long an idle connection is kept for the next request to its host; `.zero`
        /// closes each connection after one response. Default: 60 seconds.
        public var keepAliveTimeout: Duration = .seconds(60)
        /// Whether servers' TLS certificates are checked. Default: `true`. `false` accepts any
        /// certificate, which lets anyone on the network path answer for any host: for a test
        /// origin with a self-signed certificate, never for the internet.
        public var verifiesCertificates = true
        /// Whether each request to an origin or to S3 carries the caller's trace (W3C
        /// `traceparent`, through swift-distributed-tracing's global instrument), so that the
        /// origin's spans join the caller's trace. Added after S3's signature, which does not
        /// cover it. Default: `false`, since it tells the origin about the caller's tracing.
        ///
        /// ```swift
        /// configuration.propagatesTraceContext = true   // imgproxy's OPEN_TELEMETRY_PROPAGATE_EXTERNAL
        /// ```
        public var propagatesTraceContext = false

        /// The defaults: 64 MiB, 30 s idle, 60 s in all, 5 redirects.
        public init() {}
    }

    /// What the loader was made with.
    public let configuration: Configuration
    private let client: HTTPClient
    /// Clients pinned to checked addresses, with a ``Configuration/connectionGuard``.
    private let pinned: PinnedClients?
    private let local: DataLoader

    /// A loader with its own connection pool.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        var localConfiguration = DataLoader.Configuration()
        localConfiguration.maximumResponseSize = configuration.maximumResponseSize
        self.local = DataLoader(configuration: localConfiguration)
        let idle = TimeAmount(configuration.idleTimeout)
        var clientConfiguration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,   // followed here, hop by hop
            timeout: .init(connect: idle, read: idle)
        )
        if !configuration.verifiesCertificates {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .none
            clientConfiguration.tlsConfiguration = tls
        }
        clientConfiguration.decompression = .disabled
        if configuration.keepAliveTimeout > .zero {
            clientConfiguration.connectionPool.idleTimeout = TimeAmount(configuration.keepAliveTimeout)
        } else {
            clientConfiguration.maximumUsesPerConnection = 1
        }
        // A refused connection fails the request at once; RetryingDataLoader decides whether
        // to try again, within its deadline. (AsyncHTTPClient would retry it until the connect
        // timeout.)
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        // AsyncHTTPClient's own spans record every URL in full, a presigned query with it, and
        // pass the trace to every origin: the pipeline's fetch span, which names the host only,
        // stands for the download, and `propagatesTraceContext` decides what origins are told.
        clientConfiguration.tracing.tracer = nil
        self.client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
        self.pinned = configuration.connectionGuard.map { _ in PinnedClients(configuration: clientConfiguration) }
    }

    /// Closes the pooled connections. Call it before the loader is released.
    public func shutdown() async throws {
        await pinned?.shutdown()
        try await client.shutdown()
    }

    /// Answers once the source's 2xx head arrives; the body streams with backpressure, within
    /// the size limit and the total deadline, which covers the head, every redirect and the
    /// body together.
    public func response(for source: ImageSource) async throws(DataLoadingError) -> DataResponse {
        guard case let .url(url, headers) = source.kind, ["http", "https", "s3"].contains(url.scheme?.lowercased() ?? "") else {
            return try await local.response(for: source)
        }
        let described = source.description
        let deadline = ContinuousClock.now + configuration.totalDeadline
        let s3: (location: S3Location, configuration: S3Configuration)?
        if url.scheme?.lowercased() == "s3" {
            guard let configuration = configuration.s3, let location = S3Location(url) else { throw .unsupportedSource(described) }
            s3 = (location, configuration)
        } else {
            s3 = nil
        }
        return try await DataResponse.streaming { sink throws(DataLoadingError) in
            try await withDeadline(deadline, timeout: .timedOut(source: described)) { () async throws(DataLoadingError) in
                do {
                    if let s3 {
                        let response = try await self.object(s3.location, from: s3.configuration)
                        if let decryption = s3.configuration.decryption {
                            try await self.decrypt(response, with: decryption, from: s3.configuration, source: described, into: sink)
                        } else {
                            try await self.stream(response, source: described, into: sink)
                        }
                    } else {
                        let response = try await self.follow(url, headers: headers, source: described)
                        try await self.stream(response, source: described, into: sink)
                    }
                } catch {
                    throw Self.loadingError(error, source: described)
                }
            }
        }
    }

    /// Requests `url`, following redirects under ``RedirectRule`` and the hop check, up to the
    /// final response's head.
    private func follow(_ url: URL, headers: [String: String], source: String) async throws -> HTTPClientResponse {
        var current = url
        var chain = [url]
        while true {
            try await configuration.hopCheck?(current)
            let lease = try await connection(to: current)
            defer { if let lease { pinned?.release(lease) } }
            let client = lease?.client ?? self.client
            var request = HTTPClientRequest(url: current.absoluteString)
            request.headers.add(name: "Accept", value: configuration.accept)
            let sent = configuration.keepsCredentialsAcrossHosts || Self.isSameSite(current, as: url)
                ? headers : headers.filter { !Self.credentialHeaderNames.contains($0.key.lowercased()) }
            for (name, value) in configuration.additionalHeaders.merging(sent, uniquingKeysWith: { $1 }) {
                request.headers.replaceOrAdd(name: name, value: value)
            }
            propagateTrace(into: &request.headers)
            let response = try await client.execute(request, deadline: .now() + TimeAmount(configuration.totalDeadline))
            let status = Int(response.status.code)
            if (300...399).contains(status), let location = response.headers.first(name: "location") {
                let next = URL(string: location, relativeTo: current)?.absoluteURL
                if let refusal = RedirectRule.refusal(to: next, after: chain, maximum: configuration.maximumRedirects) {
                    throw DataLoadingError.redirectRefused(source: source, detail: refusal)
                }
                current = next!
                chain.append(current)
                continue
            }
            return response
        }
    }

    /// The request headers that carry a client's credentials.
    static let credentialHeaderNames: Set<String> = ["authorization", "cookie", "proxy-authorization"]

    /// Whether `hop` is on `source`'s host or one of its subdomains, where a source's
    /// credentials may follow a redirect.
    static func isSameSite(_ hop: URL, as source: URL) -> Bool {
        guard let host = hop.host?.lowercased(), let origin = source.host?.lowercased() else { return false }
        return host == origin || host.hasSuffix("." + origin)
    }

    /// An object from the operator's S3 endpoint, signed, with no redirect and no guard.
    /// Credentials an assumed role can no longer renew fail the source as an authorization
    /// failure (502), naming the role, never a key.
    private func object(_ location: S3Location, from s3: S3Configuration) async throws -> HTTPClientResponse {
        let signed: (url: URL, headers: [(String, String)])
        do {
            signed = try await s3.signedRequest(for: location)
        } catch {
            throw DataLoadingError.authorizationFailed(source: location.description, detail: error.description)
        }
        var request = HTTPClientRequest(url: signed.url.absoluteString)
        for (name, value) in signed.headers { request.headers.add(name: name, value: value) }
        propagateTrace(into: &request.headers)
        return try await client.execute(request, deadline: .now() + TimeAmount(configuration.totalDeadline))
    }

    /// Hands an S3 object to `sink` decrypted when the encryption client wrote it, as stored
    /// when it did not. An encrypted body is read whole (within the size limit) and opened
    /// whole before a byte reaches the sink, so a tampered one is an error, never half an
    /// image. KMS is asked on this loader's pool, signed as the object's GET was.
    private func decrypt(
        _ response: HTTPClientResponse, with decryption: S3ClientSideDecryption, from s3: S3Configuration, source: String,
        into sink: DataResponse.Sink
    ) async throws {
        let status = Int(response.status.code), limit = configuration.maximumResponseSize
        var metadata: [String: String] = [:]
        for header in response.headers where header.name.lowercased().hasPrefix("x-amz-meta-") {
            metadata[String(header.name.lowercased().dropFirst("x-amz-meta-".count))] = header.value
        }
        let envelope: S3ClientSideDecryption.Envelope?
        do throws(S3ClientSideDecryption.Failure) {
            envelope = (200...299).contains(status) ? try S3ClientSideDecryption.Envelope.read(from: metadata) : nil
        } catch {
            throw error.loadingError(source: source)
        }
        guard let envelope else { return try await stream(response, source: source, into: sink) }
        if let declared = response.headers.first(name: "content-length").flatMap(Int.init), declared > limit {
            throw DataLoadingError.tooLarge(source: source, limit: limit)
        }
        let sealed: ByteBuffer
        do {
            sealed = try await response.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw DataLoadingError.tooLarge(source: source, limit: limit)
        }
        let credentials: AWSCredentials
        do {
            credentials = try await s3.signingCredentials()
        } catch {
            throw DataLoadingError.authorizationFailed(source: source, detail: error.description)
        }
        let plaintext: [UInt8]
        do {
            plaintext = try await decryption.decrypt(sealed, envelope: envelope, credentials: credentials, on: client)
        } catch {
            throw error.loadingError(source: source)
        }
        // The store's Content-Length is the ciphertext's; its type, ETag and dates are the object's.
        sink.begin(expectedLength: Int64(plaintext.count), headers: SourceHeaders(fields: response.headers.map { ($0.name, $0.value) }))
        try await sink.send(plaintext)
    }

    /// The current trace's headers, when ``Configuration/propagatesTraceContext`` asks for them.
    private func propagateTrace(into headers: inout HTTPHeaders) {
        guard configuration.propagatesTraceContext, let context = ServiceContext.current else { return }
        InstrumentationSystem.instrument.inject(context, into: &headers, using: HeadersInjector())
    }

    /// Hands a final (non-redirect) response to `sink`: its head, then its body up to the limit.
    /// A declared length over the limit is refused before the body is read, and an error
    /// status before any of it reaches the sink.
    private func stream(_ response: HTTPClientResponse, source: String, into sink: DataResponse.Sink) async throws {
        let status = Int(response.status.code), limit = configuration.maximumResponseSize
        if status == 404 || status == 410 { throw DataLoadingError.notFound(source: source) }
        guard (200...299).contains(status) else { throw DataLoadingError.httpStatus(status, source: source) }
        let declared = response.headers.first(name: "content-length").flatMap(Int64.init)
        if let declared, declared > limit { throw DataLoadingError.tooLarge(source: source, limit: limit) }
        sink.begin(expectedLength: declared, headers: SourceHeaders(fields: response.headers.map { ($0.name, $0.value) }))
        var count = 0
        for try await buffer in response.body {
            count += buffer.readableBytes
            guard count <= limit else { throw DataLoadingError.tooLarge(source: source, limit: limit) }
            try await sink.send(Array(buffer.readableBytesView))
        }
    }

    /// A client whose connection goes to a checked address of `url`'s host, or `nil` for the
    /// loader's own client (no guard, or an IP literal that passed the check).
    private func connection(to url: URL) async throws(DataLoadingError) -> PinnedClients.Lease? {
        guard let guarding = configuration.connectionGuard, let pinned else { return nil }
        guard let host = url.host, !host.isEmpty else { throw .redirectRefused(source: url.absoluteString, detail: "no host") }
        guard let address = try await guarding.address(for: host) else { return nil }
        guard let lease = pinned.lease(host: host, address: address) else { throw .cancelled }   // shut down meanwhile
        return lease
    }

    private static func loadingError(_ error: any Error, source: String) -> DataLoadingError {
        switch error {
        case let error as DataLoadingError: return error
        case is CancellationError: return .cancelled
        case let error as HTTPClientError:
            switch error {
            case .deadlineExceeded, .readTimeout, .getConnectionFromPoolTimeout: return .timedOut(source: source)
            // Nothing was read: the origin may be back a moment later, so this one is retried.
            case .connectTimeout: return .connectionFailed(source: source, detail: "connect timed out")
            case .cancelled: return .cancelled
            default: return .connectionFailed(source: source, detail: String(describing: error))
            }
        default:
            if Task.isCancelled { return .cancelled }
            return .connectionFailed(source: source, detail: String(describing: error))
        }
    }
}

/// Writes a trace's headers into a request's.
private struct HeadersInjector: Injector {
    func inject(_ value: String, forKey key: String, into headers: inout HTTPHeaders) {
        headers.replaceOrAdd(name: key, value: value)
    }
}
