import Imagery
import ImageryImgproxy
import Testing

@Suite("ImgproxyOptionRules: presets, only presets, allowed options, security options")
struct ImgproxyOptionRulesTests {
    static let presets = "default=q:70/sm:1,thumb=rs:fill:300:300/g:sm\nblurry=bl:2\n# a comment\n\nsafe=msr:1"

    @Test("The default preset applies first; pr applies others where it stands; later options win")
    func presets() throws {
        let rules = try ImgproxyOptionRules(presets: Self.presets)
        #expect(rules.presets.keys.sorted() == ["blurry", "default", "safe", "thumb"])
        let options = try ImgproxyOptions(segments: ["pr:thumb:blurry", "w:100"], rules: rules)
        #expect(options.quality == 70 && options.resizingType == .fill && options.gravity == .smart)
        #expect(options.width == 100 && options.height == 300 && options.blur == 2)
        #expect(try ImgproxyOptions(segments: ["q:90", "preset:thumb"], rules: rules).quality == 90)
        #expect(try ImgproxyOptions(segments: ["w:10"], rules: rules).quality == 70)
        // A preset may use a security option though URLs may not.
        #expect(try ImgproxyOptions(segments: ["pr:safe"], rules: rules).security.sourceMegapixels == 1)
        #expect(throws: ImgproxyError(.invalidOption, "unknown preset: nope")) { try ImgproxyOptions(segments: ["pr:nope"], rules: rules) }
    }

    @Test("Bad presets are refused by name, before serving", arguments: [
        ("=w:1", "name=options"), ("a=", "a"), ("a=w:1,a=h:1", "twice"), ("a=w:x", "a"), ("a=pr:b", "another"), ("nothing", "name=options"),
    ])
    func badPresets(_ text: String, _ named: String) {
        do {
            _ = try ImgproxyOptionRules(presets: text)
            Issue.record("\(text) was accepted")
        } catch {
            #expect(error.message.contains(named), "\(error.message)")
        }
    }

    @Test("Only presets: a bare name or pr is accepted, any other option is refused; the path reads bare names")
    func onlyPresets() throws {
        var rules = try ImgproxyOptionRules(presets: Self.presets)
        rules.onlyPresets = true
        let path = try ImgproxyPath(parsing: "/unsafe/thumb/blurry/plain/http://example.com/a.jpg", rules: rules)
        #expect(path.options == ["thumb", "blurry"] && path.source == "http://example.com/a.jpg")
        let options = try ImgproxyOptions(segments: path.options, rules: rules)
        #expect(options.width == 300 && options.blur == 2)
        #expect(try ImgproxyOptions(segments: ["pr:thumb"], rules: rules).width == 300)
        #expect(throws: ImgproxyError(.invalidOption, "option w: only presets are allowed")) {
            try ImgproxyOptions(segments: ["w:10"], rules: rules)
        }
        // Without only-presets a bare name starts the source, as in imgproxy: here, not base64.
        rules.onlyPresets = false
        #expect(throws: ImgproxyError(.invalidPath, "source: not valid base64url")) {
            try ImgproxyPath(parsing: "/unsafe/thumb/plain/http://example.com/a.jpg", rules: rules)
        }
    }

    @Test("Allowed options limit URLs by either name; security options need the server's consent")
    func allowedAndSecurity() throws {
        var rules = try ImgproxyOptionRules(presets: "default=q:70")
        rules.allowedOptions = ["resize", "w", "quality"]
        #expect(try ImgproxyOptions(segments: ["rs:fit:10:10", "width:5", "q:50"], rules: rules).width == 5)
        #expect(throws: ImgproxyError(.invalidOption, "option bl: not allowed here")) { try ImgproxyOptions(segments: ["bl:1"], rules: rules) }

        var open = ImgproxyOptionRules()
        #expect(throws: ImgproxyError(.invalidOption, "option msr: security options are not allowed here")) {
            try ImgproxyOptions(segments: ["msr:1"], rules: open)
        }
        open.allowsSecurityOptions = true
        #expect(try ImgproxyOptions(segments: ["msr:1", "mrd:50"], rules: open).security.resultDimension == 50)
    }
}
