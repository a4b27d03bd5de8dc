import Testing
import Imagery

@Suite struct ImageFormatTests {
    static func bytes(_ text: String, prefix: [UInt8] = [], padTo: Int = 32) -> [UInt8] {
        var result = prefix + Array(text.utf8)
        while result.count < padTo { result.append(0) }
        return result
    }

    @Test(arguments: [
        ([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10], ImageFormat.jpeg),
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0], .png),
        (bytes("GIF89a"), .gif),
        (bytes("GIF87a"), .gif),
        (bytes("RIFF\u{10}\0\0\0WEBPVP8 "), .webp),
        ([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0], .tiff),
        ([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8], .tiff),
        (bytes("BM", padTo: 54), .bmp),
        (bytes("ftypheic\0\0\0\0mif1heic", prefix: [0, 0, 0, 0x18]), .heic),
        (bytes("ftypavif\0\0\0\0avifmif1", prefix: [0, 0, 0, 0x18]), .avif),
        (bytes("ftypmif1\0\0\0\0mif1avif", prefix: [0, 0, 0, 0x18]), .avif),
    ] as [([UInt8], ImageFormat)])
    func recognisesSignature(bytes: [UInt8], format: ImageFormat) {
        #expect(ImageFormat(sniffing: bytes) == format)
    }

    @Test(arguments: [[], [0xFF, 0xD8], Array("<html><body>".utf8), Array("RIFF\0\0\0\0WAVEfmt ".utf8), [0, 0, 0, 0x18] + Array("ftypmp42".utf8)])
    func rejectsNonImages(bytes: [UInt8]) {
        #expect(ImageFormat(sniffing: bytes) == nil)
    }

    @Test("An SVG is an XML document whose root is <svg>, after a declaration, comments and a document type", arguments: [
        "<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
        "  \n<svg>",
        "\u{FEFF}<?xml version=\"1.0\"?><svg width=\"1\" height=\"1\"></svg>",
        "<?xml version=\"1.0\"?>\n<!-- <html> in a comment -->\n<?xml-stylesheet href=\"a.css\"?><svg\n>",
        "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"svg11.dtd\" [<!ENTITY a \"<svg>\"><!ENTITY b '>'>]><svg/>",
        "<svg:svg xmlns:svg=\"http://www.w3.org/2000/svg\"></svg:svg>",
        "<!DOCTYPE svg [<!-- it's ] --><?pi ]> ?><!ENTITY a \"]>\">]><svg/>",
    ])
    func recognisesSVG(text: String) {
        #expect(ImageFormat(sniffing: Array(text.utf8)) == .svg)
        #expect(ImageFormat.svg.mimeType == "image/svg+xml")
    }

    @Test("Other XML, HTML holding an SVG, and text that mentions one are not SVG", arguments: [
        "<html><body><svg></svg></body></html>",
        "<svgfoo/>",
        "<?xml version=\"1.0\"?><rss><svg/></rss>",
        "svg",
        "hello <svg>",
        "<!-- never closed <svg>",
        "<?xml version=\"1.0\"?>",
    ])
    func rejectsOtherText(text: String) {
        #expect(ImageFormat(sniffing: Array(text.utf8)) != .svg)
    }

    @Test func svgRootTooFarIsNotRecognised() {
        let padded = "<!--" + String(repeating: " ", count: 70_000) + "--><svg/>"
        #expect(ImageFormat(sniffing: Array(padded.utf8)) == nil)
    }
}
