import CImageryCodecs
@testable import Imagery
@testable import ImageryCodecs
import ImageryTestSupport
import Testing

/// The resampler that keeps a ring of filtered rows, the blurs and sharpen that work in place,
/// the upright turn folded into the resample, and the PNG writer that drops alpha as it writes,
/// each held to the whole-image implementation it replaced (`WholeImageReference`) on real
/// photos: the same pixels, byte for byte, and for the PNG the same file.
// Serialized: seconds of CPU each in a debug build, as the thumbnail suite's. The work runs on
// a thread of its own at the lowest priority (onOwnThread): minutes of it on the cooperative
// pool, beside the thumbnail suite, starved the pipeline's heavy-work threads in a full run.
@Suite(.serialized) struct StreamingProcessingTests {
    /// Parts of an opaque photo and a logo, a translucent arc and a palette GIF, decoded; and
    /// the photo cropped to widths that end inside a four-pixel group. Parts, not the whole
    /// images: the whole-image references are seconds of CPU each in a debug build, and
    /// the edges, odd sizes and alpha a difference would show in are all here. Decoded once for
    /// the suite: a bitmap is a value, so no test sees another's changes.
    static func images() throws -> [(String, Bitmap)] { try decodedImages.get() }

    private static let decodedImages = Result { try decodeImages() }

    private static func decodeImages() throws -> [(String, Bitmap)] {
        let photo = try ImageDecoder().decode(Fixtures.rocket)
        let logo = try ImageDecoder().decode(Fixtures.logo)
        let arc = try ImageDecoder().decode(Fixtures.bytes("png_rgba_semitransparent_arc_2140x1200.png"))
        let gif = try ImageDecoder().decode(Fixtures.gif)
        var images = [
            ("rocket", photo.cropped(x: 101, y: 53, width: 283, height: 190)), ("logo", logo.cropped(x: 120, y: 130, width: 251, height: 249)),
            ("arc", arc.cropped(x: 500, y: 200, width: 321, height: 191)), ("gif", gif),
        ]
        for width in [1, 3, 6, 7, 333] {
            images.append(("rocket \(width) wide", photo.cropped(x: 17, y: 9, width: width, height: 97)))
        }
        return images
    }

    static func expectSame(_ new: Bitmap, _ old: Bitmap, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(new.width == old.width && new.height == old.height, "\(what): size", sourceLocation: sourceLocation)
        #expect(new.alphaMode == old.alphaMode, "\(what): alpha mode", sourceLocation: sourceLocation)
        #expect(new.packedPixels == old.packedPixels, "\(what): pixels differ", sourceLocation: sourceLocation)
    }

    @Test("The ring resampler makes the whole-image resampler's pixels: reductions, enlargements, crops and odd sizes")
    func resampler() async throws {
        let pairs = try await onOwnThread { try Self.resamplerPairs() }
        for (new, old, what) in pairs { Self.expectSame(new, old, what) }
    }

    /// The ring and the whole-image resampler's results, side by side.
    static func resamplerPairs() throws -> [(Bitmap, Bitmap, String)] {
        var pairs: [(Bitmap, Bitmap, String)] = []
        for (name, image) in try Self.images() {
            let full = SourceRect(x: 0, y: 0, width: Double(image.width), height: Double(image.height))
            let inner = SourceRect(x: Double(image.width) / 5, y: Double(image.height) / 7, width: Double(image.width) / 2, height: Double(image.height) / 3)
            let cases: [(SourceRect, PixelSize)] = [
                (full, PixelSize(width: max(1, image.width / 3), height: max(1, image.height / 3))),
                (full, PixelSize(width: 1, height: 1)),
                (inner, PixelSize(width: 97, height: 61)),
                (inner, PixelSize(width: image.width * 7 / 6, height: image.height * 5 / 6)),
                (inner, PixelSize(width: image.width, height: 13)),
            ]
            for (rect, size) in cases {
                pairs.append((
                    LanczosResampler.resample(image, sourceRect: rect, to: size), WholeImageReference.resample(image, sourceRect: rect, to: size),
                    "\(name) to \(size.width)x\(size.height)"
                ))
            }
        }
        return pairs
    }

    @Test("Turning upright as rows are stored makes what oriented() makes of the resampled image", arguments: ImageOrientation.allCases)
    func orientingResample(orientation: ImageOrientation) async throws {
        let pairs = try await onOwnThread { () throws -> [(Bitmap, Bitmap, String)] in
            var photo = try ImageDecoder().decode(Fixtures.rocket).cropped(x: 61, y: 40, width: 211, height: 143)
            photo.orientation = orientation
            let rect = SourceRect(x: 0, y: 0, width: Double(photo.width), height: Double(photo.height))
            return [PixelSize(width: 97, height: 61), PixelSize(width: 301, height: 187)].map { size in
                (
                    LanczosResampler.resample(photo, sourceRect: rect, to: size, orienting: true),
                    WholeImageReference.resample(photo, sourceRect: rect, to: size).oriented(), "\(orientation) to \(size.width)x\(size.height)"
                )
            }
        }
        for (turned, old, what) in pairs {
            #expect(turned.orientation == .up)
            Self.expectSame(turned, old, what)
        }
    }

    @Test("Blurs in place make the whole-image blurs' pixels, on both paths, at every width's last group", arguments: [0.4, 1.7, 2, 2.5, 31])
    func blurs(sigma: Double) async throws {
        let pairs = try await onOwnThread { () throws -> [(Bitmap, Bitmap, String)] in
            var pairs: [(Bitmap, Bitmap, String)] = []
            for (name, image) in try Self.images() {
                let prepared = image.prepared
                let reference = WholeImageReference.blurred(prepared, sigma: sigma)
                pairs.append((GaussianFilter.blurred(prepared, sigma: sigma), reference, "\(name), sigma \(sigma)"))
                pairs.append((
                    try ImageProcessors.GaussianBlur(sigma: sigma).process(image), reference.withStraightAlpha(), "\(name), the processor, sigma \(sigma)"
                ))
            }
            return pairs
        }
        for (new, old, what) in pairs { Self.expectSame(new, old, what) }
    }

    @Test("Sharpen writes over its blur and makes the three-image sharpen's pixels")
    func sharpen() async throws {
        let pairs = try await onOwnThread { () throws -> [(Bitmap, Bitmap, String)] in
            var pairs: [(Bitmap, Bitmap, String)] = []
            for (name, image) in try Self.images() {
                for (sigma, amount, threshold) in [(1.0, 1.0, 0), (0.6, 2.5, 10), (4.0, 0.7, 3), (1.0, 70.0, 0)] {
                    pairs.append((
                        try ImageProcessors.Sharpen(sigma: sigma, amount: amount, threshold: threshold).process(image),
                        WholeImageReference.sharpened(image, sigma: sigma, amount: amount, threshold: threshold),
                        "\(name), sharpen(\(sigma), \(amount), \(threshold))"
                    ))
                }
            }
            return pairs
        }
        for (new, old, what) in pairs { Self.expectSame(new, old, what) }
    }

    @Test("A processor in place changes a bitmap nothing else holds without a copy, and one that is shared leaves it as it was")
    func inPlace() throws {
        let photo = try ImageDecoder().decode(Fixtures.logo)
        let processors: [any InPlaceImageProcessing] = [
            ImageProcessors.GaussianBlur(sigma: 1.5), ImageProcessors.GaussianBlur(sigma: 12), ImageProcessors.Pixelate(size: 7),
            ImageProcessors.RoundedCorners(radius: 40), ImageProcessors.Background(color: .white),
            ImageProcessors.Overlay(try ImageDecoder().decode(Fixtures.gif), identity: "gif", gravity: .southEast, opacity: 0.5),
        ]
        for processor in processors {
            let copied = try processor.process(photo)
            var owned = photo.packedPixels.withUnsafeBufferPointer { Bitmap(width: photo.width, height: photo.height, pixels: Array($0), alphaMode: photo.alphaMode) }
            let before = owned.pixels.withUnsafeBufferPointer { $0.baseAddress }
            try processor.process(&owned)
            #expect(owned.pixels.withUnsafeBufferPointer { $0.baseAddress } == before, "\(processor.identifier) copied its input")
            Self.expectSame(owned, copied, processor.identifier)
            #expect(photo.packedPixels == (try ImageDecoder().decode(Fixtures.logo)).packedPixels, "\(processor.identifier) changed a shared bitmap")
        }
    }

    @Test("A thumbnail turns upright and converts colour (Adobe RGB, CMYK) on its one output image, with the old pixels", arguments: [
        ("jpeg_exif6_aqua_2560x1600.jpg", 480), ("png_rgba_logo_500x500.png", 700), ("jpeg_cmyk_yellowflower_2560x1600.jpg", 400), ("jpeg_small_base_rocket_640x427.jpg", 800),
    ])
    func uprightThumbnail(name: String, side: Int) async throws {
        let (made, old) = try await onOwnThread { () throws -> (Bitmap, Bitmap) in
            let bytes = Fixtures.bytes(name)
            let resize = Resize.fit(width: side, height: side)
            let made = try Thumbnailer(resize: resize, allowsUpscaling: true).thumbnail(from: bytes)
            // The old order: resample the stored pixels, convert colour, then turn a copy upright.
            let decoded = try ImageDecoder().decodeStored(bytes, options: DecodingOptions())
            var plan = try resize.plan(for: decoded.bitmap.displaySize, allowsUpscaling: true)
            if decoded.bitmap.orientation.swapsAxes { plan = plan.transposed }
            let rect = SourceRect(x: 0, y: 0, width: Double(decoded.bitmap.width), height: Double(decoded.bitmap.height))
            let resized = WholeImageReference.resample(decoded.bitmap, sourceRect: rect, to: plan.outputSize)
            return (made, ImageDecoder.convertColor(DecodedImage(bitmap: resized, iccProfile: decoded.iccProfile), enabled: true).oriented())
        }
        Self.expectSame(made, old, name)
    }

    @Test("PNG drops alpha as libpng writes each row: the same file as the RGB copy made")
    func pngWithoutCopy() throws {
        for (name, image) in try Self.images() {
            let opaque = image.flattened(over: .white)
            let written = try ImageEncoder(format: .png).encode(opaque)
            var rgb = [UInt8]()
            rgb.reserveCapacity(opaque.width * opaque.height * 3)
            for y in 0..<opaque.height {
                for x in 0..<opaque.width {
                    let pixel = opaque.pixel(x: x, y: y)
                    rgb += [pixel.red, pixel.green, pixel.blue]
                }
            }
            var out: UnsafeMutablePointer<UInt8>?
            var length = 0
            var message = [CChar](repeating: 0, count: 256)
            let status = rgb.withUnsafeBufferPointer { pixels in
                message.withUnsafeMutableBufferPointer {
                    img_png_encode(pixels.baseAddress, UInt32(opaque.width), UInt32(opaque.height), opaque.width * 3, 3, 0, &out, &length, $0.baseAddress, $0.count)
                }
            }
            defer { img_free(out) }
            try #require(status == IMG_OK, "\(name)")
            #expect(written == Array(UnsafeBufferPointer(start: out, count: length)), "\(name): PNG bytes differ")
            #expect(try ImageDecoder().decode(written).packedPixels == opaque.packedPixels, "\(name)")
        }
    }
}
