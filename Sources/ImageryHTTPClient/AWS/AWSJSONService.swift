import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1

/// One call to an AWS service with a JSON protocol (Secrets Manager, Systems Manager): a POST
/// of a JSON body naming the action in `X-Amz-Target`, signed with Signature Version 4, within
/// a deadline, on a client of its own that is closed after it. For calls made once at start,
/// not on a request's path.
///
/// The endpoint is AWS's own for the region unless the environment names another the way AWS's
/// SDKs read it: `AWS_ENDPOINT_URL_<SERVICE>` (`AWS_ENDPOINT_URL_SECRETS_MANAGER`,
/// `AWS_ENDPOINT_URL_SSM`), then `AWS_ENDPOINT_URL`.
package struct AWSJSONService: Sendable {
    /// The signing name and the host's first label (`secretsmanager`, `ssm`).
    package let name: String
    /// The endpoint variables' suffix (`SECRETS_MANAGER`, `SSM`).
    package let environmentName: String
    /// The target prefix of its actions (`secretsmanager`, `AmazonSSM`).
    package let targetPrefix: String

    package static let secretsManager = AWSJSONService(name: "secretsmanager", environmentName: "SECRETS_MANAGER", targetPrefix: "secretsmanager")
    package static let systemsManager = AWSJSONService(name: "ssm", environmentName: "SSM", targetPrefix: "AmazonSSM")

    /// Why a call failed; never names a credential.
    package enum Failure: Error, Equatable, CustomStringConvertible {
        /// The service refused the call: its status, error type and message.
        case refused(status: Int, type: String, message: String)
        case timedOut
        case connection(String)
        /// An answer that is not the JSON the action returns.
        case malformed

        package var description: String {
            switch self {
            case let .refused(status, type, message): "answered \(status) \(type)" + (message.isEmpty ? "" : ": \(message)")
            case .timedOut: "did not answer in time"
            case let .connection(detail): "could not be reached: \(detail)"
            case .malformed: "answered with something that is not the expected JSON"
            }
        }
    }

    /// The endpoint for `region`, as AWS's SDKs choose it from `environment`.
    package func endpoint(region: String, environment: [String: String]) -> URL? {
        let given = [environment["AWS_ENDPOINT_URL_" + environmentName], environment["AWS_ENDPOINT_URL"]].compactMap { $0 }.first { !$0.isEmpty }
        return URL(string: given ?? "https://\(name).\(region).amazonaws.com")
    }

    /// Calls `action` with `input` as its JSON body, and decodes its answer as `Output`.
    package func call<Output: Decodable>(
        _ action: String, _ input: some Encodable, region: String, endpoint: URL, credentials: AWSCredentials,
        within deadline: Duration = .seconds(30)
    ) async throws(Failure) -> Output {
        let body: Data
        do {
            body = try JSONEncoder().encode(input)
        } catch {
            throw .malformed
        }
        let url = endpoint.path.isEmpty ? endpoint.appendingPathComponent("") : endpoint
        let signer = AWSSignatureV4(credentials: credentials, region: region, service: name)
        let headers = signer.headers(
            method: "POST", url: url,
            extra: [("content-type", "application/x-amz-json-1.1"), ("x-amz-target", "\(targetPrefix).\(action)")],
            payloadHash: AWSSignatureV4.hex(SHA256.hash(data: body))
        )
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        let (status, answer) = try await Self.send(request, within: deadline)
        guard (200...299).contains(status) else {
            let error = try? JSONDecoder().decode(ErrorAnswer.self, from: answer)
            let type = error?.type.map { String($0.split(separator: "#").last ?? "") } ?? "an error"
            throw .refused(status: status, type: type, message: String((error?.message ?? error?.capitalMessage ?? "").prefix(200)))
        }
        do {
            return try JSONDecoder().decode(Output.self, from: answer)
        } catch {
            throw .malformed
        }
    }

    /// An error as the JSON protocols write it.
    private struct ErrorAnswer: Decodable {
        var type: String?
        var message: String?
        var capitalMessage: String?

        enum CodingKeys: String, CodingKey {
            case type = "__type", message, capitalMessage = "Message"
        }
    }

    private static func send(_ request: HTTPClientRequest, within deadline: Duration) async throws(Failure) -> (Int, Data) {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.tracing.tracer = nil   // its URLs carry no secret, but its spans are noise
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let result: Result<(Int, Data), Failure>
        do {
            let response = try await client.execute(request, deadline: .now() + TimeAmount(deadline))
            let body = try await response.body.collect(upTo: 8 << 20)
            result = .success((Int(response.status.code), Data(body.readableBytesView)))
        } catch let error as HTTPClientError where [.deadlineExceeded, .readTimeout, .connectTimeout].contains(error) {
            result = .failure(.timedOut)
        } catch {
            result = .failure(.connection(String(describing: error)))
        }
        try? await client.shutdown()
        return try result.get()
    }
}
