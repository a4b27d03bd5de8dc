import Foundation
import ImageryTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// moto's S3 API server on 127.0.0.1 (`pip install "moto[server]"`, which `.ci/run` installs),
/// on a port it picks and announces, stopped by its PID. Buckets and objects are put with
/// boto3, which moto brings.
struct MotoServer {
    let process: ServerProcess
    let port: Int
    /// Where moto's recorder writes every request it serves, one JSON line each, when asked to.
    let recording: String?

    /// `moto_server` on the PATH, if installed.
    static let binary = ChildProcess.onPath("moto_server")

    /// moto, answering every request; with `authenticatingAfter`, only the first that many
    /// unsigned, and after them only requests signed with a key its IAM knows (moto's
    /// `INITIAL_NO_AUTH_ACTION_COUNT`); with `recording`, every request it serves written to
    /// ``recording`` (moto's recorder), so a test can count what reached the store.
    static func start(authenticatingAfter requests: Int? = nil, recording: Bool = false) async throws -> MotoServer {
        let binary = try #require(binary, Comment(rawValue: CIRun.missing("moto (moto_server, from pip's moto[server])")))
        var environment: [String: String] = [:]
        if let requests { environment["INITIAL_NO_AUTH_ACTION_COUNT"] = String(requests) }
        let file = recording ? FileManager.default.temporaryDirectory.appendingPathComponent("imagery-moto-recording-\(UUID().uuidString)").path : nil
        if let file {
            environment["MOTO_ENABLE_RECORDING"] = "True"
            environment["MOTO_RECORDER_FILEPATH"] = file
        }
        let process = try ServerProcess.start(executable: binary, ["-H", "127.0.0.1", "-p", "0"], readyMarker: "Running on", environment: environment)
        let port = try await process.port()
        return MotoServer(process: process, port: port, recording: file)
    }

    /// The requests moto has served so far, as "METHOD path": moto records a request before it
    /// answers, so every request whose answer a caller has seen is in it.
    func recordedRequests() -> [String] {
        guard let recording, let text = try? String(contentsOfFile: recording, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let entry = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let method = entry["method"] as? String, let url = (entry["url"] as? String).flatMap(URL.init(string:))
            else { return nil }
            return method + " " + url.path
        }
    }

    /// One request as moto's recorder kept it: enough to check how it was signed and what it
    /// asked for.
    struct RecordedRequest {
        let method: String
        /// The whole URL, as moto saw it.
        let url: String
        let path: String
        /// As sent, names as the client wrote them.
        let headers: [String: String]
        /// The body as text (moto keeps it base64-encoded when it was bytes).
        let body: String

        /// A header's value, whatever the case of its name.
        func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name.lowercased() }?.value
        }
    }

    /// The requests moto has served so far, in full.
    func recordedEntries() -> [RecordedRequest] {
        guard let recording, let text = try? String(contentsOfFile: recording, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let entry = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let method = entry["method"] as? String, let url = (entry["url"] as? String).flatMap(URL.init(string:))
            else { return nil }
            var body = entry["body"] as? String ?? ""
            if entry["body_encoded"] as? Bool == true, let data = Data(base64Encoded: body) { body = String(decoding: data, as: UTF8.self) }
            return RecordedRequest(
                method: method, url: url.absoluteString, path: url.path, headers: entry["headers"] as? [String: String] ?? [:], body: body
            )
        }
    }

    /// Whether `request`'s SigV4 signature is the one botocore (which boto3 brings) computes for
    /// the same method, URL, signed headers, body and time with `secret`: an independent signer
    /// checking ours, for services moto does not authenticate (STS, KMS).
    func signatureVerifies(_ request: RecordedRequest, secret: String, sessionToken: String? = nil) async throws -> Bool {
        let file = try Self.file(Array(try JSONSerialization.data(withJSONObject: [
            "method": request.method, "url": request.url, "headers": request.headers, "body": request.body,
            "secret": secret, "token": sessionToken as Any,
        ])))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let printed = try await python("""
            import json
            from botocore.auth import SigV4Auth
            from botocore.awsrequest import AWSRequest
            from botocore.credentials import Credentials
            entry = json.load(open("\(file)"))
            authorization = {k.lower(): v for k, v in entry["headers"].items()}["authorization"]
            key, day, region, service, _ = authorization.split("Credential=")[1].split(",")[0].split("/")
            signed = authorization.split("SignedHeaders=")[1].split(",")[0].split(";")
            headers = {k: v for k, v in entry["headers"].items() if k.lower() in signed}
            request = AWSRequest(method=entry["method"], url=entry["url"], data=entry["body"].encode(), headers=headers)
            request.context["timestamp"] = {k.lower(): v for k, v in headers.items()}["x-amz-date"]
            signer = SigV4Auth(Credentials(key, entry["secret"], entry["token"]), service, region)
            expected = signer.signature(signer.string_to_sign(request, signer.canonical_request(request)), request)
            print("verified" if expected == authorization.split("Signature=")[1].strip() else "differs")
            """)
        return printed == "verified"
    }

    var endpoint: String { "http://127.0.0.1:\(port)" }

    /// Stops moto (SIGKILL to its PID: its development server does not stop on SIGTERM, and it
    /// keeps nothing worth a clean exit) and waits for it.
    func stop() async {
        process.kill()
        _ = await process.exitCode()
        if let recording { try? FileManager.default.removeItem(atPath: recording) }
    }

    /// Runs `statements` in Python with `s3`, a boto3 client for this server, in scope; returns
    /// what they print.
    func python(_ statements: String) async throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-moto-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let script = """
            import boto3
            s3 = boto3.client("s3", endpoint_url="\(endpoint)", region_name="us-east-1",
                              aws_access_key_id="testing", aws_secret_access_key="testing")
            \(statements)
            """
        let outcome = try await ChildProcess.run("/usr/bin/env", ["python3", "-c", script], output: output)
        let printed = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        try #require(outcome.exitCode == 0, "python failed: \(printed)")
        return printed.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A new `bucket` holding `bytes` as `key`: what most tests start from.
    func createBucket(_ bucket: String, holding bytes: [UInt8], as key: String) async throws {
        let file = try Self.file(bytes)
        defer { try? FileManager.default.removeItem(atPath: file) }
        _ = try await python("""
            s3.create_bucket(Bucket="\(bucket)")
            s3.put_object(Bucket="\(bucket)", Key="\(key)", Body=open("\(file)", "rb").read())
            """)
    }

    /// Writes `bytes` to a temporary file for Python to read, and returns its path.
    static func file(_ bytes: [UInt8]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-moto-object-\(UUID().uuidString)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}
