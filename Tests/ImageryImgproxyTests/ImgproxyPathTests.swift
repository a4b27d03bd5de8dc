import Imagery
import ImageryImgproxy
import Testing

@Suite("ImgproxyPath: the path's parts")
struct ImgproxyPathTests {
    @Test("A base64url source, split by slashes, with an extension")
    func base64Source() throws {
        let path = try ImgproxyPath(parsing: "/sig/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png")
        #expect(path.signature == "sig")
        #expect(path.options == ["rs:fill:300:400:0", "g:sm"])
        #expect(path.source == "http://example.com/images/curiosity.jpg")
        #expect(path.fileExtension == "png")
        #expect(path.signedPart == "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png")
    }

    @Test("A plain source keeps its percent-encoding until parsed, and @ gives the extension")
    func plainSource() throws {
        let path = try ImgproxyPath(parsing: "/_/w:100/plain/http://127.0.0.1:9/a%20b.jpg%3Fv%3D1@webp")
        #expect(path.source == "http://127.0.0.1:9/a b.jpg?v=1")
        #expect(path.fileExtension == "webp")
        let noOptions = try ImgproxyPath(parsing: "/unsafe/plain/local:///x.png")
        #expect(noOptions.options.isEmpty && noOptions.source == "local:///x.png" && noOptions.fileExtension == nil)
    }

    @Test("An option separator a proxy encoded as %3A reads as `:`, as imgproxy reads it, and is signed as `:`")
    func encodedSeparator() throws {
        let path = try ImgproxyPath(parsing: "/sig/rs%3Afit%3A300%3A300/plain/http://a.test/x.jpg")
        #expect(path.options == ["rs:fit:300:300"])
        #expect(path.signedPart == "/rs:fit:300:300/plain/http://a.test/x.jpg")
    }

    @Test("Broken paths are refused, and say what is wrong", arguments: [
        "/", "/sig", "/sig/rs:fit:1:1/", "/sig/plain/", "/sig/!!!notbase64", "/sig/enc/", "/sig/enc/!!!", "no-slash", "/sig/%FF%FE",
    ])
    func brokenPaths(_ path: String) {
        do {
            _ = try ImgproxyPath(parsing: path)
            Issue.record("\(path) was accepted")
        } catch {
            #expect(error.kind == .invalidPath)
            #expect(error.message.contains(":"))
        }
    }

    @Test("Unsigned paths read back: base64 with `.ext`, plain with `@ext` and the awkward characters encoded")
    func unsignedRoundTrip() throws {
        let sources = ["https://example.com/a.jpg", "http://a.test/p?q=1&r=2#f", "local:///dir/space here@2x.png", "https://x.test/%41"]
        for source in sources {
            for encoding in [ImgproxyPath.SourceEncoding.base64, .plain] {
                for format in [nil, ImageFormat.webp, .jpeg] {
                    let unsigned = ImgproxyPath.unsigned(options: ["w:10"], source: source, format: format, encoding: encoding)
                    let parsed = try ImgproxyPath(parsing: "/_" + unsigned)
                    #expect(parsed.source == source, "\(unsigned)")
                    #expect(parsed.fileExtension == format?.imgproxyExtension)
                    #expect(parsed.signedPart == unsigned)
                }
            }
        }
    }
}
