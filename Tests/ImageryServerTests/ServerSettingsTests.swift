import Foundation
@testable import ImageryServer
import ImageryTestSupport
import Testing

/// `imagery-server`'s settings: every one from every source, precedence, imgproxy's names,
/// and every refusal naming the setting, its source and why.
@Suite("imagery-server settings", .timeLimit(.minutes(10)))
struct ServerSettingsTests {
    /// A valid value other than the default for every setting, as text, and how it shows.
    static let samples: [String: (value: String, shown: String)] = [
        "host": ("0.0.0.0", "0.0.0.0"), "port": ("9001", "9001"), "instance-name": ("pod-7", "pod-7"),
        "health-check-path": ("/alive", "/alive"), "key": ("00ff", "00ff"), "salt": ("ab", "ab"),
        "signature-size": ("16", "16"), "trusted-signatures": ("sig1,sig2", "sig1,sig2"),
        "allowed-sources": ("https://a.test/,https://*.b.test/", "https://a.test/,https://*.b.test/"),
        "allow-loopback-sources": ("true", "true"), "local-root": (NSTemporaryDirectory(), NSTemporaryDirectory()),
        "demo": ("true", "true"), "max-source-bytes": ("1000", "1000"), "upstream-timeout": ("2.5", "2.5"),
        "max-redirects": ("3", "3"), "user-agent": ("test-agent/1", "test-agent/1"), "max-source-pixels": ("1000000", "1000000"),
        "max-animation-frames": ("12", "12"), "max-animation-frame-pixels": ("400000", "400000"),
        "concurrency": ("3", "3"), "concurrent-downloads": ("5", "5"), "max-decoding-pixels": ("123456", "123456"),
        "max-memory": ("384MiB", "384MiB"),
        "draft-headroom": ("2", "2"), "max-queue": ("7", "7"), "quality": ("55", "55"),
        "auto-avif": ("false", "false"), "auto-webp": ("false", "false"), "enforce-avif": ("true", "true"), "enforce-webp": ("true", "true"), "avif-speed": ("6", "6"), "log-format": ("JSON", "json"), "prometheus-namespace": ("edge", "edge"), "jpeg-progressive": ("true", "true"),
        "png-interlaced": ("true", "true"), "png-quantize": ("true", "true"), "use-linear-colorspace": ("true", "true"), "strip-metadata": ("false", "false"), "keep-copyright": ("false", "false"), "strip-color-profile": ("false", "false"), "png-quantization-colors": ("64", "64"), "svg-unlimited": ("true", "true"), "always-rasterize-svg": ("true", "true"), "sanitize-svg": ("false", "false"),
        "prometheus-bind": ("127.0.0.1:9464", "127.0.0.1:9464"), "webp-effort": ("6", "6"), "webp-preset": ("Photo", "photo"), "cache-control": ("no-cache", "no-cache"),
        "error-cache-control": ("no-store", "no-store"), "response-cache-bytes": ("1024", "1024"), "image-cache-bytes": ("2048", "2048"),
        "cache-dir": ("/tmp/imagery-settings-test", "/tmp/imagery-settings-test"), "cache-lock-timeout": ("3", "3"), "log-level": ("debug", "debug"),
        "presets": ("thumb=w:100,blurry=bl:2", "thumb=w:100,blurry=bl:2"), "presets-path": ("/dev/null", "/dev/null"),
        "only-presets": ("true", "true"), "allowed-processing-options": ("w,h", "w,h"), "allow-security-options": ("true", "true"),
        "format-quality": ("jpeg=70,avif=50", "jpeg=70,avif=50"), "enable-debug-headers": ("true", "true"),
        "auto-jxl": ("true", "true"), "enforce-jxl": ("true", "true"), "jxl-effort": ("7", "7"),
        "open-telemetry-enable": ("true", "true"), "open-telemetry-enable-logs": ("true", "true"),
        "open-telemetry-propagate-external": ("true", "true"), "otel-exporter-otlp-endpoint": ("http://127.0.0.1:4318", "http://127.0.0.1:4318"),
        "otel-exporter-otlp-protocol": ("http/protobuf", "http/protobuf"), "otel-exporter-otlp-headers": ("x-key=abc", "x-key=abc"),
        "otel-service-name": ("images", "images"), "otel-resource-attributes": ("deployment.environment=test", "deployment.environment=test"),
        "otel-bsp-schedule-delay": ("100", "100"), "otel-bsp-export-timeout": ("1000", "1000"), "otel-bsp-max-queue-size": ("64", "64"),
        "otel-bsp-max-export-batch-size": ("32", "32"), "otel-exporter-otlp-certificate": ("/tmp/ca.pem", "/tmp/ca.pem"),
        "otel-exporter-otlp-client-certificate": ("/tmp/client.pem", "/tmp/client.pem"), "otel-exporter-otlp-client-key": ("/tmp/client-key.pem", "/tmp/client-key.pem"),
        "otel-traces-sampler": ("parentbased_traceidratio", "parentbased_traceidratio"),
        "open-telemetry-enable-metrics": ("true", "true"), "otel-metric-export-interval": ("500", "500"), "otel-metric-export-timeout": ("2000", "2000"),
        "open-telemetry-server-cert": ("-----BEGIN CERTIFICATE-----", "-----BEGIN CERTIFICATE-----"),
        "open-telemetry-client-cert": ("-----BEGIN CERTIFICATE-----", "-----BEGIN CERTIFICATE-----"),
        "open-telemetry-client-key": ("-----BEGIN PRIVATE KEY-----", "-----BEGIN PRIVATE KEY-----"), "otel-traces-sampler-arg": ("0.25", "0.25"),
        "autoquality-method": ("dssim", "dssim"), "autoquality-target": ("0.01", "0.01"), "autoquality-min": ("60", "60"),
        "autoquality-max": ("90", "90"), "autoquality-format-min": ("webp=50", "webp=50"), "autoquality-format-max": ("webp=85", "webp=85"),
        "autoquality-allowed-error": ("0.004", "0.004"), "autoquality-max-resolution": ("2.5", "2.5"), "watermark-path": ("/tmp/imagery-watermark.png", "/tmp/imagery-watermark.png"),
        "watermark-url": ("https://assets.example/wm.png", "https://assets.example/wm.png"), "watermark-data": ("aGVsbG8=", "aGVsbG8="),
        "watermark-opacity": ("0.5", "0.5"), "enable-client-hints": ("true", "true"), "preferred-formats": ("png,jpg", "png,jpg"),
        "use-s3": ("true", "true"), "s3-endpoint": ("http://127.0.0.1:9000", "http://127.0.0.1:9000"), "s3-region": ("eu-west-1", "eu-west-1"),
        "s3-endpoint-use-path-style": ("false", "false"), "s3-allowed-buckets": ("photos,media", "photos,media"), "s3-denied-buckets": ("private", "private"),
        "s3-assume-role-arn": ("arn:aws:iam::123456789012:role/images", "arn:aws:iam::123456789012:role/images"),
        "s3-assume-role-external-id": ("imagery-7", "imagery-7"), "s3-use-decryption-client": ("true", "true"),
        "s3-access-points": ("images=arn:aws:s3:eu-west-1:123456789012:accesspoint/images-ap", "images=arn:aws:s3:eu-west-1:123456789012:accesspoint/images-ap"),
        "s3-result-storage": ("results/imagery", "results/imagery"), "s3-result-storage-timeout": ("0.25", "0.25"),
        "s3-result-storage-write-timeout": ("5", "5"),
        "cookie-passthrough": ("true", "true"), "cookie-base-url": ("https://www.example.com", "https://www.example.com"),
        "cookie-passthrough-all": ("true", "true"), "url-replacements": ("mys3://=s3://bucket/", "mys3://=s3://bucket/"),
        "base-url": ("https://images.example/", "https://images.example/"), "base64-url-includes-filename": ("true", "true"),
        "source-url-query-separator": ("?version=", "?version="),
        "source-url-encryption-key": ("1eb5b0e971ad7f45324c1bb15c947cb2", "1eb5b0e971ad7f45324c1bb15c947cb2"),
        "max-result-dimension": ("800", "800"), "return-attachment": ("true", "true"), "use-etag": ("false", "false"),
        "etag-buster": ("v2", "v2"), "use-last-modified": ("false", "false"),
        "last-modified-buster": ("2024-05-01T12:00:00Z", "2024-05-01T12:00:00Z"), "cache-control-passthrough": ("true", "true"),
        "set-canonical-header": ("true", "true"), "fallback-image-data": ("aGVsbG8=", "aGVsbG8="),
        "fallback-image-path": ("/tmp/imagery-fallback.png", "/tmp/imagery-fallback.png"),
        "fallback-image-url": ("https://assets.example/fallback.png", "https://assets.example/fallback.png"),
        "fallback-image-http-code": ("404", "404"), "fallback-image-ttl": ("30", "30"), "presets-separator": (";", ";"),
        "arguments-separator": ("~", "~"), "info-only-presets": ("true", "true"), "allowed-info-options": ("s,size", "s,size"),
        "info-presets": ("colours=avg:1", "colours=avg:1"), "info-presets-path": ("/dev/null", "/dev/null"),
        "auto-rotate": ("false", "false"), "enforce-thumbnail": ("true", "true"), "disable-shrink-on-load": ("true", "true"),
        "skip-processing-formats": ("png,gif", "png,gif"),
        "network": ("tcp4", "tcp4"), "unix-socket": ("/tmp/imagery-settings.sock", "/tmp/imagery-settings.sock"),
        "path-prefix": ("/img", "/img"), "max-clients": ("16", "16"), "request-timeout": ("12", "12"),
        "read-request-timeout": ("3", "3"), "write-response-timeout": ("4.5", "4.5"), "keep-alive-timeout": ("0", "0"),
        "client-keep-alive-timeout": ("0", "0"), "graceful-stop-timeout": ("7", "7"),
        "allow-private-sources": ("true", "true"), "allow-link-local-sources": ("true", "true"),
        "secret": ("bearer-token", "bearer-token"), "allow-origin": ("https://app.example", "https://app.example"),
        "ignore-ssl-verification": ("true", "true"), "requests-queue-size": ("5", "5"),
        "report-downloading-errors": ("false", "false"), "development-errors-mode": ("true", "true"),
    ]

    /// Settings left out of a file that sets all the others: each excludes one that is in it.
    /// The separators are left out as the presets' syntax depends on them.
    static let exclusive: Set<String> = [
        "local-root", "watermark-url", "watermark-data", "fallback-image-url", "fallback-image-data", "presets-separator", "arguments-separator",
        "unix-socket", "requests-queue-size",
    ]

    static func load(_ arguments: [String] = [], environment: [String: String] = [:]) async throws(SettingError) -> ServerSettings.Loaded {
        try await ServerSettings.load(arguments: ["imagery-server"] + arguments, environment: environment)
    }

    static func refusal(_ arguments: [String] = [], environment: [String: String] = [:]) async -> SettingError? {
        do {
            _ = try await load(arguments, environment: environment)
            return nil
        } catch {
            return error
        }
    }

    @Test("Every setting can be set from the environment, and every flag is its variable", arguments: ServerSettings.all.map(\.name))
    func everySettingFromTheEnvironment(_ name: String) async throws {
        let setting = ServerSettings.setting(named: name)
        let sample = try #require(Self.samples[name], "no sample value for \(name): add one")
        #expect(setting.show(ServerConfiguration()) != sample.shown, "the sample must differ from the default")
        #expect(setting.variable == "IMAGERY_" + name.uppercased().replacingOccurrences(of: "-", with: "_"))

        let fromEnvironment = try await Self.load(environment: [setting.variable: sample.value])
        #expect(setting.show(fromEnvironment.configuration) == sample.shown)
        #expect(fromEnvironment.origins[name] == "the environment (\(setting.variable))")

        let fromFlag = try await Self.load([setting.flag + "=" + sample.value])
        #expect(setting.show(fromFlag.configuration) == sample.shown)
        #expect(fromFlag.origins[name] == "the command line (\(setting.flag))")
    }

    @Test("Every setting from a JSON and a YAML file, with flat keys named after the flags")
    func everySettingFromAFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var json: [String: Any] = [:]
        var yaml: [String] = []
        for setting in ServerSettings.all where !Self.exclusive.contains(setting.name) {
            let text = Self.samples[setting.name]!.value
            switch setting.kind {
            case .whole: json[setting.name] = Int(text)!
            case .number: json[setting.name] = Double(text)!
            case .flag: json[setting.name] = text == "true"
            case .list: json[setting.name] = text.split(separator: ",").map(String.init)
            case .text: json[setting.name] = text
            }
            switch setting.kind {
            case .text: yaml.append("\(setting.name): \"\(text)\"")
            case .list: yaml.append("\(setting.name): [" + text.split(separator: ",").map { "\"\($0)\"" }.joined(separator: ", ") + "]")
            default: yaml.append("\(setting.name): \(text)")
            }
        }
        let jsonFile = directory.appendingPathComponent("imagery.json")
        try JSONSerialization.data(withJSONObject: json).write(to: jsonFile)
        let yamlFile = directory.appendingPathComponent("imagery.yaml")
        try yaml.joined(separator: "\n").write(to: yamlFile, atomically: true, encoding: .utf8)
        for file in [jsonFile, yamlFile] {
            let loaded = try await Self.load(["--config", file.path])
            for setting in ServerSettings.all where !Self.exclusive.contains(setting.name) {
                #expect(setting.show(loaded.configuration) == Self.samples[setting.name]!.shown, "\(setting.name) from \(file.lastPathComponent)")
                #expect(loaded.origins[setting.name] == "the config file \(file.path) (key \(setting.name))")
            }
        }
    }

    @Test("Flags win over the environment, the environment over the file, the file over the defaults")
    func precedence() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-precedence-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("settings.json")
        try Data(#"{"port": 3003}"#.utf8).write(to: file)
        #expect(try await Self.load(["--port", "1001", "--config", file.path], environment: ["IMAGERY_PORT": "2002"]).configuration.port == 1001)
        #expect(try await Self.load(["--config", file.path], environment: ["IMAGERY_PORT": "2002"]).configuration.port == 2002)
        #expect(try await Self.load([], environment: ["IMAGERY_CONFIG": file.path]).configuration.port == 3003)
        #expect(try await Self.load().configuration.port == 8080)
        #expect(try await Self.load().origins["port"] == nil)
    }

    @Test("imgproxy's names work in imgproxy's units")
    func imgproxyNames() async throws {
        #expect(try await Self.load(environment: ["IMAGERY_MAX_SRC_RESOLUTION": "24.5"]).configuration.maximumSourcePixels == 24_500_000)
        let bind = try await Self.load(environment: ["IMAGERY_BIND": ":9090"]).configuration
        #expect(bind.host == "0.0.0.0" && bind.port == 9090)
        let bound = try await Self.load(environment: ["IMAGERY_BIND": "127.0.0.2:81"]).configuration
        #expect(bound.host == "127.0.0.2" && bound.port == 81)
        #expect(try await Self.load(environment: ["IMAGERY_TTL": "3600"]).configuration.cacheControl == "max-age=3600, public")
        #expect(try await Self.load(environment: ["IMAGERY_TTL": "0"]).configuration.cacheControl == "no-cache")
        #expect(try await Self.load(environment: ["IMAGERY_DOWNLOAD_TIMEOUT": "7"]).configuration.upstreamTimeout == .seconds(7))
        #expect(try await Self.load(environment: ["IMAGERY_WORKERS": "5"]).configuration.concurrentProcessing == 5)
        #expect(try await Self.load(environment: ["IMAGERY_MAX_SRC_FILE_SIZE": "4096"]).configuration.maximumSourceBytes == 4096)
        #expect(try await Self.load(environment: ["IMAGERY_MAX_ANIMATION_FRAME_RESOLUTION": "0.5"]).configuration.maximumAnimationFramePixels == 500_000)
        #expect(try await Self.load(environment: ["IMAGERY_MAX_ANIMATION_FRAMES": "1"]).configuration.maximumAnimationFrames == 1)
        #expect(try await Self.load(environment: ["IMAGERY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "1"]).configuration.allowLoopbackSources)
        let root = NSTemporaryDirectory()
        #expect(try await Self.load(environment: ["IMAGERY_LOCAL_FILESYSTEM_ROOT": root]).configuration.localRoot == root)
        // Agreeing names are fine.
        #expect(try await Self.load(environment: ["IMAGERY_MAX_SOURCE_PIXELS": "2000000", "IMAGERY_MAX_SRC_RESOLUTION": "2"])
            .configuration.maximumSourcePixels == 2_000_000)
    }

    @Test("Two names in the environment that disagree about a setting stop the start, naming both", arguments: [
        (["IMAGERY_MAX_SOURCE_PIXELS": "1000000", "IMAGERY_MAX_SRC_RESOLUTION": "2"], "IMAGERY_MAX_SRC_RESOLUTION", "IMAGERY_MAX_SOURCE_PIXELS"),
        (["IMAGERY_PORT": "9000", "IMGPROXY_BIND": ":8080"], "IMGPROXY_BIND", "IMAGERY_PORT"),
        (["IMAGERY_CACHE_CONTROL": "no-store", "IMGPROXY_TTL": "60"], "IMGPROXY_TTL", "IMAGERY_CACHE_CONTROL"),
        (["IMGPROXY_QUALITY": "70", "IMAGERY_QUALITY": "80"], "IMGPROXY_QUALITY", "IMAGERY_QUALITY"),
        (["IMGPROXY_TTL": "60", "IMAGERY_TTL": "70"], "IMAGERY_TTL", "IMGPROXY_TTL"),
    ] as [([String: String], String, String)])
    func disagreement(environment: [String: String], named: String, other: String) async throws {
        let error = try #require(await Self.refusal(environment: environment))
        #expect(error.setting == named)
        #expect(error.reason.contains("disagrees with \(other)"), "\(error)")
    }

    @Test("A flag wins over either name in the environment, and the environment over the file")
    func flagsWinOverImgproxyNames() async throws {
        let loaded = try await Self.load(["--port", "9000"], environment: ["IMGPROXY_BIND": "127.0.0.3:8080"])
        #expect(loaded.configuration.port == 9000 && loaded.configuration.host == "127.0.0.3")
        #expect(loaded.origins["port"] == "the command line (--port)" && loaded.origins["host"] == "the environment (IMGPROXY_BIND)")
        #expect(try await Self.load(["--quality", "61"], environment: ["IMGPROXY_QUALITY": "70"]).configuration.defaultQuality == 61)
    }

    @Test("A bad value is refused with the setting, where it came from and why", arguments: [
        (["--port", "abc"], [:], "--port", "the command line (--port)", "not a whole number"),
        ([], ["IMAGERY_PORT": "70000"], "--port", "the environment (IMAGERY_PORT)", "must be in 0...65535"),
        ([], ["IMAGERY_LOG_LEVEL": "loud"], "--log-level", "the environment (IMAGERY_LOG_LEVEL)", "not a level"),
        (["--quality=0"], [:], "--quality", "the command line (--quality)", "1...100"),
        (["--upstream-timeout", "-1"], [:], "--upstream-timeout", "the command line (--upstream-timeout)", "seconds"),
        (["--demo", "maybe"], [:], "--demo", "the command line (--demo)", "true or false"),
        ([], ["IMAGERY_ALLOW_LOOPBACK_SOURCES": "perhaps"], "--allow-loopback-sources", "the environment (IMAGERY_ALLOW_LOOPBACK_SOURCES)", "true or false"),
        (["--instance-name", "two words"], [:], "--instance-name", "the command line (--instance-name)", "visible ASCII"),
        (["--local-root", "/nonexistent-imagery-root"], [:], "--local-root", "the command line (--local-root)", "not a directory"),
        (["--key", "zz"], [:], "--key", "the command line (--key)", "hex"),
        (["--key", "00,11", "--salt", "22"], [:], "--key", "the command line (--key)", "salts"),
        (["--demo", "--local-root", NSTemporaryDirectory()], [:], "--demo", "the command line (--demo)", "drop --local-root"),
        (["--presets", "thumb=w:x"], [:], "--presets", "the command line (--presets)", "preset thumb: invalid option w"),
        ([], ["IMAGERY_PRESETS_PATH": "/nonexistent/imagery-presets"], "--presets-path", "the environment (IMAGERY_PRESETS_PATH)", "could not be read"),
        (["--format-quality", "jpeg=0"], [:], "--format-quality", "the command line (--format-quality)", "format=quality"),
        (["--watermark-path", "/tmp/a.png", "--watermark-data", "aGVsbG8="], [:], "--watermark-data", "the command line (--watermark-data)", "give one of"),
        (["--preferred-formats", "png,svg"], [:], "--preferred-formats", "the command line (--preferred-formats)", "svg is not a format this build writes"),
        (["--s3-endpoint", "s3.example"], [:], "--s3-endpoint", "the command line (--s3-endpoint)", "http(s) URL"),
        ([], ["IMGPROXY_S3_ASSUME_ROLE_ARN": "arn:aws:iam::123:role/images"], "IMGPROXY_S3_ASSUME_ROLE_ARN", "the environment (IMGPROXY_S3_ASSUME_ROLE_ARN)", "must be an IAM role's ARN"),
        ([], ["IMGPROXY_S3_ACCESS_POINTS": "images"], "IMGPROXY_S3_ACCESS_POINTS", "the environment (IMGPROXY_S3_ACCESS_POINTS)", "images is not name=arn"),
        (["--s3-access-points", "images=arn:aws:s3:eu-west-1:123456789012:bucket/images"], [:], "--s3-access-points", "the command line (--s3-access-points)", "is not an access point"),
        (["--watermark-opacity", "2"], [:], "--watermark-opacity", "the command line (--watermark-opacity)", "0...1"),
        (["--max-memory", "512MB"], [:], "--max-memory", "the command line (--max-memory)", "optional KiB, MiB or GiB suffix"),
        ([], ["IMAGERY_MAX_MEMORY": "-1"], "--max-memory", "the environment (IMAGERY_MAX_MEMORY)", "optional KiB, MiB or GiB suffix"),
        (["--max-memory", "63MiB"], [:], "--max-memory", "the command line (--max-memory)", "below the 64MiB the server needs to start"),
        (["--bogus", "1"], [:], "--bogus", "", "is not a setting"),
        (["extra"], [:], "extra", "", "is not a flag"),
        (["--port"], [:], "--port", "", "needs a value"),
        (["--config", "/nonexistent/imagery.json"], [:], "--config", "the command line (--config)", "could not be read"),
        (["--config", "/tmp/imagery.txt"], [:], "--config", "the command line (--config)", "must end in"),
    ] as [([String], [String: String], String, String, String)])
    func refusals(arguments: [String], environment: [String: String], setting: String, source: String, reason: String) async throws {
        let error = try #require(await Self.refusal(arguments, environment: environment), "\(arguments) \(environment) was accepted")
        #expect(error.setting == setting)
        #expect(error.source == source)
        #expect(error.reason.contains(reason), "\(error)")
    }

    @Test("--print-config shows every value and its source, with secrets masked; --help lists every setting and alias")
    func printConfigAndHelp() async throws {
        let loaded = try await Self.load(["--key", "00ff", "--salt", "abcd", "--port", "9002", "--print-config"])
        #expect(loaded.action == .printConfig)
        let printed = ServerSettings.printed(loaded)
        #expect(!printed.contains("00ff") && !printed.contains("abcd"))
        #expect(printed.contains("key") && printed.contains("= set  (the command line (--key))") && printed.contains("trusted-signatures") && printed.contains("= unset"))
        #expect(printed.contains("9002  (the command line (--port))"))
        #expect(printed.split(separator: "\n").count == ServerSettings.all.count)
        #expect(try await Self.load(["--help"]).action == .help)
        for setting in ServerSettings.all { #expect(ServerSettings.help.contains(setting.flag + " ")) }
        for imgproxy in ImgproxySettings.all { #expect(ServerSettings.help.contains(imgproxy.variable + ":")) }
    }

    @Test("An IMAGERY_ variable that names no setting is reported, not silently ignored")
    func unknownVariable() async throws {
        let loaded = try await Self.load(environment: ["IMAGERY_PROT": "9000", "HOME": "/root"])
        #expect(loaded.warnings == ["IMAGERY_PROT is not a setting of imagery-server or of imgproxy's open-source edition; it is ignored"])
    }

    @Test("The executable exits 64 on a bad setting, before it listens", .tags(.integration), .offUnderSanitizer,
          .enabled(if: ChildProcess.executable("imagery-server") != nil, "needs the imagery-server executable beside the tests"))
    func exitCode() async throws {
        let server = try #require(ChildProcess.executable("imagery-server"))
        #expect(try await ChildProcess.run(server, ["--port", "abc"]).exitCode == 64)
        #expect(try await ChildProcess.run(server, ["--no-such-flag"]).exitCode == 64)
        // Images the settings name are read before it listens: one that is no image stops it too.
        #expect(try await ChildProcess.run(server, ["--port", "0", "--fallback-image-path", "/etc/hostname"]).exitCode == 64)
        #expect(try await ChildProcess.run(server, ["--source-url-encryption-key", "0011"]).exitCode == 64)
        // A budget that the server's own memory and caches leave no room in (MemoryBudgetTests reads why).
        #expect(try await ChildProcess.run(server, ["--port", "0", "--max-memory", "96MiB", "--response-cache-bytes", "67108864"]).exitCode == 64)
        let output = NSTemporaryDirectory() + "imagery-print-config-\(UUID().uuidString).txt"
        defer { try? FileManager.default.removeItem(atPath: output) }
        #expect(try await ChildProcess.run(server, ["--print-config", "--quality", "61"], output: output).exitCode == 0)
        #expect(try String(contentsOfFile: output, encoding: .utf8).contains("61  (the command line (--quality))"))
    }
}

extension ServerSettingsTests {
    @Test("docs/server.md's settings tables are the settings themselves (IMAGERY_UPDATE_DOCS=1 writes them)")
    func documentedTables() throws {
        var document = try DocumentSnippets.read("docs/server.md")
        let order = try Self.imgproxyList().map { $0[0] }
        let tables = [("settings", ServerSettings.markdown), ("imgproxy settings", ServerSettings.imgproxyMarkdown(order: order))]
        for (name, generated) in tables {
            let begin = try #require(document.range(of: "<!-- \(name) begin -->\n"))
            let end = try #require(document.range(of: "<!-- \(name) end -->"))
            let documented = String(document[begin.upperBound..<end.lowerBound])
            if ProcessInfo.processInfo.environment["IMAGERY_UPDATE_DOCS"] == "1" {
                document.replaceSubrange(begin.upperBound..<end.lowerBound, with: "\n" + generated + "\n")
            } else {
                #expect(documented == "\n" + generated + "\n", "docs/server.md's \(name) table differs (IMAGERY_UPDATE_DOCS=1 swift test --filter documentedTables writes it)")
            }
        }
        if ProcessInfo.processInfo.environment["IMAGERY_UPDATE_DOCS"] == "1" {
            try document.write(to: DocumentSnippets.root.appendingPathComponent("docs/server.md"), atomically: true, encoding: .utf8)
        }
    }
}
