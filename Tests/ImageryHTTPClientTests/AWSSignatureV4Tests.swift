import Foundation
import ImageryHTTPClient
import Testing

/// AWS's S3 signing examples (the "Authenticating Requests: Using the Authorization Header"
/// page of the S3 API reference): one key, one day, four requests, each with its canonical
/// request, string to sign and signature as AWS prints them (cross-checked against three SDKs'
/// copies of the same examples).
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

    @Test("PUT Object, GET Bucket Lifecycle and List Objects: path encoded once, empty query values, sorted parameters", arguments: [
        ("PUT", "/test$file.text", "",
         [("date", "Fri, 24 May 2013 00:00:00 GMT"), ("x-amz-storage-class", "REDUCED_REDUNDANCY")],
         "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072",
         "PUT\n/test%24file.text\n\n", "9e0e90d9c76de8fa5b200d8c849cd5b8dc7a3be3951ddb7f6a76b4158342019d",
         "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"),
        ("GET", "/", "lifecycle", [], AWSSignatureV4.emptyPayload,
         "GET\n/\nlifecycle=\n", "9766c798316ff2757b517bc739a67f6213b4ab36dd5da2f94eaebf79c77395ca",
         "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"),
        ("GET", "/", "prefix=J&max-keys=2", [], AWSSignatureV4.emptyPayload,
         "GET\n/\nmax-keys=2&prefix=J\n", "df57d21db20da04d7fa30298dd4488ba3a2b47ca3a489c74750e0f1e7df1b9b7",
         "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"),
    ] as [(String, String, String, [(String, String)], String, String, String, String)])
    func otherExamples(
        method: String, path: String, query: String, extra: [(String, String)], payload: String,
        canonicalStart: String, canonicalHash: String, signature: String
    ) {
        let headers = [Self.host, ("x-amz-content-sha256", payload), Self.amzDate] + extra
        let signed = Self.signer.signature(method: method, path: path, query: query, headers: headers, payloadHash: payload, date: Self.date)
        #expect(signed.canonicalRequest.hasPrefix(canonicalStart))
        #expect(signed.stringToSign.hasSuffix("\n" + canonicalHash))
        #expect(signed.signature == signature)
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
