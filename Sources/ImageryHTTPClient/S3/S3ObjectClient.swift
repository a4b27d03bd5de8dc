import AsyncHTTPClient
import Crypto
import Foundation
import Imagery
import NIOCore
import NIOHTTP1

/// Reads and writes whole objects of one S3-compatible store, each call within a deadline of
/// its own: what a store of results needs, where a slow answer is worth less than none.
///
/// Every object it writes carries the SHA-256 of its body, signed as the payload hash (so the
/// store refuses a body damaged on the way) and kept as metadata (so a read checks what it got).
package final class S3ObjectClient: Sendable {
    /// An object as read: its body, content type and `x-amz-meta-*` metadata (names without
    /// the prefix, lowercased).
    package struct Object: Sendable {
        package var body: ByteBuffer
        package var contentType: String?
        package var metadata: [String: String]
    }

    /// Why a call failed. None of them names a credential.
    package enum Failure: Error, Equatable, CustomStringConvertible {
        /// The store answered with this status (403: the credentials or the bucket's policy).
        case status(Int)
        /// No answer within the call's deadline.
        case timedOut
        /// No connection, or one that broke.
        case connection(String)
        /// An object larger than the client reads.
        case tooLarge
        /// The body does not match the checksum it was written with.
        case damaged
        /// The caller's task was cancelled: says nothing about the store.
        case cancelled
        /// The assumed role's credentials could not be renewed: why, naming the role.
        case credentials(String)

        package var description: String {
            switch self {
            case let .status(status): "the store answered \(status)"
            case .timedOut: "the store did not answer in time"
            case let .connection(detail): "could not reach the store: \(detail)"
            case .tooLarge: "the object is larger than the client reads"
            case .damaged: "the object does not match its checksum"
            case .cancelled: "cancelled"
            case let .credentials(detail): detail
            }
        }
    }

    package let configuration: S3Configuration
    private let maximumObjectBytes: Int
    private let client: HTTPClient
    /// What each call's deadline is measured on.
    private let clock: any Clock<Duration>

    /// A client of the store `configuration` names, reading objects up to `maximumObjectBytes`,
    /// each call's deadline measured on `clock` (a test's manual clock passes it when the test
    /// says; AsyncHTTPClient's own deadline, on real time, stays behind it).
    package init(configuration: S3Configuration, maximumObjectBytes: Int, clock: any Clock<Duration> = ContinuousClock()) {
        self.configuration = configuration
        self.maximumObjectBytes = maximumObjectBytes
        self.clock = clock
        var options = HTTPClient.Configuration(redirectConfiguration: .disallow)
        options.decompression = .disabled
        // A store that refuses connections fails the call at once, not at its deadline.
        options.connectionPool.retryConnectionEstablishment = false
        // Its spans would record each object's URL; the server traces its tiers itself.
        options.tracing.tracer = nil
        self.client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: options)
    }

    /// Closes the pooled connections. Call it before the client is released.
    package func shutdown() async throws {
        try await client.shutdown()
    }

    /// The object at `location`, or `nil` when the store has none (404).
    package func object(at location: S3Location, within deadline: Duration) async throws(Failure) -> Object? {
        let signed = try await signedRequest(for: location)
        var request = HTTPClientRequest(url: signed.url.absoluteString)
        for (name, value) in signed.headers { request.headers.add(name: name, value: value) }
        let limit = maximumObjectBytes
        return try await within(deadline) { [request] client in
            let response = try await client.execute(request, deadline: .now() + TimeAmount(deadline))
            if response.status.code == 404 { return nil }
            guard response.status.code == 200 else { throw Failure.status(Int(response.status.code)) }
            if let declared = response.headers.first(name: "content-length").flatMap(Int.init), declared > limit { throw Failure.tooLarge }
            let body: ByteBuffer
            do {
                body = try await response.body.collect(upTo: limit)
            } catch is NIOTooManyBytesError {
                throw Failure.tooLarge
            }
            var metadata: [String: String] = [:]
            for header in response.headers where header.name.lowercased().hasPrefix("x-amz-meta-") {
                metadata[String(header.name.lowercased().dropFirst("x-amz-meta-".count))] = header.value
            }
            if let checksum = metadata[Self.checksumName], checksum != Self.sha256(body.readableBytesView) { throw Failure.damaged }
            return Object(body: body, contentType: response.headers.first(name: "content-type"), metadata: metadata)
        }
    }

    /// Writes `body` at `location` with its content type and metadata (names without the
    /// `x-amz-meta-` prefix), and its checksum beside them.
    package func put(
        _ body: ByteBuffer, at location: S3Location, contentType: String, metadata: [String: String], within deadline: Duration
    ) async throws(Failure) {
        let checksum = Self.sha256(body.readableBytesView)
        var extra = [("content-type", contentType), ("x-amz-meta-" + Self.checksumName, checksum)]
        extra += metadata.sorted { $0.key < $1.key }.map { ("x-amz-meta-" + $0.key.lowercased(), $0.value) }
        let signed = try await signedRequest(for: location, method: "PUT", extra: extra, payloadHash: checksum)
        var request = HTTPClientRequest(url: signed.url.absoluteString)
        request.method = .PUT
        for (name, value) in signed.headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(body)
        try await within(deadline) { [request] client in
            let response = try await client.execute(request, deadline: .now() + TimeAmount(deadline))
            // The reply's body is a few bytes of XML at most; read so the connection is reused.
            _ = try? await response.body.collect(upTo: 64 << 10)
            guard response.status.code == 200 else { throw Failure.status(Int(response.status.code)) }
        }
    }

    private func signedRequest(
        for location: S3Location, method: String = "GET", extra: [(String, String)] = [], payloadHash: String = AWSSignatureV4.emptyPayload
    ) async throws(Failure) -> (url: URL, headers: [(String, String)]) {
        do {
            return try await configuration.signedRequest(for: location, method: method, extra: extra, payloadHash: payloadHash)
        } catch {
            throw .credentials(error.description)
        }
    }

    /// The metadata name of the body's SHA-256.
    package static let checksumName = "imagery-sha256"

    static func sha256(_ bytes: some Sequence<UInt8>) -> String {
        AWSSignatureV4.hex(SHA256.hash(data: Array(bytes)))
    }

    /// Runs `call`, racing the deadline: AsyncHTTPClient's own deadline covers the head, and
    /// a store that stalls mid-body must not outlast it either.
    private func within<T: Sendable>(
        _ deadline: Duration, _ call: @escaping @Sendable (HTTPClient) async throws -> T
    ) async throws(Failure) -> T {
        let (client, clock) = (client, clock)
        do {
            return try await withThrowingTaskGroup(of: T.self) { group in
                group.addTask { try await call(client) }
                group.addTask {
                    try await clock.sleep(for: deadline)
                    throw Failure.timedOut
                }
                defer { group.cancelAll() }
                return try await group.next()!
            }
        } catch let failure as Failure {
            throw failure
        } catch let error as HTTPClientError {
            if Task.isCancelled { throw .cancelled }
            switch error {
            case .deadlineExceeded, .readTimeout, .connectTimeout, .getConnectionFromPoolTimeout: throw .timedOut
            default: throw .connection(String(describing: error))
            }
        } catch {
            if Task.isCancelled { throw .cancelled }
            throw .connection(String(describing: error))
        }
    }
}
