import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1

/// AWS Security Token Service's `AssumeRole`: the temporary credentials of an IAM role, asked
/// for with long-lived ones (imgproxy's `IMGPROXY_S3_ASSUME_ROLE_ARN`). The query protocol: a
/// signed form POST, answered in XML.
///
/// The endpoint is AWS's own for the region unless the environment names another, as AWS's
/// SDKs read it: `AWS_ENDPOINT_URL_STS`, then `AWS_ENDPOINT_URL`.
///
/// ```swift
/// let sts = AWSSecurityTokenService(region: "eu-west-1", endpoint: AWSSecurityTokenService.endpoint(region: "eu-west-1", environment: [:])!)
/// let role = AWSSecurityTokenService.Role(arn: "arn:aws:iam::123456789012:role/images", externalID: "imagery", sessionName: "imagery-server")
/// let temporary = try await sts.assumeRole(role, credentials: base)
/// temporary.credentials.sessionToken   // signed into every request as x-amz-security-token
/// ```
package struct AWSSecurityTokenService: Sendable {
    package var region: String
    package var endpoint: URL

    package init(region: String, endpoint: URL) {
        self.region = region
        self.endpoint = endpoint
    }

    /// STS's endpoint for `region`, as AWS's SDKs choose it from `environment`.
    package static func endpoint(region: String, environment: [String: String]) -> URL? {
        AWSServiceCall.endpoint(name: "sts", environmentName: "STS", region: region, environment: environment)
    }

    /// The role to assume, and how the session is named.
    package struct Role: Sendable, Hashable {
        /// `arn:aws:iam::123456789012:role/images`.
        package var arn: String
        /// What the role's trust policy may require (`sts:ExternalId`); not a secret.
        package var externalID: String?
        /// Shown in CloudTrail beside each request the role signs.
        package var sessionName: String
        /// How long the credentials last; STS allows 15 minutes up to the role's maximum
        /// (one hour unless raised).
        package var duration: Duration

        package init(arn: String, externalID: String? = nil, sessionName: String, duration: Duration = .seconds(3600)) {
            self.arn = arn
            self.externalID = externalID
            self.sessionName = sessionName
            self.duration = duration
        }

        /// Whether `arn` reads as an IAM role's ARN (`arn:<partition>:iam::<account>:role/<path/name>`):
        /// checked at start, so a typo stops the server before STS is asked.
        package static func isRoleARN(_ arn: String) -> Bool {
            let parts = arn.split(separator: ":", maxSplits: 5, omittingEmptySubsequences: false)
            guard parts.count == 6, parts[0] == "arn", !parts[1].isEmpty, parts[2] == "iam", parts[3].isEmpty,
                  parts[4].count == 12, parts[4].allSatisfy(\.isASCII), parts[4].allSatisfy(\.isNumber),
                  parts[5].hasPrefix("role/"), parts[5].count > 5
            else { return false }
            return arn.allSatisfy { $0.isASCII && !$0.isWhitespace }
        }
    }

    /// Credentials that stop working at ``expiration``. Its `description` shows neither the
    /// secret nor the token.
    package struct TemporaryCredentials: Sendable, Hashable, CustomStringConvertible {
        package var credentials: AWSCredentials
        package var expiration: Date

        package init(credentials: AWSCredentials, expiration: Date) {
            self.credentials = credentials
            self.expiration = expiration
        }

        package var description: String { "\(credentials) until \(expiration)" }
    }

    /// Asks STS for `role`'s credentials, signing with `credentials`.
    package func assumeRole(
        _ role: Role, credentials: AWSCredentials, within deadline: Duration = .seconds(10)
    ) async throws(AWSServiceCall.Failure) -> TemporaryCredentials {
        var form = [
            ("Action", "AssumeRole"), ("Version", "2011-06-15"), ("RoleArn", role.arn), ("RoleSessionName", role.sessionName),
            ("DurationSeconds", String(role.duration.components.seconds)),
        ]
        if let externalID = role.externalID { form.append(("ExternalId", externalID)) }
        let body = Array(form.map { AWSSignatureV4.encode($0.0, keepingSlashes: false) + "=" + AWSSignatureV4.encode($0.1, keepingSlashes: false) }
            .joined(separator: "&").utf8)
        let url = endpoint.path.isEmpty ? endpoint.appendingPathComponent("") : endpoint
        let signer = AWSSignatureV4(credentials: credentials, region: region, service: "sts")
        let headers = signer.headers(
            method: "POST", url: url, extra: [("content-type", "application/x-www-form-urlencoded; charset=utf-8")],
            payloadHash: AWSSignatureV4.hex(SHA256.hash(data: body))
        )
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        // An answer is a few kilobytes: a larger one is not STS's.
        let (status, answer) = try await AWSServiceCall.send(request, within: deadline, limit: 64 << 10)
        let text = String(decoding: answer, as: UTF8.self)
        guard (200...299).contains(status) else {
            let error = AWSXML.parse(text)?.path("Error")
            throw .refused(
                status: status, type: error?.path("Code")?.trimmedText ?? "an error", message: String((error?.path("Message")?.trimmedText ?? "").prefix(200))
            )
        }
        guard let temporary = Self.credentials(inAnswer: text) else { throw .malformed }
        return temporary
    }

    /// The credentials in an `AssumeRoleResponse`: `AssumeRoleResult/Credentials/{AccessKeyId,
    /// SecretAccessKey, SessionToken, Expiration}`, every one present; `nil` otherwise.
    package static func credentials(inAnswer text: String) -> TemporaryCredentials? {
        guard let root = AWSXML.parse(text), root.name == "AssumeRoleResponse",
              let found = root.path("AssumeRoleResult", "Credentials"),
              let id = found.path("AccessKeyId")?.trimmedText, !id.isEmpty,
              let secret = found.path("SecretAccessKey")?.trimmedText, !secret.isEmpty,
              let token = found.path("SessionToken")?.trimmedText, !token.isEmpty,
              let expiration = found.path("Expiration").flatMap({ date($0.text) })
        else { return nil }
        return TemporaryCredentials(credentials: AWSCredentials(accessKeyID: id, secretAccessKey: secret, sessionToken: token), expiration: expiration)
    }

    /// An ISO 8601 time as STS writes it, with or without fractional seconds.
    static func date(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let date = try? Date(trimmed, strategy: .iso8601) { return date }
        return try? Date(trimmed, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
