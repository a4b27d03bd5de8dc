import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// What every call to an AWS API shares, whatever its protocol (JSON for Secrets Manager and
/// Systems Manager, query and XML for STS): where the service is, how one request is sent
/// within a deadline, and how a failure is told without a credential in it.
package enum AWSServiceCall {
    /// Why a call failed; never names a credential.
    package enum Failure: Error, Equatable, CustomStringConvertible {
        /// The service refused the call: its status, error type and message.
        case refused(status: Int, type: String, message: String)
        case timedOut
        case connection(String)
        /// An answer that is not what the action returns.
        case malformed

        package var description: String {
            switch self {
            case let .refused(status, type, message): "answered \(status) \(type)" + (message.isEmpty ? "" : ": \(message)")
            case .timedOut: "did not answer in time"
            case let .connection(detail): "could not be reached: \(detail)"
            case .malformed: "answered with something that is not the expected answer"
            }
        }
    }

    /// The endpoint of the service `name` (the host's first label: `sts`, `ssm`) in `region`,
    /// as AWS's SDKs choose it from `environment`: `AWS_ENDPOINT_URL_<environmentName>`, then
    /// `AWS_ENDPOINT_URL`, then AWS's own.
    ///
    /// ```swift
    /// AWSServiceCall.endpoint(name: "sts", environmentName: "STS", region: "eu-west-1", environment: [:])
    /// // https://sts.eu-west-1.amazonaws.com
    /// ```
    package static func endpoint(name: String, environmentName: String, region: String, environment: [String: String]) -> URL? {
        let given = [environment["AWS_ENDPOINT_URL_" + environmentName], environment["AWS_ENDPOINT_URL"]].compactMap { $0 }.first { !$0.isEmpty }
        return URL(string: given ?? "https://\(name).\(region).amazonaws.com")
    }

    /// Sends `request` and reads at most `limit` bytes of the answer. Without `pooled`, on a
    /// client of its own, closed after it: calls made at start or once an hour would only hold
    /// idle connections in a pool. Calls made per request (KMS `Decrypt` for each encrypted
    /// object) pass the caller's pooled client, which stays open.
    package static func send(
        _ request: HTTPClientRequest, within deadline: Duration, limit: Int = 8 << 20, on pooled: HTTPClient? = nil
    ) async throws(Failure) -> (Int, Data) {
        let owned: HTTPClient?
        if pooled == nil {
            var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
            configuration.connectionPool.retryConnectionEstablishment = false
            configuration.tracing.tracer = nil   // its URLs carry no secret, but its spans are noise
            owned = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        } else {
            owned = nil
        }
        guard let client = pooled ?? owned else { throw .connection("no HTTP client") }
        let result: Result<(Int, Data), Failure>
        do {
            let response = try await client.execute(request, deadline: .now() + TimeAmount(deadline))
            let body = try await response.body.collect(upTo: limit)
            result = .success((Int(response.status.code), Data(body.readableBytesView)))
        } catch let error as HTTPClientError where [.deadlineExceeded, .readTimeout, .connectTimeout].contains(error) {
            result = .failure(.timedOut)
        } catch is NIOTooManyBytesError {
            result = .failure(.malformed)
        } catch {
            result = .failure(.connection(String(describing: error)))
        }
        try? await owned?.shutdown()
        return try result.get()
    }
}
