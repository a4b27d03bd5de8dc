import AsyncHTTPClient
import Foundation

extension AWSJSONService {
    /// Secrets Manager's `GetSecretValue`: the secret's text at `versionID`, else at
    /// `versionStage`, else its current version; `nil` for a binary secret.
    package func secretString(
        id: String, versionID: String?, versionStage: String?, region: String, endpoint: URL, credentials: AWSCredentials
    ) async throws(Failure) -> String? {
        struct Input: Encodable {
            var SecretId: String
            var VersionId: String?
            var VersionStage: String?
        }
        struct Output: Decodable {
            var SecretString: String?
        }
        // As the SDK's callers do: a version id makes a stage pointless.
        let input = Input(SecretId: id, VersionId: versionID, VersionStage: versionID == nil ? versionStage : nil)
        let output: Output = try await call("GetSecretValue", input, region: region, endpoint: endpoint, credentials: credentials)
        return output.SecretString
    }

    /// Systems Manager's `GetParametersByPath`, every page, recursive and decrypted: each text
    /// parameter's full name and value (an `aws:ec2:image` parameter is left out).
    package func parameters(
        under path: String, region: String, endpoint: URL, credentials: AWSCredentials
    ) async throws(Failure) -> [(name: String, value: String)] {
        struct Input: Encodable {
            var Path: String
            var Recursive = true
            var WithDecryption = true
            var NextToken: String?
        }
        struct Parameter: Decodable {
            var Name: String?
            var Value: String?
            var DataType: String?
        }
        struct Output: Decodable {
            var Parameters: [Parameter]?
            var NextToken: String?
        }
        var found: [(name: String, value: String)] = []
        var input = Input(Path: path)
        // A page holds at most 10 parameters; 1,000 pages is far past any environment.
        for _ in 0..<1000 {
            let output: Output = try await call("GetParametersByPath", input, region: region, endpoint: endpoint, credentials: credentials)
            for parameter in output.Parameters ?? [] where (parameter.DataType ?? "text") == "text" {
                if let name = parameter.Name, let value = parameter.Value { found.append((name, value)) }
            }
            guard let next = output.NextToken, !next.isEmpty else { return found }
            input.NextToken = next
        }
        return found
    }

    /// KMS's `Decrypt` of a symmetric key's `ciphertext` under `context`, which must be the
    /// encryption context it was encrypted with (KMS binds the two): the plaintext, a data key
    /// the caller must never log. On `pooled` when given, since it is called per object.
    package func decrypt(
        _ ciphertext: Data, context: [String: String], region: String, endpoint: URL, credentials: AWSCredentials,
        within deadline: Duration, on pooled: HTTPClient?
    ) async throws(Failure) -> Data {
        // JSONEncoder and JSONDecoder write and read `Data` as base64, as KMS's blobs are.
        struct Input: Encodable {
            var CiphertextBlob: Data
            var EncryptionContext: [String: String]
        }
        struct Output: Decodable {
            var Plaintext: Data?
        }
        let input = Input(CiphertextBlob: ciphertext, EncryptionContext: context)
        let output: Output = try await call(
            "Decrypt", input, region: region, endpoint: endpoint, credentials: credentials, within: deadline, on: pooled
        )
        guard let plaintext = output.Plaintext else { throw .malformed }
        return plaintext
    }
}
