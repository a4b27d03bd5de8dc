import Foundation
import Imagery
import ImageryImgproxy
@testable import ImageryServer
import ImageryTestSupport
import Testing

/// imgproxy's environment, read as it is: every setting of its open-source docs with a
/// disposition, the environment file, and the settings digest made from the table.
extension ServerSettingsTests {
    /// `docs/imgproxy-settings.tsv`: name, section, imgproxy's default, disposition, note.
    static func imgproxyList() throws -> [[String]] {
        try DocumentSnippets.read("docs/imgproxy-settings.tsv").split(separator: "\n")
            .filter { !$0.hasPrefix("#") }.dropFirst()
            .map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }

    @Test("The list taken from imgproxy's docs and the settings table name the same settings, with the same dispositions (IMAGERY_UPDATE_DOCS=1 writes them)")
    func imgproxyListIsTheTable() throws {
        let list = try Self.imgproxyList()
        // Compared as sets: the table is sorted by name, most of it made from our rows, and the
        // docs' order lives in the list alone (docs/server.md's table follows it).
        let listed = list.map { $0[0] }, tabled = ImgproxySettings.all.map(\.name)
        #expect(Set(listed) == Set(tabled), "the table and the docs' list name the same settings")
        #expect(listed.count == Set(listed).count && tabled.count == Set(tabled).count, "a name is in the list or the table twice")
        let written = list.map { row -> String in
            let setting = ImgproxySettings.byName[row[0]]
            return ([row[0], row[1], row[2], setting?.disposition.name ?? "", setting.flatMap(ServerSettings.imgproxyNote) ?? ""]).joined(separator: "\t")
        }
        if ProcessInfo.processInfo.environment["IMAGERY_UPDATE_DOCS"] == "1" {
            let path = DocumentSnippets.root.appendingPathComponent("docs/imgproxy-settings.tsv")
            let header = try DocumentSnippets.read("docs/imgproxy-settings.tsv").split(separator: "\n").prefix { $0.hasPrefix("#") || $0.hasPrefix("name\t") }
            try (header.joined(separator: "\n") + "\n" + written.joined(separator: "\n") + "\n").write(to: path, atomically: true, encoding: .utf8)
            return
        }
        for (row, expected) in zip(list, written) {
            #expect(row.joined(separator: "\t") == expected)
        }
        let honoured = ImgproxySettings.all.filter { $0.disposition.name == "honoured" }.count
        print("imgproxy's open-source settings: \(honoured) of \(ImgproxySettings.all.count) honoured")
    }

    @Test("Every row's imgproxy name is the table's: the same setting read unchanged (open-source or Pro), or converted by an entry that sets the row's setting")
    func rowsNameTheTable() throws {
        for setting in ServerSettings.all {
            guard let imgproxy = setting.imgproxy else { continue }
            let entry = try #require(ImgproxySettings.byName[imgproxy.name], "\(setting.flag) names IMGPROXY_\(imgproxy.name), which the table lacks")
            switch (imgproxy, entry.disposition) {
            case let (.same, .honoured(.setting(name))):
                #expect(name == setting.name)
                #expect(ImgproxySettings.all.contains { $0.name == imgproxy.name }, "IMGPROXY_\(imgproxy.name) is not among the open-source settings")
            case let (.pro, .honoured(.setting(name))):
                #expect(name == setting.name)
                #expect(ImgproxySettings.pro.contains { $0.name == imgproxy.name }, "IMGPROXY_\(imgproxy.name) is not among the Pro settings")
            case let (.converted, .honoured(.converted(_, sets, _, _))):
                #expect(sets.contains(setting.name), "IMGPROXY_\(imgproxy.name)'s entry does not set \(setting.flag), whose row names it")
            default:
                Issue.record("\(setting.flag) says \(imgproxy), but the table's IMGPROXY_\(imgproxy.name) is \(entry.disposition.name), read otherwise")
            }
        }
    }

    @Test("Every honoured imgproxy setting (open-source and Pro) is read under IMGPROXY_ and IMAGERY_, as the setting of ours it names")
    func everyImgproxyNameIsRead() async throws {
        for imgproxy in ImgproxySettings.readable {
            guard case let .honoured(.setting(name)) = imgproxy.disposition else { continue }
            let setting = ServerSettings.setting(named: name)
            let sample = try #require(Self.samples[name])
            for variable in [imgproxy.variable, imgproxy.ownVariable] {
                let loaded = try await Self.load(environment: [variable: sample.value])
                #expect(setting.show(loaded.configuration) == sample.shown, "\(variable)")
                #expect(loaded.origins[name] == "the environment (\(variable))")
            }
        }
    }

    @Test("imgproxy's default only, refused, warned, deprecated: each answered by name", arguments: [
        (["IMGPROXY_PRESERVE_HDR": "false"], nil, nil),
        (["IMGPROXY_PRESERVE_HDR": "true"], "IMGPROXY_PRESERVE_HDR", "only imgproxy's default, false, is accepted: the pipeline is 8-bit"),
        (["IMGPROXY_MALLOC": "jemalloc"], "IMGPROXY_MALLOC", "only imgproxy's default, malloc, is accepted"),
        (["IMGPROXY_USE_GCS": "false"], nil, nil),
        (["IMGPROXY_USE_GCS": "true"], "IMGPROXY_USE_GCS", "is refused: Google Cloud Storage sources are not read by imagery-server; use an S3-compatible endpoint"),
        (["IMAGERY_USE_ABS": "1"], "IMAGERY_USE_ABS", "Azure Blob Storage"),
        (["IMGPROXY_ENV_GCP_KEY": "{}"], "IMGPROXY_ENV_GCP_KEY", "Google Cloud Secret Manager is not read"),
        (["IMGPROXY_ENABLE_WEBP_DETECTION": "true", "IMGPROXY_FAIL_ON_DEPRECATION": "true"], "IMGPROXY_ENABLE_WEBP_DETECTION", "is deprecated (use IMGPROXY_AUTO_WEBP)"),
    ] as [([String: String], String?, String?)])
    func dispositions(environment: [String: String], refused: String?, reason: String?) async throws {
        let error = await Self.refusal(environment: environment)
        #expect(error?.setting == refused, "\(String(describing: error))")
        if let reason { #expect(error?.reason.contains(reason) == true, "\(String(describing: error))") }
    }

    @Test("Warnings name what is ignored, what is deprecated, and the limit kept where imgproxy would lift it")
    func imgproxyWarnings() async throws {
        let loaded = try await Self.load(environment: [
            "IMGPROXY_SENTRY_DSN": "https://key@sentry.example/1", "IMGPROXY_ENABLE_WEBP_DETECTION": "true",
            "IMGPROXY_MAX_SRC_FILE_SIZE": "0", "IMGPROXY_AUTOQUALITY_METHOD_TYPO": "dssim", "IMGPROXY_DATADOG_ENABLE": "true",
            "IMGPROXY_JPEG_TRELLIS_QUANT": "true",
        ])
        #expect(loaded.configuration.negotiation.autoWebP)
        #expect(loaded.configuration.maximumSourceBytes == ServerConfiguration().maximumSourceBytes)
        let warnings = loaded.warnings.joined(separator: "\n")
        #expect(warnings.contains("IMGPROXY_SENTRY_DSN configures Sentry, which imagery-server does not report to; it is ignored. Use Prometheus (/metrics) or OpenTelemetry instead"))
        #expect(warnings.contains("IMGPROXY_DATADOG_ENABLE configures Datadog"))
        #expect(warnings.contains("IMGPROXY_ENABLE_WEBP_DETECTION is deprecated; it is read as IMGPROXY_AUTO_WEBP"))
        #expect(warnings.contains("imagery-server keeps its limit of \(ServerConfiguration().maximumSourceBytes) bytes"))
        #expect(warnings.contains("IMGPROXY_AUTOQUALITY_METHOD_TYPO is not a setting of imagery-server or of imgproxy's open-source edition; it is ignored"))
        #expect(warnings.contains("IMGPROXY_JPEG_TRELLIS_QUANT is an imgproxy Pro setting"))
        #expect(!warnings.contains("key@sentry"), "a warning never repeats a value")
    }

    @Test("imgproxy's environment file: read as imgproxy reads it, its values over the process's")
    func environmentFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-env-\(UUID().uuidString).env")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("""
            # an imgproxy deployment
            IMGPROXY_BIND="127.0.0.2:${PORT}"
            export IMGPROXY_QUALITY=71   # a comment after a bare value
            IMGPROXY_USER_AGENT='literal $PORT "quoted"'
            IMGPROXY_PRESETS="thumb=w:100\\nsmall=w:50"

            IMGPROXY_MAX_REDIRECTS=2
            """.utf8).write(to: file)
        let loaded = try await Self.load(environment: ["IMGPROXY_ENV_LOCAL_FILE_PATH": file.path, "PORT": "8181", "IMGPROXY_MAX_REDIRECTS": "9"])
        let configuration = loaded.configuration
        #expect(configuration.host == "127.0.0.2" && configuration.port == 8181)
        #expect(configuration.defaultQuality == 71)
        #expect(configuration.userAgent == #"literal $PORT "quoted""#)
        #expect(configuration.presets == "thumb=w:100\nsmall=w:50")
        #expect(configuration.maximumRedirects == 2, "the file wins over the process's environment, as imgproxy's loader does")

        try Data("IMGPROXY_QUALITY\n".utf8).write(to: file)
        let error = try #require(await Self.refusal(environment: ["IMGPROXY_ENV_LOCAL_FILE_PATH": file.path]))
        #expect(error.setting == "IMGPROXY_ENV_LOCAL_FILE_PATH" && error.reason.contains("line 1 is not KEY=VALUE"))
        let missing = try #require(await Self.refusal(environment: ["IMAGERY_ENV_LOCAL_FILE_PATH": "/nonexistent/imgproxy.env"]))
        #expect(missing.setting == "IMAGERY_ENV_LOCAL_FILE_PATH" && missing.reason.contains("could not be read"))
    }

    @Test("Every setting declares what it changes; the settings digest changes with exactly those that change bytes, stored headers or the source", arguments: ServerSettings.all.map { $0.name })
    func settingsDigest(_ name: String) async throws {
        let setting = ServerSettings.setting(named: name)
        let effect = try #require(setting.effect, "\(name) declares no effect: add .changing(...) to its row")
        let sample = try #require(Self.samples[name])
        var flipped = ServerConfiguration()
        try setting.apply(&flipped, try Self.value(sample.value, kind: setting.kind))
        let before = try ServerSettings.settingsDigest(of: ServerConfiguration(), resolved: ServerConfiguration().resolve())
        let after = try ServerSettings.settingsDigest(of: flipped, resolved: flipped.resolve())
        if effect == .nothingStored {
            #expect(before == after, "\(name) changes nothing stored, yet changes the digest")
        } else {
            #expect(before != after, "\(name) changes \(effect.rawValue), yet leaves the digest as it was")
        }
    }

    /// `text` as a value of `kind`, as a source would give it.
    static func value(_ text: String, kind: ServerSetting.Kind) throws -> ServerSetting.Value {
        switch kind {
        case .text: return .text(text)
        case .whole: return .whole(try #require(Int(text)))
        case .number: return .number(try #require(Double(text)))
        case .flag: return .flag(text == "true")
        case .list: return .list(text.split(separator: ",").map(String.init))
        }
    }

    @Test("An imgproxy environment file, given unchanged, starts the server at the address it names, with signatures checked", .tags(.integration), .offUnderSanitizer,
          .enabled(if: ChildProcess.executable("imagery-server") != nil, "needs the imagery-server executable beside the tests"))
    func imgproxyDeployment() async throws {
        let origin = try TestHTTPServer { _ in .ok(Fixtures.rocket) }
        defer { origin.stop() }
        let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
        let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-imgproxy-\(UUID().uuidString).env")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("""
            IMGPROXY_KEY=\(key)
            IMGPROXY_SALT=\(salt)
            IMGPROXY_BIND=127.0.0.1:0
            IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES=true
            IMGPROXY_TTL=3600
            IMGPROXY_QUALITY=75
            IMGPROXY_AUTO_WEBP=true
            IMGPROXY_MAX_SRC_RESOLUTION=20
            IMGPROXY_SENTRY_DSN=https://key@sentry.example/1
            """.utf8).write(to: file)
        let server = try ServerProcess.start([], watching: ["IMGPROXY_SENTRY_DSN configures Sentry"], environment: ["IMGPROXY_ENV_LOCAL_FILE_PATH": file.path])
        defer { server.kill() }
        let port = try await server.port()
        let signer = try ImgproxySigner(keysHex: key, saltsHex: salt)
        let unsigned = "/rs:fit:100:100/plain/http://127.0.0.1:\(origin.port)/rocket.jpg"
        let refused = try await Cluster.get(port: port, "/unsafe" + unsigned)
        #expect(refused.status == 403)
        let served = try await Cluster.get(port: port, "/" + signer.sign(unsigned) + unsigned)
        #expect(served.status == 200 && served.header("cache-control") == "max-age=3600, public")
        #expect(await server.line(containing: "IMGPROXY_SENTRY_DSN configures Sentry"))
    }
}
