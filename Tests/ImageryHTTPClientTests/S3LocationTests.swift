import Foundation
import ImageryHTTPClient
import Testing

@Suite("S3Location: imgproxy's s3:// sources")
struct S3LocationTests {
    @Test("Bucket, key and version from s3:// URLs; refused shapes are nil")
    func parsing() throws {
        let plain = try #require(S3Location(URL(string: "s3://photos/album/a.jpg")!))
        #expect(plain == S3Location(bucket: "photos", key: "album/a.jpg"))
        let versioned = try #require(S3Location(URL(string: "s3://photos/a%20b.jpg?3HL4kqtJ")!))
        #expect(versioned.key == "a b.jpg" && versioned.versionID == "3HL4kqtJ")
        #expect(versioned.description == "s3://photos/a b.jpg?3HL4kqtJ")
        for refused in ["http://photos/a.jpg", "s3://photos/", "s3://photos", "s3://Photos/a.jpg", "s3://ab/a.jpg", "s3://-photos/a.jpg", "s3://photos_1/a.jpg"] {
            #expect(URL(string: refused).flatMap(S3Location.init) == nil, "\(refused)")
        }
    }

    @Test("A key with a . or .. segment, plain or percent-encoded, is no location: a store's path would resolve it out of the bucket")
    func dotSegments() {
        for key in ["..", ".", "../secret/a.jpg", "album/../../secret/a.jpg", "./a.jpg", "album/.", "a/%2e%2e/b", "%2E%2e/b", "a/%2E/b", "a/%2e"] {
            #expect(!S3Location.isSafeKey(key), "\(key)")
        }
        for key in ["a.jpg", "album/a.jpg", "...", "..a", "a..", ".hidden/a.jpg", "a/.b", "a//b", "%2e%2e%2e", "a/%2ex"] {
            #expect(S3Location.isSafeKey(key), "\(key)")
        }
        for url in ["s3://photos/../secret/a.jpg", "s3://photos/%2e%2e/secret/a.jpg", "s3://photos/%2E%2e/secret/a.jpg", "s3://photos/./a.jpg",
                    "s3://photos/album/%2e/a.jpg", "s3://photos//../a.jpg"] {
            #expect(URL(string: url).flatMap(S3Location.init) == nil, "\(url)")
        }
        #expect(URL(string: "s3://photos/...").flatMap(S3Location.init)?.key == "...")
    }

    @Test("Path-style and virtual-hosted URLs encode the key once, as the signature does")
    func urls() throws {
        let location = S3Location(bucket: "photos", key: "album/a b+c.jpg", versionID: "v/1")
        let local = try #require(URL(string: "http://127.0.0.1:9000"))
        #expect(location.url(endpoint: local, pathStyle: true).absoluteString == "http://127.0.0.1:9000/photos/album/a%20b%2Bc.jpg?versionId=v%2F1")
        let aws = S3Location.awsEndpoint(region: "eu-west-1")
        #expect(location.url(endpoint: aws, pathStyle: false).absoluteString == "https://photos.s3.eu-west-1.amazonaws.com/album/a%20b%2Bc.jpg?versionId=v%2F1")
        // The signer reads the path back decoded and encodes it once: the same bytes.
        let url = location.url(endpoint: local, pathStyle: true)
        let signer = AWSSignatureV4(credentials: AWSCredentials(accessKeyID: "a", secretAccessKey: "b"), region: "us-east-1")
        let signed = signer.signature(method: "GET", path: url.path, query: url.query ?? "", headers: [("host", "127.0.0.1:9000")], payloadHash: AWSSignatureV4.emptyPayload, date: Date(timeIntervalSince1970: 0))
        #expect(signed.canonicalRequest.hasPrefix("GET\n/photos/album/a%20b%2Bc.jpg\nversionId=v%2F1\n"))
    }
}
