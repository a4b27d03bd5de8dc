import Foundation

/// An S3 access point, named by its ARN (`arn:aws:s3:<region>:<account>:accesspoint/<name>`),
/// which `s3://` sources reach under a name of the operator's choosing (imgproxy's
/// `IMGPROXY_S3_ACCESS_POINTS`). Requests go to the access point's own host, virtual-hosted,
/// signed for the ARN's region.
///
/// ```swift
/// let points = try S3AccessPoint.list("images=arn:aws:s3:eu-west-1:123456789012:accesspoint/images-ap")
/// points["images"]?.host(endpoint: nil)   // images-ap-123456789012.s3-accesspoint.eu-west-1.amazonaws.com
/// // s3://images/a.jpg → https://images-ap-123456789012.s3-accesspoint.eu-west-1.amazonaws.com/a.jpg
/// ```
package struct S3AccessPoint: Sendable, Hashable, CustomStringConvertible {
    /// The ARN as given.
    package var arn: String
    /// `aws`, `aws-cn` or `aws-us-gov`.
    package var partition: String
    package var region: String
    /// Twelve digits.
    package var account: String
    /// The access point's own name (not the one source URLs use).
    package var name: String

    package var description: String { arn }

    /// The access point `arn` names, or why it is not one this client can reach.
    package init(arn: String) throws(Refusal) {
        let parts = arn.split(separator: ":", maxSplits: 5, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 6, parts[0] == "arn" else { throw Refusal("\(arn) is not an ARN (arn:aws:s3:<region>:<account>:accesspoint/<name>)") }
        guard Self.dnsSuffixes[parts[1]] != nil else { throw Refusal("\(arn): partition \(parts[1]) is not aws, aws-cn or aws-us-gov") }
        guard parts[2] == "s3" else {
            throw Refusal("\(arn) is not an S3 access point (service \(parts[2]); Object Lambda and Outposts access points are not supported)")
        }
        guard !parts[3].isEmpty else {
            throw Refusal("\(arn) has no region: a Multi-Region Access Point needs SigV4A signatures, which are not supported")
        }
        guard parts[3].allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }) else { throw Refusal("\(arn): \(parts[3]) is not a region") }
        guard parts[4].count == 12, parts[4].allSatisfy({ $0.isASCII && $0.isNumber }) else { throw Refusal("\(arn): the account must be 12 digits") }
        let resource = parts[5]
        let name: Substring
        if resource.hasPrefix("accesspoint/") {
            name = resource.dropFirst("accesspoint/".count)
        } else if resource.hasPrefix("accesspoint:") {
            name = resource.dropFirst("accesspoint:".count)
        } else {
            throw Refusal("\(arn) is not an access point (its resource must be accesspoint/<name>)")
        }
        // S3's rule for access point names: 3–50 of a-z, 0-9 and -, starting and ending with a letter or digit.
        guard (3...50).contains(name.count), name.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }),
              name.first?.isLetter == true || name.first?.isNumber == true, name.last != "-"
        else { throw Refusal("\(arn): \(name) is not an access point name (3-50 of a-z, 0-9 and -)") }
        self.arn = arn
        self.partition = parts[1]
        self.region = parts[3]
        self.account = parts[4]
        self.name = String(name)
    }

    /// Why a value was refused, in words an operator can act on.
    package struct Refusal: Error, Equatable, CustomStringConvertible {
        package var description: String
        init(_ description: String) { self.description = description }
    }

    /// imgproxy's `name=arn;name=arn` list, by name; an empty text is no access point.
    ///
    /// - Throws: ``Refusal`` for a pair without `=`, a name `s3://` URLs cannot carry as a
    ///   bucket (3–63 of a-z, 0-9, `.` and `-`), a name given twice, or an ARN that is not an
    ///   access point's.
    package static func list(_ text: String) throws(Refusal) -> [String: S3AccessPoint] {
        var points: [String: S3AccessPoint] = [:]
        for pair in text.split(separator: ";") {
            let trimmed = pair.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            let parts = trimmed.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { throw Refusal("\(trimmed) is not name=arn") }
            guard S3Location.isValidBucket(parts[0]) else {
                throw Refusal("\(parts[0]) cannot be the bucket of an s3:// URL (3-63 of a-z, 0-9, . and -)")
            }
            guard points[parts[0]] == nil else { throw Refusal("\(parts[0]) is named twice") }
            points[parts[0]] = try S3AccessPoint(arn: parts[1])
        }
        return points
    }

    /// The access point's host: `<name>-<account>.s3-accesspoint.<region>.amazonaws.com` on
    /// AWS, `<name>-<account>.<endpoint's host>` before another endpoint's host (as AWS's SDKs
    /// write it for a custom endpoint).
    package func host(endpoint: URL?) -> String {
        let prefix = "\(name)-\(account)."
        guard let endpoint, let host = endpoint.host else {
            return prefix + "s3-accesspoint.\(region)." + (Self.dnsSuffixes[partition] ?? "amazonaws.com")
        }
        return prefix + host
    }

    /// The URL of `location` (whose bucket is this access point's name in the source URL).
    ///
    /// - On AWS (no endpoint), and before an endpoint in virtual-hosted style: the access
    ///   point's host and the key, as AWS's SDKs send it.
    /// - Before an endpoint in path style (MinIO, moto, a gateway): `endpoint/<ARN>/key`, the
    ///   ARN in the bucket's place. AWS's SDKs refuse path style with an ARN; this is what
    ///   a store or gateway that routes by ARN reads, and what a test can watch on loopback.
    package func url(for location: S3Location, endpoint: URL?, pathStyle: Bool) -> URL {
        guard let endpoint, pathStyle else {
            let base = endpoint ?? URL(string: "https://" + host(endpoint: nil))!
            var components = URLComponents()
            components.scheme = base.scheme
            components.host = host(endpoint: endpoint)
            components.port = endpoint?.port
            let prefix = endpoint.map { $0.path.hasSuffix("/") ? String($0.path.dropLast()) : $0.path } ?? ""
            components.percentEncodedPath = AWSSignatureV4.encode(prefix + "/" + location.key, keepingSlashes: true)
            if let versionID = location.versionID { components.percentEncodedQuery = "versionId=" + AWSSignatureV4.encode(versionID, keepingSlashes: false) }
            return components.url!   // every part is encoded above
        }
        return S3Location(bucket: arn, key: location.key, versionID: location.versionID).url(endpoint: endpoint, pathStyle: true)
    }

    /// Each partition's DNS suffix.
    private static let dnsSuffixes = ["aws": "amazonaws.com", "aws-cn": "amazonaws.com.cn", "aws-us-gov": "amazonaws.com"]
}
