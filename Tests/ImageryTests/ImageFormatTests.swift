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
}
