import Foundation
import Imagery
import ImageryImgproxy
@testable import ImageryServer
import ImageryTestSupport
import Testing

/// How a URL's source is read (issue 32): the base URL, replacements, file names after base64
/// sources, the query separator of non-HTTP sources, and encrypted sources, each against a real
/// server and origin on 127.0.0.1.
extension ServerTests {
    /// An origin with the rocket at `/rocket.jpg` and at `/album/rocket.jpg`, the logo at
    /// `/album/logo.png`.
    static func albumOrigin() throws -> TestHTTPServer {
        try TestHTTPServer { request in
            switch request.path {
            case "/rocket.jpg", "/album/rocket.jpg": .ok(Fixtures.rocket)
            case "/album/logo.png": .ok(Fixtures.logo)
            default: .status(404)
            }
        }
    }

    @Test("--base-url is put in front of sources that lack it, after --url-replacements, whose * and ${1} rewrite a prefix")
    func baseURLAndReplacements() async throws {
        let origin = try Self.albumOrigin()
        defer { origin.stop() }
        let base = "http://127.0.0.1:\(origin.port)/"
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.sourceURLs.baseURL = base
            $0.sourceURLs.urlReplacements = "pics://*/=\(base)${1}/;short:=album/"
        }
        defer { server.cancel() }
        func size(_ source: String) async throws -> String {
            let reply = try await server.get("/unsafe/w:100/plain/" + source)
            guard reply.status == 200 else { return "\(reply.status) \(reply.text)" }
            let image = try ServerHarness.image(reply)
            return "\(image.width)x\(image.height)"
        }

        #expect(try await size("rocket.jpg") == "100x67")                 // relative: the base in front
        #expect(try await size(base + "album/logo.png") == "100x100")     // already starts with it: as it is
        #expect(try await size("pics://album/rocket.jpg") == "100x67")    // * took "album", ${1} put it back
        #expect(try await size("short:logo.png") == "100x100")            // replaced, then the base in front
        #expect(try await size("/album/rocket.jpg").hasPrefix("404"))     // the base's "/" is the operator's: "…//album" is another path
        #expect(origin.hits("/album/rocket.jpg") == 1 && origin.hits("/rocket.jpg") == 1)
    }

    @Test("Replacements match a prefix, * within one segment and greedily, ${N} and $N, $$; a pair without = is refused")
    func replacementRules() throws {
        let rewrite = try SourceRewrite(replacements: "a://*/*/=b://${2}/${1}/;x:=$$y${9}$1z;one=two", baseURL: nil)
        #expect(rewrite.apply("a://p/q/r.jpg") == "b://q/p/r.jpg")
        #expect(rewrite.apply("a://p/r.jpg") == "a://p/r.jpg")            // two segments needed: no match
        #expect(rewrite.apply("x:rest") == "$yrest")                       // $$ is $, an unknown capture nothing, $1z names "1z"
        #expect(rewrite.apply("b://one") == "b://one")                     // a prefix only
        #expect(rewrite.apply("one/two") == "two/two")
        #expect(throws: SettingError.Reason.self) { try SourceRewrite(replacements: "nothing-here", baseURL: nil) }
        #expect(throws: SettingError.Reason.self) { try SourceRewrite(replacements: "a=b;", baseURL: nil) }
        #expect(try SourceRewrite(replacements: "", baseURL: "http://h/").apply("a.jpg") == "http://h/a.jpg")
    }

    @Test("With --base64-url-includes-filename the last segment of a base64 source is a name for search engines, dropped")
    func base64Filename() async throws {
        let origin = try Self.albumOrigin()
        defer { origin.stop() }
        let encoded = "http://127.0.0.1:\(origin.port)/rocket.jpg".base64URL
        let named = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.sourceURLs.base64URLIncludesFilename = true
        }
        defer { named.cancel() }
        let plain = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { plain.cancel() }

        let reply = try await named.get("/unsafe/w:100/\(encoded.prefix(10))/\(encoded.dropFirst(10)).png/rocket-at-dawn.jpg")
        #expect(ServerHarness.expectImage(reply, .png)?.width == 100)
        // Without the setting, the name is part of the base64 (and not valid base64url).
        #expect(try await plain.get("/unsafe/w:100/\(encoded)/rocket-at-dawn.jpg").status == 400)
        // One segment has no name to drop.
        #expect(try await named.get("/unsafe/w:100/\(encoded)").status == 200)
    }

    @Test("--source-url-query-separator splits a local source's query off; empty reads it as part of the path")
    func querySeparator() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-query-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data(Fixtures.rocket).write(to: root.appendingPathComponent("rocket.jpg"))
        try Data(Fixtures.logo).write(to: root.appendingPathComponent("logo.png?v=2"))
        let byDefault = try await ServerHarness.start { $0.localRoot = root.path }
        defer { byDefault.cancel() }
        let off = try await ServerHarness.start {
            $0.localRoot = root.path
            $0.sourceURLQuerySeparator = ""
        }
        defer { off.cancel() }
        let custom = try await ServerHarness.start {
            $0.localRoot = root.path
            $0.sourceURLQuerySeparator = "~~"
        }
        defer { custom.cancel() }

        #expect(try await byDefault.get("/unsafe/w:50/plain/local:///rocket.jpg%3Fv=1").status == 200)
        #expect(try await off.get("/unsafe/w:50/plain/local:///rocket.jpg%3Fv=1").status == 404)
        #expect(try await off.get("/unsafe/w:50/plain/local:///logo.png%3Fv=2").status == 200)
        #expect(try await custom.get("/unsafe/w:50/plain/local:///rocket.jpg~~v=1").status == 200)
        // An http(s) source keeps its query whatever the separator says.
        var policy = SourcePolicy()
        policy.querySeparator = ""
        policy.allowsS3 = true
        #expect(try policy.source(for: "http://a.test/x.jpg?v=1").identity == "http://a.test/x.jpg?v=1")
        // An s3:// source's key and version, split at the separator and named again as the loader reads them.
        #expect(try policy.source(for: "s3://photos/a.jpg?v").identity == "s3://photos/a.jpg%3Fv")
        policy.querySeparator = "?version="
        #expect(try policy.source(for: "s3://photos/a%20b.jpg?version=3L4k").identity == "s3://photos/a%20b.jpg?3L4k")
    }

    @Test("AES-CBC source encryption: imgproxy's documented vector, both ways")
    func encryptionVector() throws {
        let cipher = try ImgproxySourceCipher(keyHex: "1eb5b0e971ad7f45324c1bb15c947cb207c43152fa5c6c7f35c4f36e0c18e0f1")
        let iv = Array(Data(base64Encoded: "p5VjorNdhs7mRRw8gA9TWg==")!)   // a79563a2b35d86cee6451c3c800f535a
        let documented = "p5VjorNdhs7mRRw8gA9TWoRlGci3l1kuzqN43UQlRaRIQ0qtBKW3qFABIsx-ZRz_cVc8iVTYbhsNsxNBL1BHaQ"
        #expect(cipher.encrypt("http://example.com/images/curiosity.jpg", iv: iv) == documented)
        #expect(try cipher.decrypt(documented) == "http://example.com/images/curiosity.jpg")
        // The derived IV is the same for the same source, another for another.
        #expect(cipher.encrypt("https://a.test/x.jpg") == cipher.encrypt("https://a.test/x.jpg"))
        #expect(cipher.encrypt("https://a.test/x.jpg").prefix(22) != cipher.encrypt("https://a.test/y.jpg").prefix(22))
        let other = try ImgproxySourceCipher(keyHex: "00112233445566778899aabbccddeeff")
        #expect(throws: ImgproxyError.self) { try other.decrypt(documented) }
        #expect(throws: ImgproxyError.self) { try ImgproxySourceCipher(keyHex: "00112233") }
    }

    @Test("/enc/ sources: split by / with an extension, written by ImgproxyURLBuilder, the signature checked first; without the key refused")
    func encryptedSources() async throws {
        let origin = try Self.albumOrigin()
        defer { origin.stop() }
        let keyHex = "1eb5b0e971ad7f45324c1bb15c947cb2", signingKey = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.sourceURLs.encryptionKeyHex = keyHex
        }
        defer { server.cancel() }
        let signed = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.sourceURLs.encryptionKeyHex = keyHex
            $0.keyHex = signingKey
            $0.saltHex = "00"
        }
        defer { signed.cancel() }
        let keyless = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { keyless.cancel() }
        let cipher = try ImgproxySourceCipher(keyHex: keyHex)
        let encrypted = cipher.encrypt("http://127.0.0.1:\(origin.port)/album/logo.png")

        let split = try await server.get("/unsafe/w:64/enc/\(encrypted.prefix(20))/\(encrypted.dropFirst(20)).jpg")
        #expect(ServerHarness.expectImage(split, .jpeg)?.width == 64)
        let refused = try await keyless.get("/unsafe/w:64/enc/\(encrypted)")
        #expect(refused.status == 400 && refused.text == "source: encrypted sources are off (no --source-url-encryption-key)\n")
        let garbled = try await server.get("/unsafe/w:64/enc/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
        #expect(garbled.status == 400 && garbled.text == "source: cannot be decrypted\n")

        // The app's builder writes what the server reads, signed over the encrypted text.
        let signer = try ImgproxySigner(keysHex: signingKey, saltsHex: "00")
        var options = ImgproxyOptions()
        options.width = 80
        let builder = ImgproxyURLBuilder(baseURL: URL(string: "http://127.0.0.1:\(signed.port)")!, signer: signer, sourceCipher: cipher)
        let url = try #require(builder.url(source: "http://127.0.0.1:\(origin.port)/rocket.jpg", options: options, format: .png))
        #expect(url.path.contains("/enc/") && !url.absoluteString.contains("rocket"))
        let built = try await signed.get(url.path)
        #expect(ServerHarness.expectImage(built, .png)?.width == 80)
        // A forged URL is refused for its signature before anything is decrypted.
        #expect(try await signed.get("/unsafe/w:64/enc/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA").status == 403)
        #expect(origin.hits("/rocket.jpg") == 1 && origin.hits("/album/logo.png") == 1)
    }

    @Test("A source URL encryption key imgproxy would refuse stops the start, naming the variable and never the key; --print-config masks it")
    func encryptionKeySetting() async throws {
        let error = try #require(await ServerSettingsTests.refusal(environment: ["IMGPROXY_SOURCE_URL_ENCRYPTION_KEY": "00112233"]))
        #expect(error.setting == "IMGPROXY_SOURCE_URL_ENCRYPTION_KEY" && error.source == "the environment (IMGPROXY_SOURCE_URL_ENCRYPTION_KEY)")
        #expect(error.reason.contains("16, 24 or 32 bytes") && !error.description.contains("00112233"))
        let notHex = try #require(await ServerSettingsTests.refusal(["--source-url-encryption-key", "zz"]))
        #expect(notHex.setting == "--source-url-encryption-key" && notHex.reason.contains("hex"))
        let loaded = try await ServerSettingsTests.load(environment: ["IMGPROXY_SOURCE_URL_ENCRYPTION_KEY": "1eb5b0e971ad7f45324c1bb15c947cb2"])
        let printed = ServerSettings.printed(loaded)
        #expect(printed.contains("source-url-encryption-key") && !printed.contains("1eb5b0e971ad7f45324c1bb15c947cb2"))
        let replacements = try #require(await ServerSettingsTests.refusal(environment: ["IMGPROXY_URL_REPLACEMENTS": "a=b;c"]))
        #expect(replacements.setting == "IMGPROXY_URL_REPLACEMENTS" && replacements.reason.contains("is not pattern=replacement"))
    }
}
