import Foundation
@testable import Imagery
import ImageryCodecs
import ImageryHTTPClient
@testable import ImageryServer
import ImageryTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `s3://` sources and result storage against a real S3 API server (moto) on 127.0.0.1.
// Serialized: each test starts its own moto, seconds of Python CPU, and several at once on
// two cores starved the neighbouring suites' requests past their deadlines.
@Suite(
    "imagery-server with S3: s3:// sources and result storage, against moto", .timeLimit(.minutes(10)), .serialized,
    .tags(.integration), .offUnderSanitizer,
    .enabled(if: CIRun.runs(needing: MotoServer.binary != nil), "moto_server is not installed (pip install \"moto[server]\"; .ci/run installs it)")
)
struct S3Tests {
    @Test("A source, a version, a missing key, a denied bucket and an oversized object, each answered as it should be")
    func sources() async throws {
        let moto = try await MotoServer.start()
        defer { moto.process.kill() }   // a no-op once stopped below
        let rocket = try MotoServer.file(Fixtures.rocket), logo = try MotoServer.file(Fixtures.logo)
        let big = try MotoServer.file([UInt8](repeating: 7, count: 300_000))
        defer {
            for path in [rocket, logo, big] { try? FileManager.default.removeItem(atPath: path) }
        }
        let version = try await moto.python("""
            for bucket in ["photos", "private"]:
                s3.create_bucket(Bucket=bucket)
            s3.put_bucket_versioning(Bucket="photos", VersioningConfiguration={"Status": "Enabled"})
            s3.put_object(Bucket="photos", Key="album/rocket.jpg", Body=open("\(rocket)", "rb").read())
            s3.put_object(Bucket="private", Key="rocket.jpg", Body=open("\(rocket)", "rb").read())
            s3.put_object(Bucket="photos", Key="big.bin", Body=open("\(big)", "rb").read())
            first = s3.put_object(Bucket="photos", Key="changing.img", Body=open("\(rocket)", "rb").read())["VersionId"]
            s3.put_object(Bucket="photos", Key="changing.img", Body=open("\(logo)", "rb").read())
            print(first)
            """)
        let server = try await ServerHarness.start {
            $0.useS3 = true
            $0.s3Endpoint = moto.endpoint
            $0.s3Credentials = AWSCredentials(accessKeyID: "testing", secretAccessKey: "testing")
            $0.s3DeniedBuckets = ["private"]
            $0.maximumSourceBytes = 200_000
        }
        defer { server.cancel() }
        func get(_ source: String) async throws -> ServerHarness.Reply {
            try await server.get("/unsafe/w:100/plain/" + source)
        }

        let served = try await get("s3://photos/album/rocket.jpg")
        #expect(try served.status == 200 && ServerHarness.image(served).height == 67)
        // The latest version is the 500×500 logo; the first, named by its id, the rocket.
        #expect(try ServerHarness.image(await get("s3://photos/changing.img")).height == 100)
        #expect(try ServerHarness.image(await get("s3://photos/changing.img%3F" + version)).height == 67)
        let missing = try await get("s3://photos/album/nothing.jpg")
        #expect(missing.status == 404 && missing.text == "source: not found\n")
        let denied = try await get("s3://private/rocket.jpg")
        #expect(denied.status == 403 && denied.text == "source: bucket private is not allowed\n")
        let oversized = try await get("s3://photos/big.bin")
        #expect(oversized.status == 413 && oversized.text.contains("200000"))
        let malformed = try await get("s3://Not_A_Bucket/a.jpg")
        #expect(malformed.status == 400)

        // --source-url-query-separator: the version follows another separator, or none is split off.
        let separated = try await ServerHarness.start {
            $0.useS3 = true
            $0.s3Endpoint = moto.endpoint
            $0.s3Credentials = AWSCredentials(accessKeyID: "testing", secretAccessKey: "testing")
            $0.sourceURLQuerySeparator = "?version="
        }
        defer { separated.cancel() }
        let versioned = try await separated.get("/unsafe/w:100/plain/s3://photos/changing.img%3Fversion=" + version)
        #expect(try versioned.status == 200 && ServerHarness.image(versioned).height == 67)
        #expect(try await separated.get("/unsafe/w:100/plain/s3://photos/changing.img%3F" + version).status == 404)   // a key of that name

        await moto.stop()
    }

    @Test("A store that stops answering is 504 at --upstream-timeout, and the warning names the bucket and key")
    func slowStore() async throws {
        let moto = try await MotoServer.start()
        defer { moto.process.kill() }   // SIGKILL ends a stopped process too
        try await moto.createBucket("photos", holding: Fixtures.rocket, as: "rocket.jpg")
        let server = try await ServerHarness.start {
            $0.useS3 = true
            $0.s3Endpoint = moto.endpoint
            $0.s3Credentials = AWSCredentials(accessKeyID: "testing", secretAccessKey: "testing")
            $0.upstreamTimeout = .seconds(1)
        }
        defer { server.cancel() }

        // SIGSTOP: moto's socket still takes connections, and nothing answers them.
        moto.process.signal(SIGSTOP)
        defer { moto.process.signal(SIGCONT) }
        let reply = try await server.get("/unsafe/w:100/plain/s3://photos/rocket.jpg")
        #expect(reply.status == 504 && reply.text == "source: the origin timed out\n")
        // What the warning logs beside the status: bucket and key, as the loader names them.
        #expect(ServerError(DataLoadingError.timedOut(source: "s3://photos/rocket.jpg")).detail == "timed out loading s3://photos/rocket.jpg")
        moto.process.signal(SIGCONT)
        await moto.stop()
    }

    @Test("With moto checking signatures, the right secret is served and a wrong one refused (502, naming no credential)")
    func signatures() async throws {
        // Five unsigned requests seed a user, its key, its policy, a bucket and an object; every
        // request after them must be signed with that key.
        let moto = try await MotoServer.start(authenticatingAfter: 5)
        defer { moto.process.kill() }
        let rocket = try MotoServer.file(Fixtures.rocket)
        defer { try? FileManager.default.removeItem(atPath: rocket) }
        let key = try await moto.python("""
            import json
            iam = boto3.client("iam", endpoint_url="\(moto.endpoint)", region_name="us-east-1",
                               aws_access_key_id="testing", aws_secret_access_key="testing")
            iam.create_user(UserName="imagery")
            created = iam.create_access_key(UserName="imagery")["AccessKey"]
            policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}
            iam.put_user_policy(UserName="imagery", PolicyName="all", PolicyDocument=json.dumps(policy))
            s3.create_bucket(Bucket="signed")
            s3.put_object(Bucket="signed", Key="rocket.jpg", Body=open("\(rocket)", "rb").read())
            print(created["AccessKeyId"] + " " + created["SecretAccessKey"])
            """)
        let parts = key.split(separator: " ").map(String.init)
        try #require(parts.count == 2)
        for (secret, status) in [(parts[1], 200), (parts[1] + "x", 502)] {
            let server = try await ServerHarness.start {
                $0.useS3 = true
                $0.s3Endpoint = moto.endpoint
                $0.s3Credentials = AWSCredentials(accessKeyID: parts[0], secretAccessKey: secret)
            }
            defer { server.cancel() }
            let reply = try await server.get("/unsafe/w:100/plain/s3://signed/rocket.jpg")
            #expect(reply.status == status, "\(reply.text)")
            #expect(!reply.text.contains(parts[1]) && !reply.text.contains(parts[0]))
        }
        await moto.stop()
    }
}

extension S3Tests {
    /// s3:// sources whose key has a `.` or `..` segment, as URLs write them: a store (or a
    /// proxy before it) that resolved the path would read `secret`, a bucket not allowed.
    static let dotSegmentSources = [
        "s3://photos/../secret/a.jpg", "s3://photos/%2e%2e/secret/a.jpg", "s3://photos/%2E%2e/secret/a.jpg",
        "s3://photos/album/./../../secret/a.jpg", "s3://photos/./rocket.jpg", "s3://photos/album/%2e/../../secret/a.jpg",
    ]

    /// The two spellings of `source` in an image path: plain (percent-encoded once more, as a
    /// plain source is decoded once) and base64.
    static func paths(_ source: String) -> [String] {
        ["/unsafe/w:100/plain/" + source.replacingOccurrences(of: "%", with: "%25"), "/unsafe/w:100/" + source.base64URL]
    }

    @Test("A key with a . or .. segment, plain or percent-encoded, in a plain or a base64 source, is 400 with nothing sent to the store")
    func dotSegmentKeys() async throws {
        let moto = try await MotoServer.start(recording: true)
        defer { moto.process.kill() }
        let rocket = try MotoServer.file(Fixtures.rocket)
        defer { try? FileManager.default.removeItem(atPath: rocket) }
        _ = try await moto.python("""
            for bucket in ["photos", "secret"]:
                s3.create_bucket(Bucket=bucket)
            s3.put_object(Bucket="photos", Key="rocket.jpg", Body=open("\(rocket)", "rb").read())
            s3.put_object(Bucket="secret", Key="a.jpg", Body=open("\(rocket)", "rb").read())
            """)
        let server = try await ServerHarness.start {
            $0.useS3 = true
            $0.s3Endpoint = moto.endpoint
            $0.s3Credentials = AWSCredentials(accessKeyID: "testing", secretAccessKey: "testing")
            $0.s3AllowedBuckets = ["photos"]
        }
        defer { server.cancel() }
        let setup = moto.recordedRequests()
        try #require(setup.contains("PUT /secret/a.jpg"), "the recorder sees requests: \(setup)")

        for source in Self.dotSegmentSources {
            for path in Self.paths(source) {
                let reply = try await server.get(path)
                #expect(reply.status == 400 && reply.text == "source: an s3:// key may not have a . or .. segment\n", "\(path): \(reply.status) \(reply.status == 200 ? "with an image" : reply.text)")
            }
        }
        #expect(moto.recordedRequests() == setup, "nothing reached the store")
        #expect(server.server.pipeline.statistics.downloads == 0)

        // The same store serves an allowed key, and records it: the zero above is a count.
        let served = try await server.get("/unsafe/w:100/plain/s3://photos/rocket.jpg")
        #expect(served.status == 200)
        #expect(moto.recordedRequests() == setup + ["GET /photos/rocket.jpg"])
        await moto.stop()
    }
}

extension ServerTests {
    @Test("A dot-segment s3:// key is 400 before any request to the store, which here is a loopback server that counts them")
    func s3DotSegmentKeysSendNothing() async throws {
        let store = try TestHTTPServer { _ in .ok(Fixtures.rocket) }
        defer { store.stop() }
        let server = try await ServerHarness.start {
            $0.useS3 = true
            $0.s3Endpoint = "http://127.0.0.1:\(store.port)"
            $0.s3Credentials = AWSCredentials(accessKeyID: "testing", secretAccessKey: "testing")
        }
        defer { server.cancel() }
        for source in S3Tests.dotSegmentSources {
            for path in S3Tests.paths(source) {
                let reply = try await server.get(path)
                #expect(reply.status == 400 && reply.text == "source: an s3:// key may not have a . or .. segment\n", "\(path): \(reply.status) \(reply.status == 200 ? "with an image" : reply.text)")
            }
        }
        #expect(store.events.count("request") == 0)
        // The store is reachable: an allowed key is one request.
        #expect(try await server.get("/unsafe/w:100/plain/s3://photos/rocket.jpg").status == 200)
        #expect(store.hits("/photos/rocket.jpg") == 1)
    }

    @Test("Without --use-s3 an s3:// source is refused; with it but no credentials the server does not start")
    func s3Off() async throws {
        let server = try await ServerHarness.start()
        defer { server.cancel() }
        let refused = try await server.get("/unsafe/w:100/plain/s3://photos/a.jpg")
        #expect(refused.status == 403 && refused.text == "source: s3:// sources are off (no --use-s3)\n")
        var configuration = ServerConfiguration()
        configuration.useS3 = true
        #expect(throws: ServerSetupError.self) { try ServerApplication(configuration: configuration) }
    }
}
