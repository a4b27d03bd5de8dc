import Foundation
import Imagery
import ImageryHTTPClient
import ImageryImgproxy
@testable import ImageryServer
import ImageryTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Result storage in a bucket of moto (the suite, serialized, is in ServerTests+S3.swift).
extension S3Tests {
    static let credentials = AWSCredentials(accessKeyID: "testing", secretAccessKey: "testing")

    /// How long a lookup or a write may take in these tests: long enough that moto (Python, on
    /// two cores shared with the other suites) answering slowly is never mistaken for a store
    /// that failed. The test of a stopped store passes it on a manual clock instead.
    static let storeDeadline = Duration.seconds(12)

    /// An instance storing results in `results/cache/` of `moto`, reading sources from loopback.
    static func instance(
        _ moto: MotoServer, credentials: AWSCredentials = credentials, _ configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> ServerHarness {
        try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.s3Endpoint = moto.endpoint
            $0.s3Credentials = credentials
            $0.s3ResultStorage = "results/cache"
            $0.s3ResultStorageTimeout = storeDeadline
            $0.s3ResultStorageWriteTimeout = storeDeadline
            configure(&$0)
        }
    }

    @Test("A result made by one instance is served by a second, fresh one with zero downloads and zero decodes; a damaged object is a miss")
    func sharedAcrossInstances() async throws {
        let moto = try await MotoServer.start()
        defer { moto.process.kill() }
        _ = try await moto.python(#"s3.create_bucket(Bucket="results")"#)
        let origin = try TestHTTPServer { request in request.path == "/photo.jpg" ? .ok(Fixtures.rocket) : .status(404) }
        defer { origin.stop() }
        let path = "/unsafe/rs:fit:120:120/plain/http://127.0.0.1:\(origin.port)/photo.jpg"

        // Given one instance that answered the URL and stored its result
        let first = try await Self.instance(moto)
        let made = try await first.get(path)
        #expect(made.status == 200)
        await first.server.writes.drain()
        first.cancel()
        #expect(first.metric(#"imagery_response_writes_total{tier="bucket"}"#) == 1)
        let stored = try await moto.python("""
            listed = s3.list_objects_v2(Bucket="results", Prefix="cache/").get("Contents", [])
            head = s3.head_object(Bucket="results", Key=listed[0]["Key"])
            print(len(listed), head["ContentType"], head["ContentLength"], head["Metadata"]["imagery-etag"], listed[0]["Key"])
            """)
        let fields = stored.split(separator: " ")
        #expect(fields.dropLast().joined(separator: " ") == "1 image/jpeg \(made.body.count) \(made.header("etag") ?? "no ETag")")
        // Its key is the prefix and a SHA-256 in hex: no segment of it can be . or .., whatever the URL held.
        #expect(fields.last?.wholeMatch(of: /cache\/[0-9a-f]{64}/) != nil, "\(stored)")

        // When a fresh instance, with nothing in memory and debug headers on, is asked the same
        let second = try await Self.instance(moto) { $0.enableDebugHeaders = true }
        defer { second.cancel() }
        let served = try await second.get(path)

        // Then it answers the same bytes and headers from the bucket, without the origin, and
        // what the first made it from (kept in the object's metadata though it was not sent)
        #expect(served.status == 200 && served.body == made.body)
        #expect(served.header("etag") == made.header("etag"))
        let rocket = try #require(ImageHeader.size(of: Fixtures.rocket))
        #expect(served.header("x-origin-content-length") == String(Fixtures.rocket.count))
        #expect(served.header("x-origin-width") == String(rocket.width) && served.header("x-origin-height") == String(rocket.height))
        #expect(served.header("x-result-width") == "120" && served.header("x-imagery-quality") == "80")
        #expect(made.header("x-origin-width") == nil)
        ServerHarness.expectImage(served, .jpeg)
        #expect(origin.hits("/photo.jpg") == 1)
        #expect(second.server.pipeline.statistics.downloads == 0 && second.server.pipeline.statistics.decodes == 0)
        #expect(second.metric(#"imagery_response_hits_total{tier="bucket"}"#) == 1)
        #expect(second.metric("imagery_response_misses_total") == 0)

        // And an object whose body no longer matches its checksum is a miss, processed afresh
        _ = try await moto.python("""
            key = s3.list_objects_v2(Bucket="results", Prefix="cache/")["Contents"][0]["Key"]
            head = s3.head_object(Bucket="results", Key=key)
            s3.put_object(Bucket="results", Key=key, Body=b"not the image", ContentType="image/jpeg", Metadata=head["Metadata"])
            """)
        let third = try await Self.instance(moto)
        defer { third.cancel() }
        let remade = try await third.get(path)
        #expect(remade.status == 200 && remade.body == made.body)
        #expect(third.server.pipeline.statistics.downloads == 1)
        #expect(third.metric(#"imagery_result_storage_errors_total{operation="lookup"}"#) == 1)
        await third.server.writes.drain()
        await moto.stop()
    }

    @Test("An object keeps the source's freshness; one of the older format (no imagery-format) is a miss, made again, never misread")
    func storedFormatIsVersioned() async throws {
        let moto = try await MotoServer.start()
        defer { moto.process.kill() }
        _ = try await moto.python(#"s3.create_bucket(Bucket="results")"#)
        let origin = try ServerTests.freshnessOrigin()
        defer { origin.stop() }
        let path = ServerTests.plain(origin, "/modified.jpg")

        let first = try await Self.instance(moto)
        #expect(try await first.get(path).header("last-modified") == ServerTests.modified)
        await first.server.writes.drain()
        first.cancel()
        // What a version-1 instance wrote: the same body and checksum, without the new metadata.
        _ = try await moto.python("""
            key = s3.list_objects_v2(Bucket="results", Prefix="cache/")["Contents"][0]["Key"]
            head = s3.head_object(Bucket="results", Key=key)
            body = s3.get_object(Bucket="results", Key=key)["Body"].read()
            metadata = {k: v for k, v in head["Metadata"].items() if k in ("imagery-etag", "imagery-vary", "imagery-sha256")}
            s3.put_object(Bucket="results", Key=key, Body=body, ContentType=head["ContentType"], Metadata=metadata)
            """)
        let second = try await Self.instance(moto)
        #expect(try await second.get(path).header("last-modified") == ServerTests.modified)
        #expect(origin.hits("/modified.jpg") == 2 && second.metric(#"imagery_response_hits_total{tier="bucket"}"#) == 0)
        await second.server.writes.drain()
        second.cancel()
        let third = try await Self.instance(moto)
        defer { third.cancel() }
        let hit = try await third.get(path)
        #expect(hit.header("last-modified") == ServerTests.modified && origin.hits("/modified.jpg") == 2)
        #expect(third.metric(#"imagery_response_hits_total{tier="bucket"}"#) == 1)
        await moto.stop()
    }

    @Test("A store that stops answering mid-run: every request is still answered, and after five failures in a row the store is not asked")
    func storeStoppedMidRun() async throws {
        let moto = try await MotoServer.start()
        defer { moto.process.kill() }   // SIGKILL ends a stopped process too
        _ = try await moto.python(#"s3.create_bucket(Bucket="results")"#)
        let origin = try TestHTTPServer { request in request.path.hasPrefix("/photo-") ? .ok(Fixtures.rocket) : .status(404) }
        defer { origin.stop() }
        // The store's deadlines pass on a manual clock, when the test says: at once, not after
        // a minute of waiting. The request's own limit, on the same clock, is never reached.
        let clock = ManualClock()
        let server = try await Self.instance(moto) {
            $0.deadlineClock = clock
            $0.requestTimeout = .seconds(3_600)
        }
        defer { server.cancel() }
        /// Request `index`, its lookup and its write each passing the store's deadline when
        /// `stalled` says the store is asked and does not answer.
        func answer(_ index: Int, stalled: (lookup: Bool, write: Bool) = (false, false)) async throws -> Int {
            async let reply = server.get("/unsafe/w:\(60 + index)/plain/http://127.0.0.1:\(origin.port)/photo-\(index).jpg")
            if stalled.lookup {
                await clock.untilSleeping(count: 2)   // the request's limit and the lookup's deadline
                clock.advance(by: Self.storeDeadline)
            }
            let status = try await reply.status
            // So the breaker sees each write's outcome in order. The request's limit went
            // with its answer: the one sleep left is the write's.
            async let drained: Void = server.server.writes.drain()
            if stalled.write {
                await clock.untilSleeping()
                clock.advance(by: Self.storeDeadline)
            }
            await drained
            return status
        }
        #expect(try await answer(0) == 200)
        #expect(server.metric(#"imagery_result_storage_errors_total{operation="write"}"#) == 0)

        // When the store stops (SIGSTOP: its socket still takes connections, and never answers)
        moto.process.signal(SIGSTOP)
        defer { moto.process.signal(SIGCONT) }
        #expect(try await answer(1, stalled: (true, true)) == 200)
        #expect(try await answer(2, stalled: (true, true)) == 200)
        #expect(try await answer(3, stalled: (true, false)) == 200)
        #expect(try await answer(4) == 200)

        // Then the first two requests' lookups and writes fail at their deadlines, the third's
        // lookup opens the breaker, and from then on the store is not asked
        func count(_ name: String, _ operation: String) -> Double {
            server.metric("imagery_result_storage_\(name)_total{operation=\"\(operation)\"}")
        }
        #expect(count("errors", "lookup") == 3 && count("errors", "write") == 2)
        #expect(count("skipped", "lookup") == 1 && count("skipped", "write") == 2)
        #expect(origin.events.count("request") == 5)   // each image downloaded once
    }

    @Test(
        "SIGTERM lets every result-storage write land before the process exits",
        .enabled(if: ChildProcess.executable("imagery-server") != nil, "needs the imagery-server executable beside the tests")
    )
    func shutdownDrainsResultWrites() async throws {
        let moto = try await MotoServer.start()
        defer { moto.process.kill() }
        _ = try await moto.python(#"s3.create_bucket(Bucket="results")"#)
        let origin = try TestHTTPServer { request in request.path.hasPrefix("/photo-") ? .ok(Fixtures.rocket) : .status(404) }
        defer { origin.stop() }
        let draining = "draining response writes"
        // Lookups give up at once on the stopped store; writes wait for it for as long as a
        // loaded CI run may take to signal.
        let server = try ServerProcess.start(
            [
                "--port", "0", "--allow-loopback-sources", "--s3-endpoint", moto.endpoint, "--s3-result-storage", "results",
                "--s3-result-storage-timeout", "0.05", "--s3-result-storage-write-timeout", "600",
            ],
            watching: [draining],
            environment: ["AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"]
        )
        defer { server.kill() }
        let port = try await server.port()

        // Given the store stopped, so every write the server begins waits
        moto.process.signal(SIGSTOP)
        defer { moto.process.signal(SIGCONT) }
        // And 4 images answered (fewer than the 5 failed lookups that open the breaker)
        for index in 0..<4 {
            let reply = try await Cluster.get(port: port, "/unsafe/w:\(64 + index)/plain/http://127.0.0.1:\(origin.port)/photo-\(index).jpg")
            #expect(reply.status == 200)
        }
        let begun = Int(try await Cluster.metric(#"imagery_response_writes_total{tier="bucket"}"#, port: port))
        #expect(begun == 4)

        // When SIGTERM arrives, and the store answers again only once the server says it drains
        server.signal(SIGTERM)
        #expect(await server.line(containing: draining), "the server exited without draining")
        moto.process.signal(SIGCONT)
        #expect(await server.exitCode() == 0)

        // Then every write it began is in the bucket
        let listed = try await moto.python(#"print(s3.list_objects_v2(Bucket="results").get("KeyCount", 0))"#)
        #expect(listed == String(begun))
        await moto.stop()
    }

    @Test("Result storage's PUT and GET are signed as a store that checks signatures verifies them; a wrong secret is refused there and costs the request nothing")
    func signedWritesAndReads() async throws {
        // Four unsigned requests seed a user, its key, its policy and the bucket; every request
        // after them must be signed with that key (moto's INITIAL_NO_AUTH_ACTION_COUNT).
        let moto = try await MotoServer.start(authenticatingAfter: 4)
        defer { moto.process.kill() }
        let created = try await moto.python("""
            import json
            iam = boto3.client("iam", endpoint_url="\(moto.endpoint)", region_name="us-east-1",
                               aws_access_key_id="testing", aws_secret_access_key="testing")
            iam.create_user(UserName="imagery")
            key = iam.create_access_key(UserName="imagery")["AccessKey"]
            policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}
            iam.put_user_policy(UserName="imagery", PolicyName="all", PolicyDocument=json.dumps(policy))
            s3.create_bucket(Bucket="results")
            print(key["AccessKeyId"] + " " + key["SecretAccessKey"])
            """)
        let parts = created.split(separator: " ").map(String.init)
        try #require(parts.count == 2)
        let signing = AWSCredentials(accessKeyID: parts[0], secretAccessKey: parts[1])
        let origin = try TestHTTPServer { request in request.path == "/photo.jpg" ? .ok(Fixtures.rocket) : .status(404) }
        defer { origin.stop() }
        let path = "/unsafe/rs:fit:90:90/plain/http://127.0.0.1:\(origin.port)/photo.jpg"

        // Given an instance with the wrong secret: the store refuses its GET and its PUT
        let wrong = try await Self.instance(moto, credentials: AWSCredentials(accessKeyID: parts[0], secretAccessKey: parts[1] + "x"))
        let refused = try await wrong.get(path)
        await wrong.server.writes.drain()
        wrong.cancel()
        #expect(refused.status == 200)
        #expect(wrong.metric(#"imagery_result_storage_errors_total{operation="lookup"}"#) == 1)
        #expect(wrong.metric(#"imagery_result_storage_errors_total{operation="write"}"#) == 1)

        // When an instance with the right key answers the URL: its lookup is a clean miss and its PUT is accepted
        let writer = try await Self.instance(moto, credentials: signing)
        let made = try await writer.get(path)
        await writer.server.writes.drain()
        writer.cancel()
        #expect(made.status == 200)
        #expect(writer.metric(#"imagery_result_storage_errors_total{operation="lookup"}"#) == 0)
        #expect(writer.metric(#"imagery_result_storage_errors_total{operation="write"}"#) == 0)
        let stored = try await moto.python("""
            s3 = boto3.client("s3", endpoint_url="\(moto.endpoint)", region_name="us-east-1",
                              aws_access_key_id="\(parts[0])", aws_secret_access_key="\(parts[1])")
            # No Prefix: moto's own check refuses boto3's signature of a prefix with a slash.
            key = [o["Key"] for o in s3.list_objects_v2(Bucket="results")["Contents"] if o["Key"].startswith("cache/")][0]
            head = s3.head_object(Bucket="results", Key=key)
            print(head["ContentType"], head["Metadata"]["imagery-etag"])
            """)
        #expect(stored == "image/jpeg \(made.header("etag") ?? "no ETag")", "the signed content type and metadata were stored as sent")

        // Then a fresh instance with the right key reads it back with a signed GET
        let reader = try await Self.instance(moto, credentials: signing)
        defer { reader.cancel() }
        let served = try await reader.get(path)
        #expect(served.status == 200 && served.body == made.body)
        #expect(reader.metric(#"imagery_response_hits_total{tier="bucket"}"#) == 1)
        #expect(origin.hits("/photo.jpg") == 2, "the refused instance and the writer downloaded; the reader did not")
        await moto.stop()
    }
}
