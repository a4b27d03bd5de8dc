import Foundation
import Imagery
import ImageryHTTPClient
@testable import ImageryServer
import ImageryTestSupport
import Testing

/// imgproxy's `IMGPROXY_S3_ASSUME_ROLE_ARN` (with `_EXTERNAL_ID`) against moto's STS and S3,
/// and `IMGPROXY_S3_ACCESS_POINTS` against a loopback store that shows what it was sent.
extension S3Tests {
    @Test("With --s3-assume-role-arn the role is assumed at start (its ARN and external ID sent to STS), and S3 requests are signed with its temporary credentials")
    func assumedRole() async throws {
        let moto = try await MotoServer.start(recording: true)
        defer { moto.process.kill() }
        try await moto.createBucket("photos", holding: Fixtures.rocket, as: "rocket.jpg")

        // Given base credentials that only assume the role, and STS where AWS_ENDPOINT_URL_STS says
        let server = try await ServerHarness.start {
            $0.useS3 = true
            $0.s3Endpoint = moto.endpoint
            $0.s3Credentials = AWSCredentials(accessKeyID: "AKIABASEKEY", secretAccessKey: "base-secret")
            $0.s3AssumeRoleARN = "arn:aws:iam::123456789012:role/images"
            $0.s3AssumeRoleExternalID = "imagery-external-7"
            $0.awsEndpointVariables = ["AWS_ENDPOINT_URL_STS": moto.endpoint]
        }
        defer { server.cancel() }

        // When an s3:// source is served
        let reply = try await server.get("/unsafe/w:100/plain/s3://photos/rocket.jpg")
        #expect(reply.status == 200, "\(reply.text)")

        // Then STS was asked for the role, signed with the base key for service sts
        let recorded = moto.recordedEntries()
        let sts = try #require(recorded.first { $0.method == "POST" && $0.body.contains("Action=AssumeRole") }, "\(recorded.map { "\($0.method) \($0.path)" })")
        let form = Dictionary(sts.body.split(separator: "&").map { pair -> (String, String) in
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            return (parts[0], parts.count > 1 ? parts[1] : "")
        }) { $1 }
        #expect(form["RoleArn"] == "arn:aws:iam::123456789012:role/images")
        #expect(form["ExternalId"] == "imagery-external-7")
        #expect(form["Version"] == "2011-06-15" && form["RoleSessionName"]?.isEmpty == false)
        let stsAuthorization = sts.header("Authorization") ?? ""
        #expect(stsAuthorization.contains("Credential=AKIABASEKEY/") && stsAuthorization.contains("/us-east-1/sts/aws4_request"), "\(stsAuthorization)")
        // As botocore signs the same request with the base secret, and not with another
        #expect(try await moto.signatureVerifies(sts, secret: "base-secret"))
        #expect(try await !moto.signatureVerifies(sts, secret: "another-secret"))
        // And the object was read with the role's temporary key (ASIA…) and its session token
        let get = try #require(recorded.last { $0.method == "GET" && $0.path == "/photos/rocket.jpg" })
        let authorization = get.header("Authorization") ?? ""
        #expect(authorization.contains("Credential=ASIA"), "\(authorization)")
        #expect(get.header("X-Amz-Security-Token")?.isEmpty == false)
        #expect(!authorization.contains("AKIABASEKEY"))
        await moto.stop()
    }
}

extension ServerTests {
    /// STS's answer when the role's trust policy refuses the caller.
    static let accessDenied = """
        <ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
          <Error><Type>Sender</Type><Code>AccessDenied</Code><Message>User is not authorized to perform: sts:AssumeRole</Message></Error>
          <RequestId>4f1c</RequestId>
        </ErrorResponse>
        """

    @Test("A role STS refuses stops the start, naming --s3-assume-role-arn and STS's answer, never a credential")
    func s3AssumeRoleRefused() async throws {
        let sts = try TestHTTPServer { _ in .headers(403, [("Content-Type", "text/xml")], Array(Self.accessDenied.utf8)) }
        defer { sts.stop() }
        var configuration = ServerConfiguration()
        configuration.useS3 = true
        configuration.s3Credentials = AWSCredentials(accessKeyID: "AKIABASEKEY", secretAccessKey: "base-s3cr3t")
        configuration.s3AssumeRoleARN = "arn:aws:iam::123456789012:role/images"
        configuration.awsEndpointVariables = ["AWS_ENDPOINT_URL": "http://127.0.0.1:\(sts.port)"]
        do {
            try await configuration.assumeS3Role()
            Issue.record("the role was assumed")
        } catch {
            #expect(error.setting == "s3-assume-role-arn")
            #expect(error.reason.contains("arn:aws:iam::123456789012:role/images") && error.reason.contains("403 AccessDenied"), "\(error)")
            #expect(!error.reason.contains("base-s3cr3t") && !error.reason.contains("AKIABASEKEY"))
        }
        #expect(sts.hits("/") == 1)
        // A server made without the role assumed is refused, not one that signs with the base key.
        #expect(throws: ServerSetupError.self) { try ServerApplication(configuration: configuration) }
    }

    @Test("The executable exits 64 when IMGPROXY_S3_ASSUME_ROLE_ARN cannot be assumed, or is no role's ARN", .tags(.integration), .offUnderSanitizer,
          .timeLimit(.minutes(10)),
          .enabled(if: ChildProcess.executable("imagery-server") != nil, "needs the imagery-server executable beside the tests"))
    func s3AssumeRoleExitCode() async throws {
        let binary = try #require(ChildProcess.executable("imagery-server"))
        let sts = try TestHTTPServer { _ in .headers(403, [("Content-Type", "text/xml")], Array(Self.accessDenied.utf8)) }
        defer { sts.stop() }
        let environment = [
            "IMGPROXY_USE_S3": "true", "IMGPROXY_S3_ASSUME_ROLE_ARN": "arn:aws:iam::123456789012:role/images",
            "AWS_ACCESS_KEY_ID": "AKIABASEKEY", "AWS_SECRET_ACCESS_KEY": "base-s3cr3t",
            "AWS_ENDPOINT_URL_STS": "http://127.0.0.1:\(sts.port)", "IMAGERY_HOST": "127.0.0.1", "IMAGERY_PORT": "0",
        ]
        #expect(try await ChildProcess.run(binary, [], environment: environment).exitCode == 64)
        #expect(sts.hits("/") == 1)
        var malformed = environment
        malformed["IMGPROXY_S3_ASSUME_ROLE_ARN"] = "images"
        #expect(try await ChildProcess.run(binary, [], environment: malformed).exitCode == 64)
        #expect(sts.hits("/") == 1, "a malformed ARN is refused before STS is asked")
    }

    @Test("An access point name maps to the ARN (path style before a custom endpoint), signed for the ARN's region; the bucket lists apply to the name")
    func s3AccessPoints() async throws {
        let seen = Locked([(path: String, authorization: String)]())
        let store = try TestHTTPServer { request in
            seen.withLock { $0.append((request.path, request.headers.first { $0.key.lowercased() == "authorization" }?.value ?? "")) }
            return .ok(Fixtures.rocket)
        }
        defer { store.stop() }
        let server = try await ServerHarness.start {
            $0.useS3 = true
            $0.s3Endpoint = "http://127.0.0.1:\(store.port)"
            $0.s3Credentials = AWSCredentials(accessKeyID: "testing", secretAccessKey: "testing")
            $0.s3AccessPoints = "images=arn:aws:s3:eu-west-1:123456789012:accesspoint/images-ap"
            $0.s3AllowedBuckets = ["images"]
        }
        defer { server.cancel() }

        let reply = try await server.get("/unsafe/w:100/plain/s3://images/album/rocket.jpg")
        #expect(reply.status == 200, "\(reply.text)")
        let request = try #require(seen.withLock { $0.first })
        #expect(request.path == "/arn%3Aaws%3As3%3Aeu-west-1%3A123456789012%3Aaccesspoint/images-ap/album/rocket.jpg")
        #expect(request.authorization.contains("/eu-west-1/s3/aws4_request"), "\(request.authorization)")
        // The lists name what the URL names: the ARN's own name is another bucket, not allowed.
        let other = try await server.get("/unsafe/w:100/plain/s3://images-ap/rocket.jpg")
        #expect(other.status == 403 && other.text == "source: bucket images-ap is not allowed\n")
        #expect(seen.withLock { $0.count } == 1)
    }
}
