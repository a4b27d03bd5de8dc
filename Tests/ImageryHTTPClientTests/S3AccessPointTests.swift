import Foundation
@testable import ImageryHTTPClient
import Testing

/// imgproxy's `IMGPROXY_S3_ACCESS_POINTS`, parsed, and the requests a name turns into. Pure:
/// the AWS host names here are built and signed, never connected to.
@Suite("S3AccessPoint: name=arn pairs and the requests they make")
struct S3AccessPointTests {
    static let arn = "arn:aws:s3:eu-west-1:123456789012:accesspoint/images-ap"

    @Test("Pairs separated by semicolons, spaces trimmed, the ARN's resource with / or :")
    func parsing() throws {
        let points = try S3AccessPoint.list(" images = \(Self.arn) ; media=arn:aws-cn:s3:cn-north-1:210987654321:accesspoint:media;")
        #expect(points.keys.sorted() == ["images", "media"])
        let images = try #require(points["images"])
        #expect(images.region == "eu-west-1" && images.account == "123456789012" && images.name == "images-ap" && images.partition == "aws")
        #expect(points["media"]?.host(endpoint: nil) == "media-210987654321.s3-accesspoint.cn-north-1.amazonaws.com.cn")
        #expect(try S3AccessPoint.list("").isEmpty)
    }

    @Test("A malformed pair or an ARN that is not an S3 access point's is refused, saying why", arguments: [
        ("images", "is not name=arn"),
        ("images=", "is not name=arn"),
        ("Images=\(arn)", "cannot be the bucket of an s3:// URL"),
        ("images=\(arn);images=\(arn)", "named twice"),
        ("images=arn:aws:iam::123456789012:role/images", "is not an S3 access point"),
        ("images=arn:aws:s3-object-lambda:eu-west-1:123456789012:accesspoint/x", "Object Lambda"),
        ("images=arn:aws:s3::123456789012:accesspoint/mfzwi23gnjvgw.mrap", "Multi-Region"),
        ("images=arn:aws:s3:eu-west-1:1234:accesspoint/images-ap", "12 digits"),
        ("images=arn:aws:s3:eu-west-1:123456789012:bucket/images", "is not an access point"),
        ("images=arn:aws:s3:eu-west-1:123456789012:accesspoint/Images_AP", "not an access point name"),
        ("images=arn:aws:s3:eu-west-1:123456789012", "is not an ARN"),
        ("images=arn:gcp:s3:eu-west-1:123456789012:accesspoint/images-ap", "partition"),
    ])
    func refusals(text: String, reason: String) {
        #expect(throws: S3AccessPoint.Refusal.self) { try S3AccessPoint.list(text) }
        do {
            _ = try S3AccessPoint.list(text)
        } catch {
            #expect(error.description.contains(reason), "\(error)")
        }
    }

    static func store(endpoint: String?, pathStyle: Bool) throws -> S3Configuration {
        var store = S3Configuration(
            credentials: AWSCredentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "secret"), region: "us-east-1",
            endpoint: endpoint.flatMap(URL.init(string:)), usesPathStyle: pathStyle
        )
        store.accessPoints = try S3AccessPoint.list("images=\(Self.arn)")
        return store
    }

    @Test("On AWS a name is its access point's host, virtual-hosted, signed for the ARN's region; other buckets are unchanged")
    func awsRequests() throws {
        let store = try Self.store(endpoint: nil, pathStyle: true)
        let (url, headers) = store.request(for: S3Location(bucket: "images", key: "album/a b.jpg", versionID: "v1"))
        #expect(url.absoluteString == "https://images-ap-123456789012.s3-accesspoint.eu-west-1.amazonaws.com/album/a%20b.jpg?versionId=v1")
        let authorization = try #require(headers.first { $0.0 == "authorization" }?.1)
        #expect(authorization.contains("Credential=AKIDEXAMPLE/") && authorization.contains("/eu-west-1/s3/aws4_request"))
        #expect(headers.first { $0.0 == "host" }?.1 == "images-ap-123456789012.s3-accesspoint.eu-west-1.amazonaws.com")

        let (other, otherHeaders) = store.request(for: S3Location(bucket: "photos", key: "a.jpg"))
        #expect(other.absoluteString == "https://s3.us-east-1.amazonaws.com/photos/a.jpg")
        #expect(otherHeaders.first { $0.0 == "authorization" }?.1.contains("/us-east-1/s3/aws4_request") == true)
    }

    @Test("Before a custom endpoint: the SDKs' access point host in virtual-hosted style, the ARN as the bucket in path style")
    func customEndpointRequests() throws {
        let virtual = try Self.store(endpoint: "https://minio.internal:9000", pathStyle: false).request(for: S3Location(bucket: "images", key: "a.jpg"))
        #expect(virtual.url.absoluteString == "https://images-ap-123456789012.minio.internal:9000/a.jpg")
        let path = try Self.store(endpoint: "http://127.0.0.1:9000", pathStyle: true).request(for: S3Location(bucket: "images", key: "a.jpg"))
        #expect(path.url.absoluteString == "http://127.0.0.1:9000/arn%3Aaws%3As3%3Aeu-west-1%3A123456789012%3Aaccesspoint/images-ap/a.jpg")
        #expect(path.headers.first { $0.0 == "authorization" }?.1.contains("/eu-west-1/s3/aws4_request") == true)
    }
}
