import Foundation
@testable import ImageryServer
import ImageryTestSupport
import Logging
import Testing

/// `--log-format` (imgproxy's `IMGPROXY_LOG_FORMAT`): each format's line, read back as its
/// parser would read it, and the real server writing it.
@Suite("imagery-server log formats", .timeLimit(.minutes(10)))
struct ServerLogHandlerTests {
    static let metadata: Logger.Metadata = [
        "hb.request.id": "42", "path": "/unsafe/w:10/plain/a b.jpg", "quote": "say \"hi\"\n", "status": .stringConvertible(200),
        "msg": "a key the line uses itself",
    ]

    static func line(_ format: LogFormat, level: Logger.Level = .warning) -> String {
        ServerLogHandler.line(time: "2026-11-26T18:05:00Z", level: level, label: "imagery.server", message: "origin \"slow\"", metadata: metadata, format: format)
    }

    @Test("json and gcp lines are JSON objects with the time, the level, the message, the label and every metadata value")
    func jsonLines() throws {
        for (format, levelKey, messageKey) in [(LogFormat.json, "level", "msg"), (.gcp, "severity", "message")] {
            let text = Self.line(format)
            #expect(!text.contains("\n"))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
            #expect(object["time"] as? String == "2026-11-26T18:05:00Z")
            #expect(object[levelKey] as? String == "WARNING")
            #expect(object[messageKey] as? String == "origin \"slow\"")
            #expect(object["label"] as? String == "imagery.server")
            #expect(object["hb.request.id"] as? String == "42")
            #expect(object["path"] as? String == "/unsafe/w:10/plain/a b.jpg")
            #expect(object["quote"] as? String == "say \"hi\"\n")
            #expect(object["status"] as? String == "200")
            if format == .json {
                // The line's own key wins; the metadata's is kept beside it.
                #expect(object["meta.msg"] as? String == "a key the line uses itself")
            } else {
                #expect(object["msg"] as? String == "a key the line uses itself")
            }
        }
    }

    @Test("structured lines are logfmt: bare values where they can be, quoted with escapes where they cannot")
    func structuredLines() {
        let text = Self.line(.structured, level: .notice)
        #expect(text.hasPrefix("time=2026-11-26T18:05:00Z level=INFO msg=\"origin \\\"slow\\\"\" label=imagery.server "))
        #expect(text.contains(" hb.request.id=42 "))
        #expect(text.contains(" meta.msg=\"a key the line uses itself\" "))
        #expect(text.contains(" path=\"/unsafe/w:10/plain/a b.jpg\" "))
        #expect(text.contains(" quote=\"say \\\"hi\\\"\\n\" "))
        #expect(text.hasSuffix(" status=200"))
        #expect(!text.contains("\n"))
    }

    @Test("Levels are imgproxy's names", arguments: [
        (Logger.Level.trace, "DEBUG"), (.debug, "DEBUG"), (.info, "INFO"), (.notice, "INFO"), (.warning, "WARNING"), (.error, "ERROR"), (.critical, "CRITICAL"),
    ])
    func levelNames(_ level: Logger.Level, _ name: String) {
        #expect(ServerLogHandler.severity(level) == name)
    }

    @Test("pretty keeps the line people read: time, level, label, metadata, message")
    func prettyLine() {
        let text = ServerLogHandler.line(time: "T", level: .info, label: "imagery.server", message: "listening", metadata: ["address": "http://127.0.0.1:1"], format: .pretty)
        #expect(text == "T info imagery.server: address=http://127.0.0.1:1 listening")
    }

    @Test(
        "IMGPROXY_LOG_FORMAT=gcp: the server's own lines are JSON that Cloud Logging reads",
        .tags(.integration), .offUnderSanitizer,
        .enabled(if: ChildProcess.executable("imagery-server") != nil, "needs the imagery-server executable beside the tests")
    )
    func serverWritesTheFormat() async throws {
        let marker = #""severity":"INFO","message":"listening""#
        let server = try ServerProcess.start(["--port", "0"], watching: [marker], environment: ["IMGPROXY_LOG_FORMAT": "gcp"])
        defer { server.kill() }
        #expect(try await server.port() > 0)
        #expect(await server.line(containing: marker))
        server.signal(SIGTERM)
        #expect(await server.exitCode() == 0)
    }
}
