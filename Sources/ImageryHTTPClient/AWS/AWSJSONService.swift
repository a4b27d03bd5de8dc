import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1

/// One call to an AWS service with a JSON protocol (Secrets Manager, Systems Manager, KMS): a
/// POST of a JSON body naming the action in `X-Amz-Target`, signed with Signature Version 4,
/// within a deadline, on a client of its own that is closed after it, or, for calls on a
/// request's path (KMS `Decrypt`), on the caller's pooled client.
///
/// The endpoint is AWS's own for the region unless the environment names another the way AWS's
/// SDKs read it: `AWS_ENDPOINT_URL_<SERVICE>` (`AWS_ENDPOINT_URL_SECRETS_MANAGER`,
/// `AWS_ENDPOINT_URL_SSM`, `AWS_ENDPOINT_URL_KMS`), then `AWS_ENDPOINT_URL`.
package struct AWSJSONService: Sendable {
    /// The signing name and the host's first label (`secretsmanager`, `ssm`).
    package let name: String
    /// The endpoint variables' suffix (`SECRETS_MANAGER`, `SSM`).
    package let environmentName: String
    /// The target prefix of its actions (`secretsmanager`, `AmazonSSM`).
    package let targetPrefix: String

    package static let secretsManager = AWSJSONService(name: "secretsmanager", environmentName: "SECRETS_MANAGER", targetPrefix: "secretsmanager")
    package static let systemsManager = AWSJSONService(name: "ssm", environmentName: "SSM", targetPrefix: "AmazonSSM")
    /// KMS, whose JSON API still carries its internal name as the target prefix.
    package static let keyManagement = AWSJSONService(name: "kms", environmentName: "KMS", targetPrefix: "TrentService")

    /// Why a call failed; never names a credential.
    package typealias Failure = AWSServiceCall.Failure

    /// The endpoint for `region`, as AWS's SDKs choose it from `environment`.
    package func endpoint(region: String, environment: [String: String]) -> URL? {
        AWSServiceCall.endpoint(name: name, environmentName: environmentName, region: region, environment: environment)
    }

    /// Calls `action` with `input` as its JSON body, and decodes its answer as `Output`; on
    /// `pooled` when given (see ``AWSServiceCall/send(_:within:limit:on:)``).
    package func call<Output: Decodable>(
        _ action: String, _ input: some Encodable, region: String, endpoint: URL, credentials: AWSCredentials,
        within deadline: Duration = .seconds(30), on pooled: HTTPClient? = nil
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
        let (status, answer) = try await AWSServiceCall.send(request, within: deadline, on: pooled)
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
}
