import Foundation
import ImageryHTTPClient
import Testing

/// AWS's S3 signing examples (the "Signature Calculations" page of the S3 API reference): one
/// key, one day, four requests, each with its canonical request and signature as AWS prints
/// them.
@Suite("AWS Signature Version 4, against AWS's S3 examples")
struct AWSSignatureV4Tests {
    static let signer = AWSSignatureV4(
        credentials: AWSCredentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1"
    )
    static let date = Date(timeIntervalSince1970: 1_369_353_600)   // 2013-05-24T00:00:00Z
    static let host = ("host", "examplebucket.s3.amazonaws.com")
    static let amzDate = ("x-amz-date", "20130524T000000Z")

    @Test("GET Object with a Range header")
    func getObject() {
        let signed = Self.signer.signature(
            method: "GET", path: "/test.txt", query: "",
            headers: [Self.host, ("range", "bytes=0-9"), ("x-amz-content-sha256", AWSSignatureV4.emptyPayload), Self.amzDate],
            payloadHash: AWSSignatureV4.emptyPayload, date: Self.date
        )
        #expect(signed.canonicalRequest == """
            GET
            /test.txt

            host:examplebucket.s3.amazonaws.com
            range:bytes=0-9
            x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
            x-amz-date:20130524T000000Z

            host;range;x-amz-content-sha256;x-amz-date
            e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
            """)
        #expect(signed.stringToSign == """
            AWS4-HMAC-SHA256
            20130524T000000Z
            20130524/us-east-1/s3/aws4_request
            7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972
            """)
        #expect(signed.signature == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        #expect(signed.authorization == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    @Test("The headers helper signs host, date and payload hash, and a session token; credentials never print")
    func headers() throws {
        var signer = Self.signer
        signer.credentials.sessionToken = "token-1"
        let url = try #require(URL(string: "http://127.0.0.1:9000/photos/album/a%20b.jpg?versionId=3"))
        let headers = signer.headers(method: "GET", url: url, date: Self.date)
        let names = headers.map(\.0)
        #expect(names == ["host", "x-amz-content-sha256", "x-amz-date", "x-amz-security-token", "authorization"])
        #expect(headers[0].1 == "127.0.0.1:9000")
        let authorization = try #require(headers.last?.1)
        #expect(authorization.contains("SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,"))
        // The path is encoded once: the space is %20 in the canonical request, not %2520.
        let signed = signer.signature(
            method: "GET", path: url.path, query: url.query ?? "", headers: Array(headers.dropLast()),
            payloadHash: AWSSignatureV4.unsignedPayload, date: Self.date
        )
        #expect(signed.canonicalRequest.hasPrefix("GET\n/photos/album/a%20b.jpg\nversionId=3\n"))
        #expect(signed.authorization == authorization)
        #expect(!"\(signer.credentials)".contains("wJalr") && !"\(signer.credentials)".contains("token-1"))
        // The timestamp on a leap day, and just before the epoch's next day.
        let leap = signer.headers(method: "GET", url: url, date: Date(timeIntervalSince1970: 1_709_210_096))
        #expect(leap.first { $0.0 == "x-amz-date" }?.1 == "20240229T123456Z")
        let late = signer.headers(method: "GET", url: url, date: Date(timeIntervalSince1970: 86_399))
        #expect(late.first { $0.0 == "x-amz-date" }?.1 == "19700101T235959Z")
        #expect(AWSCredentials(environment: ["AWS_ACCESS_KEY_ID": "a"]) == nil)
        #expect(AWSCredentials(environment: ["AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b", "AWS_SESSION_TOKEN": ""])?.sessionToken == nil)
    }
}
