import HTTPTypes
@testable import ImageryServer
import Foundation
import Imagery
import ImageryTestSupport
import Testing

@Suite("imgproxy URLs: the path, the options, the signature")
struct URLParsingTests {
    @Test("A base64url source, split by slashes, with an extension")
    func base64Source() throws {
        let path = try ProcessingPath.parse("/sig/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png")
        #expect(path.signature == "sig")
        #expect(path.options == ["rs:fill:300:400:0", "g:sm"])
        #expect(path.source == "http://example.com/images/curiosity.jpg")
        #expect(path.fileExtension == "png")
        #expect(path.signedPart == "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png")
    }

    @Test("A plain source keeps its percent-encoding until parsed, and @ gives the extension")
    func plainSource() throws {
        let path = try ProcessingPath.parse("/_/w:100/plain/http://127.0.0.1:9/a%20b.jpg%3Fv%3D1@webp")
        #expect(path.source == "http://127.0.0.1:9/a b.jpg?v=1")
        #expect(path.fileExtension == "webp")
        let noOptions = try ProcessingPath.parse("/unsafe/plain/local:///x.png")
        #expect(noOptions.options.isEmpty && noOptions.source == "local:///x.png" && noOptions.fileExtension == nil)
    }

    @Test("Broken paths are refused with 400 and say what is wrong", arguments: [
        "/", "/sig", "/sig/rs:fit:1:1/", "/sig/plain/", "/sig/!!!notbase64", "/sig/enc/abc", "no-slash",
    ])
    func brokenPaths(_ path: String) {
        #expect(throws: ServerError.self) { try ProcessingPath.parse(path) }
        do {
            _ = try ProcessingPath.parse(path)
        } catch {
            #expect(error.status == .badRequest)
            #expect(error.message.contains(":"))
        }
    }

    @Test("Every option, in its full and its short name")
    func everyOption() throws {
        let pairs: [(full: String, short: String)] = [
            ("resize:fill:300:200:1:1", "rs:fill:300:200:1:1"), ("size:300:200:1:1", "s:300:200:1:1"),
            ("resizing_type:force", "rt:force"), ("width:300", "w:300"), ("height:200", "h:200"),
            ("enlarge:1", "el:1"), ("extend:1:so", "ex:1:so"), ("gravity:fp:0.25:0.75", "g:fp:0.25:0.75"),
            ("dpr:2", "dpr:2"), ("crop:0.5:100:nowe", "c:0.5:100:nowe"), ("rotate:270", "rot:270"),
            ("blur:3.5", "bl:3.5"), ("sharpen:0.7", "sh:0.7"), ("background:255:0:10", "bg:ff000a"),
            ("quality:55", "q:55"), ("format:png", "f:png"), ("cachebuster:v2", "cb:v2"),
        ]
        for (full, short) in pairs {
            #expect(try ProcessingOptions.parse([full]) == ProcessingOptions.parse([short]), "\(full)")
        }
        let options = try ProcessingOptions.parse(pairs.map(\.full))
        #expect(options.resizingType == .force)   // rt after rs wins: options apply in order
        #expect(options.width == 300 && options.height == 200 && options.enlarge && options.extend)
        #expect(options.extendGravity == .south)
        #expect(options.gravity == .focus(x: 0.25, y: 0.75))
        #expect(options.dpr == 2 && options.targetWidth == 600 && options.targetHeight == 400)
        #expect(options.crop == ProcessingOptions.Crop(width: 0.5, height: 100, gravity: .northWest))
        #expect(options.rotate == 270 && options.blur == 3.5 && options.sharpen == 0.7)
        #expect(options.background == RGBA(red: 255, green: 0, blue: 10))
        #expect(options.quality == 55 && options.format == OutputFormat(.png) && options.cacheBuster == "v2")
        // Imagery's own option has one name only.
        #expect(try ProcessingOptions.parse(["circle:1"]).circle)
        #expect(try !ProcessingOptions.parse(["circle:0"]).circle)
    }

    @Test("Empty arguments keep their defaults; later options override earlier ones")
    func defaultsAndOrder() throws {
        let options = try ProcessingOptions.parse(["rs:fill::300", "w:120", "rot:-90", "bg"])
        #expect(options.resizingType == .fill && options.width == 120 && options.height == 300)
        #expect(!options.enlarge && options.rotate == 270 && options.background == nil)
    }

    @Test("An unknown or malformed option gets 400 with a message that names it", arguments: [
        ("pr:thumb", "pr"), ("rs:zoom:1:1", "rs"), ("w:abc", "w"), ("w:-5", "w"), ("el:maybe", "el"),
        ("g:up", "g"), ("g:ce:10:0", "g"), ("g:fp:2:0", "g"), ("dpr:0", "dpr"), ("dpr:nan", "dpr"),
        ("rot:45", "rot"), ("bl:-1", "bl"), ("sh:x", "sh"), ("bg:300:0:0", "bg"), ("bg:red", "bg"),
        ("q:101", "q"), ("f:tiff", "f"), ("w:1:2", "w"), ("c:10", "c"), ("s:9000:10", "size"),
        // Numbers that would trap if converted or negated carelessly.
        ("rot:-9223372036854775808", "rot"), ("w:9223372036854775807", "w"), ("c:1e300:10", "c"), ("c:-1:10", "c"),
        ("bl:1e400", "bl"), ("dpr:inf", "dpr"), ("circle:2", "circle"), ("circle", "circle"),
    ])
    func badOptions(_ segment: String, _ named: String) {
        do {
            _ = try ProcessingOptions.parse([segment])
            Issue.record("\(segment) was accepted")
        } catch {
            #expect(error.status == .badRequest)
            #expect(error.message.contains(named), "\(error.message)")
        }
    }

    @Test("The fuzz target's seeds and findings replay cleanly: each path is served or refused with a 4xx that names no local path",
          .enabled(if: ChildProcess.executable("imagery-url-fuzz") != nil, "the imagery-url-fuzz executable is not beside the test bundle"))
    func fuzzSeedsReplay() async throws {
        let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz")
        let seeds = try FileManager.default.contentsOfDirectory(atPath: fuzz.appendingPathComponent("url-seeds").path)
            .map { fuzz.appendingPathComponent("url-seeds/\($0)").path }
        let findings = ((try? FileManager.default.contentsOfDirectory(atPath: fuzz.appendingPathComponent("findings").path)) ?? [])
            .filter { $0.hasPrefix("url-") }.map { fuzz.appendingPathComponent("findings/\($0)").path }
        #expect(seeds.count >= 10)
        let replay = try await ChildProcess.run(try #require(ChildProcess.executable("imagery-url-fuzz")), seeds + findings)
        #expect(replay.exitCode == 0)
    }

    @Test("20,000 random paths built from option names, numbers and junk: each parses or is refused, none traps")
    func randomPathsNeverTrap() {
        var random = SplitMix64(state: 0x1DEA_5EED)
        let names = ["rs", "s", "rt", "w", "h", "el", "ex", "g", "dpr", "c", "rot", "bl", "sh", "bg", "q", "f", "cb", "circle", "resize", "zz", ""]
        let values = [
            "", "0", "1", "-1", "fit", "fill", "force", "auto", "fill-down", "sm", "fp", "ce", "0.5", "1e308", "-1e308", "nan", "inf",
            "9223372036854775807", "-9223372036854775808", "99999999999999999999", "ffffff", "png", "webp", "%00", "..", "@", ".",
        ]
        var refused = 0
        for _ in 0..<20_000 {
            var segments: [String] = []
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                let arguments = (0..<Int.random(in: 0...5, using: &random)).map { _ in values.randomElement(using: &random)! }
                segments.append(([names.randomElement(using: &random)!] + arguments).joined(separator: ":"))
            }
            let path = "/_/" + segments.joined(separator: "/") + "/plain/http://a.test/x.jpg" + (Bool.random(using: &random) ? "@png" : "")
            do {
                let parsed = try ProcessingPath.parse(path)
                let options = try ProcessingOptions.parse(parsed.options)
                _ = try RequestPlan(
                    source: .url(URL(string: "http://a.test/x.jpg")!), options: options, fileExtension: parsed.fileExtension,
                    defaultQuality: 80, maximumPixelCount: 1_000_000
                )
            } catch {
                refused += 1
                #expect(error.status == .badRequest)
            }
        }
        #expect(refused > 1_000 && refused < 20_000)   // both outcomes were exercised
    }

    @Test("Signatures match Python's hmac on imgproxy's scheme (values computed with hmac.new, pasted)")
    func knownSignatures() throws {
        let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
        let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
        let signature = try #require(URLSignature(keyHex: key, saltHex: salt))
        let vectors = [
            ("/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1wbGUuY29tL2ltYWdlcy9jdXJpb3NpdHkuanBn.png", "4e9HplX3xN8DgbCf3GPatgfy42W8pLOfGHxXdnPxeHw"),
            ("/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png", "90UxdwGRAI2bpLSHKkZculJau5ahfxfS0h3fMuQAf40"),
            ("/rs:fit:512:512/q:80/plain/http://127.0.0.1:8080/photo.jpg@webp", "GjljvF9tcbaYktYcBEiDQxioBY-rvLqFSXrERWHlkdM"),
        ]
        for (path, expected) in vectors {
            #expect(signature.sign(path) == expected)
            #expect(signature.isValid(expected, for: path))
            #expect(!signature.isValid(expected, for: path + "x"))
        }
        let unsalted = try #require(URLSignature(keyHex: "0123456789abcdef", saltHex: ""))
        #expect(unsalted.sign("/s:100:100/plain/local:///a.jpg") == "KI1F8-81ZsLi5qs2h4hnwlQajgEjrPKjtT1RyFYTStE")
        #expect(!unsalted.isValid("", for: "/s:100:100/plain/local:///a.jpg"))
        #expect(!unsalted.isValid("not base64!", for: "/s:100:100/plain/local:///a.jpg"))
    }

    @Test("A key or salt that is not hex is refused at start")
    func badKeys() {
        #expect(URLSignature(keyHex: "xyz", saltHex: "") == nil)
        #expect(URLSignature(keyHex: "abc", saltHex: "") == nil)   // odd length
        #expect(URLSignature(keyHex: "", saltHex: "00") == nil)
        #expect(URLSignature(keyHex: "00", saltHex: "0g") == nil)
    }
}
