import Foundation
import Testing
@testable import ImageryCodecs

/// CSS wherever a renderer reads it (`<style>`, `style`, presentation attributes, animation
/// values), read as CSS reads names: the three ways past the sanitizer that imgproxy 4 closed.
extension SVGSanitizerTests {
    /// The root element as ``svg(_:root:)``'s documents come out.
    static let writtenRoot = "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" height=\"100\" width=\"100\">"

    /// `bytes` sanitized, checked to sanitize to itself (the fuzz harness's invariant).
    static func sanitizedToFixedPoint(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let output = try Self.sanitized(bytes)
        #expect(try Self.sanitized(Array(output.utf8)) == output, "a second pass changed \(output)", sourceLocation: sourceLocation)
        return output
    }

    @Test("A child element of <style> goes with the style text after it, which was written raw; the text before it is sanitized as ever")
    func styleChildren() throws {
        // Given the finding as reported: the text after `<g/>` reached the output as it was.
        let finding = #"<svg xmlns="http://www.w3.org/2000/svg"><style><g/>@import url(https://evil.example/x.css);</style></svg>"#
        let output = try Self.sanitizedToFixedPoint(Array(finding.utf8))
        #expect(output == #"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><style></style></svg>"#)

        // Text before the first child stays; children of any namespace, nested styles and
        // CDATA after a child go; what follows the style is written as usual.
        let body = """
        <style>.a{fill:url(#g)}<g>x</g>@import url(https://evil.example/x.css);<style>rect{}</style><![CDATA[.b{fill:url(https://evil.example/b.png)}]]><h:p xmlns:h="http://www.w3.org/1999/xhtml">y</h:p>.c{}</style><rect width="1" height="1"/>
        """
        let kept = try Self.sanitizedToFixedPoint(Self.svg(body))
        #expect(kept == Self.writtenRoot + "<style>.a{fill:url(#g)}</style><rect height=\"1\" width=\"1\"></rect></svg>")
    }

    @Test("A presentation attribute whose escapes spell url( goes", arguments: ["mask", "fill", "filter", "clip-path", "marker-start"], [
        #"u\72l("#, #"\75rl("#, #"\000075 rl("#, #"\55 RL("#, #"u\rl("#, #"url\28"#, #"u\72l\20("#, #"U\52L("#,
    ])
    func escapedURLAttribute(attribute: String, spelling: String) throws {
        let value = spelling + "https://evil.example/m.png)"
        let output = try Self.sanitizedToFixedPoint(Self.svg("<rect width=\"1\" height=\"1\" \(attribute)=\"\(value)\"/>"))
        #expect(output == Self.writtenRoot + "<rect height=\"1\" width=\"1\"></rect></svg>", "\(attribute)=\"\(value)\"")
    }

    @Test("Animation values, from, to (<animate>) and to (<set>) are read as CSS too")
    func escapedURLAnimation() throws {
        let body = #"""
        <rect width="1" height="1"><animate attributeName="fill" dur="1s" values="red;u\72l(https://evil.example/a.png)" from="u\72l(https://evil.example/b.png)" to="\75rl(https://evil.example/c.png)"/><set attributeName="mask" to="u\72l(https://evil.example/d.png)"/><animate attributeName="fill" values="red;URL(https://evil.example/e.png)"/></rect>
        """#
        let output = try Self.sanitizedToFixedPoint(Self.svg(body))
        #expect(!output.contains("evil"), "\(output)")
        #expect(output.contains(#"<animate attributeName="fill" dur="1s"></animate>"#), "\(output)")
        #expect(output.contains(#"<set attributeName="mask"></set>"#), "\(output)")
        // Spelt plainly, the link is replaced as before.
        #expect(output.contains(#"<animate attributeName="fill" values="red;none"></animate>"#), "\(output)")
    }

    @Test("CSS whose escapes, comments, case or spaces spell a load goes, from <style> and from style", arguments: [
        #"@\69mport url(https://evil.example/x.css);"#,
        #"@\49MPORT 'https://evil.example/x.css';"#,
        #"@IMPORT url(https://evil.example/x.css);"#,
        #"@im/**/port url(https://evil.example/x.css);"#,
        #".a{fill:\75rl(https://evil.example/f.png)}"#,
        #".a{fill:u\72l(https://evil.example/f.png)}"#,
        #".a{background:-webkit-image-s\65t('https://evil.example/f.png' 1x)}"#,
        #".a{fill:u/**/rl(https://evil.example/f.png)}"#,
        #".a{fill:url/**/(https://evil.example/f.png)}"#,
        #".a{fill:url (https://evil.example/f.png)}"#,
        // Rewritten, `url(x)` here would spell `expression`: the output would not be a fixed point.
        #".a{fill:expressiourl(x)}"#,
    ])
    func escapedStyle(css: String) throws {
        let element = try Self.sanitizedToFixedPoint(Self.svg("<style>\(css)</style><rect width=\"1\" height=\"1\"/>"))
        #expect(element == Self.writtenRoot + "<style></style><rect height=\"1\" width=\"1\"></rect></svg>", "\(css)")
        let attribute = try Self.sanitizedToFixedPoint(Self.svg("<rect width=\"1\" height=\"1\" style=\"\(css)\"/>"))
        #expect(attribute == Self.writtenRoot + "<rect height=\"1\" width=\"1\"></rect></svg>", "\(css)")
    }

    @Test("A link split by a comment, or spelt in capitals, in a presentation attribute: dropped or replaced, never kept")
    func commentsAndCase() throws {
        for value in ["u/**/rl(https://evil.example/f.png)", "url/**/(https://evil.example/f.png)", "url (https://evil.example/f.png)"] {
            let output = try Self.sanitizedToFixedPoint(Self.svg("<rect width=\"1\" height=\"1\" fill=\"\(value)\"/>"))
            #expect(output == Self.writtenRoot + "<rect height=\"1\" width=\"1\"></rect></svg>", "\(value)")
        }
        let capitals = try Self.sanitizedToFixedPoint(Self.svg(#"<rect fill="URL(https://evil.example/f.png)"/><style>.a{fill:URL('https://evil.example/g.png')}</style>"#))
        #expect(capitals == Self.writtenRoot + #"<rect fill="none"></rect><style>.a{fill:none}</style></svg>"#)
    }

    @Test("What draws stays: fragment links, comments, escapes that spell no load, calls that load nothing")
    func legitimateCSS() throws {
        let body = #"""
        <linearGradient id="grad"><stop offset="0"/></linearGradient><style>/* colours */ .a{fill:url(#g)}</style><rect fill="url(#grad)" transform="rotate(45)" font-family="\5FAE\8F6F\96C5\9ED1" style="stroke:url(#grad)"/><circle fill="url( #grad )"/>
        """#
        let output = try Self.sanitizedToFixedPoint(Self.svg(body))
        #expect(output.contains("<style>/* colours */ .a{fill:url(#g)}</style>"), "\(output)")
        #expect(output.contains(#"<rect fill="url(#grad)" font-family="\5FAE\8F6F\96C5\9ED1" style="stroke:url(#grad)" transform="rotate(45)">"#), "\(output)")
        #expect(output.contains(#"<circle fill="url(#grad)">"#), "\(output)")
        let plain = try Self.sanitizedToFixedPoint(Self.svg("<style>.a{fill:url(#g)}</style>"))
        #expect(plain == Self.writtenRoot + "<style>.a{fill:url(#g)}</style></svg>")
    }

    @Test("Reading CSS as names: escapes decoded, case folded, comments and spaces before ( dropped")
    func readings() {
        #expect(SVGStyle.mayLoad(#"u\72l(x)"#))
        #expect(SVGStyle.mayLoad(#"\000075 RL(x)"#))
        #expect(SVGStyle.mayLoad("u/**/rl(x)"))
        #expect(SVGStyle.mayLoad(#"@\69mport"#))
        #expect(SVGStyle.mayLoad(#"image-set\28"#))
        #expect(!SVGStyle.mayLoad("rotate(45) translate(1,2)"))
        #expect(!SVGStyle.mayLoad(#"\5FAE\8F6F"#))
        #expect(!SVGStyle.mayLoad("M0 0L10 10Z"))
        let readings = SVGStyle.readings(of: #"A\42 c/*d*/ ("#).map { String(String.UnicodeScalarView($0)) }
        #expect(readings == ["abc/*d*/(", "abc("])
        #expect(!SVGStyle.loadsOutside("fill:url(#a);stroke:url( '#b' )"))
        #expect(SVGStyle.loadsOutside("fill:url(data:image/png;base64,AAAA)"))
    }
}
