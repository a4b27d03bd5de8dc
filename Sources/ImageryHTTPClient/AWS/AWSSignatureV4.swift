import Crypto
import Foundation
import Imagery

/// AWS Signature Version 4 for S3 and S3-compatible stores (MinIO, R2, Ceph, GCS's XML API):
/// the `Authorization` header for one request, written from AWS's specification with
/// swift-crypto. S3 encodes the path once, not twice as the generic SigV4 services do.
///
/// ```swift
/// let signer = AWSSignatureV4(credentials: credentials, region: "us-east-1")
/// let headers = signer.headers(method: "GET", url: URL(string: "https://bucket.s3.amazonaws.com/a.jpg")!)
/// // [("host", …), ("x-amz-content-sha256", "UNSIGNED-PAYLOAD"), ("x-amz-date", …), ("authorization", …)]
/// ```
public struct AWSSignatureV4: Sendable {
    /// The hash of a body that is not signed, as S3 accepts over TLS.
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"
    /// The hash of an empty body.
    public static let emptyPayload = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    public var credentials: AWSCredentials
    public var region: String
    public var service: String

    /// A signer for `service` (S3 by default) in `region`.
    public init(credentials: AWSCredentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The headers to send with a request to `url`: `host`, `x-amz-content-sha256`,
    /// `x-amz-date`, `x-amz-security-token` with a session token, and `authorization`, which
    /// signs them and `extra` (names lowercased, values trimmed).
    public func headers(
        method: String, url: URL, extra: [(String, String)] = [], payloadHash: String = unsignedPayload, date: Date = Date()
    ) -> [(String, String)] {
        var headers = extra.map { ($0.0.lowercased(), $0.1) }
        let port = url.port.map { ":\($0)" } ?? ""
        headers.append(("host", (url.host ?? "") + port))
        headers.append(("x-amz-content-sha256", payloadHash))
        headers.append(("x-amz-date", Self.timestamp(date)))
        if let token = credentials.sessionToken { headers.append(("x-amz-security-token", token)) }
        let signed = signature(
            method: method, path: url.path.isEmpty ? "/" : url.path, query: url.query ?? "",
            headers: headers, payloadHash: payloadHash, date: date
        )
        headers.append(("authorization", signed.authorization))
        return headers
    }

    /// The steps of the signature, each as AWS's documentation shows it, for tests and for
    /// diagnosing a store that refuses one.
    public struct Signature: Sendable, Hashable {
        public var canonicalRequest: String
        public var stringToSign: String
        /// Lowercase hex.
        public var signature: String
        public var authorization: String
    }

    /// The signature of a request: `path` as decoded (it is encoded here, once), `query` as
    /// sent (`a=1&b=2`, already encoded; it is re-encoded canonically), `headers` every header
    /// to sign, `host` and `x-amz-date` among them.
    public func signature(
        method: String, path: String, query: String, headers: [(String, String)], payloadHash: String, date: Date
    ) -> Signature {
        let canonicalHeaders = Dictionary(headers.map { ($0.0.lowercased(), Self.trimmed($0.1)) }, uniquingKeysWith: { "\($0),\($1)" })
            .sorted { $0.key < $1.key }
        let signedHeaders = canonicalHeaders.map(\.key).joined(separator: ";")
        let canonicalRequest = [
            method.uppercased(),
            Self.encode(path, keepingSlashes: true),
            Self.canonicalQuery(query),
            canonicalHeaders.map { "\($0.key):\($0.value)\n" }.joined(),
            signedHeaders,
            payloadHash,
        ].joined(separator: "\n")
        let day = String(Self.timestamp(date).prefix(8))
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", Self.timestamp(date), scope, Self.hex(SHA256.hash(data: Array(canonicalRequest.utf8)))]
            .joined(separator: "\n")
        var key = SymmetricKey(data: Array(("AWS4" + credentials.secretAccessKey).utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Array(HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key)))
        }
        let signature = Self.hex(HMAC<SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: key))
        let authorization = "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"
        return Signature(canonicalRequest: canonicalRequest, stringToSign: stringToSign, signature: signature, authorization: authorization)
    }

    /// `yyyyMMdd'T'HHmmss'Z'` in UTC.
    static func timestamp(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds.quotientAndRemainder(dividingBy: 86_400)
        let (day, time) = days.remainder < 0 ? (days.quotient - 1, days.remainder + 86_400) : days
        // Howard Hinnant's civil_from_days.
        let z = day + 719_468, era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097, yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153
        let dayOfMonth = doy - (153 * mp + 2) / 5 + 1, month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)\(two(month))\(two(dayOfMonth))T\(two(time / 3600))\(two(time / 60 % 60))\(two(time % 60))Z"
    }

    /// RFC 3986 encoding of everything but the unreserved characters (and `/` in a path).
    package static func encode(_ text: String, keepingSlashes: Bool) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepingSlashes:
                encoded += "/"
            default:
                encoded += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return encoded
    }

    /// The query's parameters decoded, encoded again canonically, sorted by name then value.
    static func canonicalQuery(_ query: String) -> String {
        var pairs: [(name: String, value: String)] = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let name = parts[0].removingPercentEncoding ?? parts[0]
            let value = parts.count > 1 ? (parts[1].removingPercentEncoding ?? parts[1]) : ""
            pairs.append((encode(name, keepingSlashes: false), encode(value, keepingSlashes: false)))
        }
        pairs.sort { lhs, rhs in lhs.name == rhs.name ? lhs.value < rhs.value : lhs.name < rhs.name }
        return pairs.map { pair in pair.name + "=" + pair.value }.joined(separator: "&")
    }

    /// A header value with its ends trimmed and inner runs of spaces made one.
    static func trimmed(_ value: String) -> String {
        value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ").trimmingCharacters(in: .whitespaces)
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        Hex.encode(bytes)
    }
}
