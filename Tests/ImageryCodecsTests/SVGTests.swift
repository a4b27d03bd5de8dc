#if SVG
import CImagerySVG
#endif
import Foundation
import Testing
@testable import ImageryCodecs
import Imagery
import ImageryTestSupport

/// SVG through librsvg: rendered at the size asked for, the default sizes, the pixel limit,
/// what librsvg may load, text, and filter work.
/// Whether the SVG tests run: with the trait, and in .ci/run's trait pass.
private let svgEnabled = CIRun.runs(needingTrait: "SVG", compiled: ImageDecoder.supportedFormats.contains(.svg))

@Suite(.enabled(if: svgEnabled, "needs the SVG trait"))
struct SVGTests {
    static func document(_ root: String, _ body: String = "") -> [UInt8] {
        Array("<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" \(root)>\(body)</svg>".utf8)
    }

    @Test("A thumbnail is rendered at its size, as rsvg-convert renders it, with no resampling")
    func renderedAtTheSizeAsked() throws {
        let bytes = try TestImages.bytes("svg_logo_gvim_376x376.svg")
        let thumbnail = try Thumbnailer(resize: .fit(width: 256, height: 256)).thumbnail(from: bytes)
        #expect(thumbnail.width == 256 && thumbnail.height == 256 && thumbnail.metadata.decodeScale == 1)
        #expect(thumbnail.metadata.format == .svg && thumbnail.metadata.originalSize == PixelSize(width: 376, height: 376))
        let reference = try TestImages.decodePNG("reference_svg_gvim_rsvgconvert_256x256.png")
        let psnr = ImageComparison.psnr(thumbnail, reference)
        #expect(psnr > 45, "\(psnr) dB against rsvg-convert -w 256")
        let full = try ImageDecoder().decode(bytes)
        #expect(full.width == 376 && full.height == 376, "282pt at 96 dpi")
    }

    @Test("A vector is enlarged to the size asked for whatever allowsUpscaling says, as imgproxy renders one; a fill is cropped")
    func enlargedAndFilled() throws {
        let bytes = try TestImages.bytes("svg_logo_gvim_376x376.svg")
        let large = try Thumbnailer(resize: .fit(width: 1000, height: 800)).thumbnail(from: bytes)
        #expect(large.width == 800 && large.height == 800)
        let filled = try Thumbnailer(resize: .fill(width: 300, height: 100)).thumbnail(from: bytes)
        #expect(filled.width == 300 && filled.height == 100)
        let pipelineWay = try ImageDecoder().decode(bytes, resize: .width(64), allowsUpscaling: false, options: DecodingOptions())
        #expect(pipelineWay.width == 64 && pipelineWay.height == 64)
    }

    @Test("Without a width and height the viewBox gives the size; with neither, CSS's 300 x 150")
    func defaultSizes() throws {
        let boxed = try ImageDecoder().decode(Self.document("viewBox=\"0 0 40 20\"", "<rect width=\"40\" height=\"20\" fill=\"red\"/>"))
        #expect(boxed.width == 40 && boxed.height == 20 && boxed.pixel(x: 39, y: 19) == RGBA(red: 255, green: 0, blue: 0))
        let percent = try ImageDecoder().decode(Self.document("width=\"100%\" height=\"50%\" viewBox=\"0 0 10 30\""))
        #expect(percent.width == 10 && percent.height == 30)
        let bare = try ImageDecoder().decode(Self.document(""))
        #expect(bare.width == 300 && bare.height == 150)
        #expect(throws: ImageError.self) { try ImageDecoder().decode(Self.document("width=\"0\" height=\"10\"")) }
    }

    @Test("A canvas over the pixel limit renders scaled down to fit it, not refused")
    func hugeCanvas() throws {
        var options = DecodingOptions()
        options.maximumPixelCount = 1_000_000
        let bytes = Fixtures.svgCanvas(width: 200_000, height: 100_000)
        let bitmap = try ImageDecoder().decode(bytes, options: options)
        #expect(bitmap.width == 1414 && bitmap.height == 707)
        #expect(bitmap.metadata.originalSize == PixelSize(width: 200_000, height: 100_000))
        #expect(bitmap.pixel(x: 700, y: 300) == RGBA(red: 0, green: 0, blue: 255))
        #expect(ImageHeader.size(of: bytes) == PixelSize(width: 200_000, height: 100_000))
    }

    @Test("A data: PNG draws; librsvg itself, given no base, loads no file a document names")
    func references() throws {
        let png = try ImageEncoder(format: .png).encode(Bitmap(width: 4, height: 4, filledWith: RGBA(red: 255, green: 0, blue: 0)))
        let embedded = try ImageDecoder().decode(Self.document(
            "width=\"4\" height=\"4\"", "<image width=\"4\" height=\"4\" href=\"data:image/png;base64,\(Data(png).base64EncodedString())\"/>"
        ))
        #expect(embedded.pixel(x: 2, y: 2) == RGBA(red: 255, green: 0, blue: 0))
        #if SVG
        // Straight to the shim, past the sanitizer: a real file on disk, by absolute URL.
        let file = TestImages.bundled.appendingPathComponent("reference_processing_rocket_120x80.png").absoluteString
        let raw = Self.document("width=\"8\" height=\"8\"", "<image width=\"8\" height=\"8\" href=\"\(file)\"/>")
        var handle: OpaquePointer?
        var message = [CChar](repeating: 0, count: 256)
        #expect(img_svg_load(raw, raw.count, 0, &handle, &message, message.count) == IMG_SVG_OK)
        defer { img_svg_free(handle) }
        var pixels = [UInt8](repeating: 0, count: 8 * 8 * 4)
        #expect(img_svg_render(handle, &pixels, 8, 8, 32, &message, message.count) == IMG_SVG_OK)
        #expect(pixels.allSatisfy { $0 == 0 }, "the file was not drawn")
        #endif
    }

    @Test("Text is drawn with the system's fonts (fonts-dejavu-core)")
    func text() throws {
        let bytes = try TestImages.bytes("svg_text_dependencies_2457x908.svg")
        let withText = try Thumbnailer(resize: .fit(width: 800, height: 800)).thumbnail(from: bytes)
        let without = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "<text", with: "<desc")
            .replacingOccurrences(of: "</text>", with: "</desc>")
        let blank = try Thumbnailer(resize: .fit(width: 800, height: 800)).thumbnail(from: Array(without.utf8))
        let differing = stride(from: 0, to: withText.pixels.count, by: 4).filter { withText.pixels[$0] != blank.pixels[$0] }.count
        #expect(differing > 2_000, "\(differing) pixels of text")
    }

    @Test("Filter work is measured at the render's size: the same document renders small and is refused large")
    func filterWorkAtSize() throws {
        let bytes = Self.document(
            "width=\"200\" height=\"200\"",
            "<filter id=\"f\"><feMorphology operator=\"dilate\" radius=\"4\"/></filter><rect width=\"200\" height=\"200\" fill=\"red\" filter=\"url(#f)\"/>"
        )
        #expect(try Thumbnailer(resize: .fit(width: 100, height: 100)).thumbnail(from: bytes).width == 100)
        #expect { try Thumbnailer(resize: .fit(width: 4000, height: 4000)).thumbnail(from: bytes) } throws: { error in
            guard case let ImageError.corrupt(.svg, detail) = error else { return false }
            return detail.contains("primitive-pixels at 4000x4000")
        }
    }

    @Test("svgLimits reach the decoder: a byte limit refuses, and lifting it admits")
    func limitsReachTheDecoder() throws {
        let bytes = Self.document("width=\"1\" height=\"1\"", String(repeating: " ", count: 2_000))
        var limits = SVGLimits()
        limits.maximumBytes = 1_000
        #expect(throws: ImageError.self) { try ImageDecoder(svgLimits: limits).decode(bytes) }
        limits.maximumBytes = nil
        #expect(try ImageDecoder(svgLimits: limits).decode(bytes, resize: .width(10), allowsUpscaling: false, options: DecodingOptions()).width == 10)
    }
}
