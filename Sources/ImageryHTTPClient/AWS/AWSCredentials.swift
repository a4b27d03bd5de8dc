/// An AWS access key, as the standard variables give it: `AWS_ACCESS_KEY_ID`,
/// `AWS_SECRET_ACCESS_KEY` and, for temporary credentials, `AWS_SESSION_TOKEN`. Its
/// `description` never shows the secret or the token.
///
/// ```swift
/// guard let credentials = AWSCredentials(environment: ProcessInfo.processInfo.environment) else { … }
/// ```
public struct AWSCredentials: Sendable, Hashable, CustomStringConvertible {
    public var accessKeyID: String
    public var secretAccessKey: String
    /// Sent as `x-amz-security-token` with temporary credentials.
    public var sessionToken: String?

    /// A key pair, with a session token for temporary credentials.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// The credentials in `environment`'s standard variables; `nil` without a key pair.
    public init?(environment: [String: String]) {
        guard let id = environment["AWS_ACCESS_KEY_ID"], !id.isEmpty,
              let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty
        else { return nil }
        let token = environment["AWS_SESSION_TOKEN"]
        self.init(accessKeyID: id, secretAccessKey: secret, sessionToken: token?.isEmpty == false ? token : nil)
    }

    public var description: String { "AWSCredentials(\(accessKeyID), secret hidden\(sessionToken == nil ? "" : ", session token hidden"))" }
}
