import Foundation
import ImageryTestSupport
import Testing
import Imagery
import ImageryCodecs
#if canImport(Glibc)
import Glibc
#endif

/// Bad input gets a typed error that says what was wrong: never a crash, a hang, or a half image as success.
@Suite struct CorruptInputTests {
    /// Found by `scripts/fuzz.sh` on 2026-11-22: a frame whose left edge (32768) lies beyond
    /// the 256-pixel logical screen trapped on a negative range while composing the canvas.
    static let frameOutsideScreen: [UInt8] = [UInt8](Data(base64Encoded: [
        "R0lGODlhAAGrAPAAAAAAAP///yH5BAAAAAAAIf8LSW1hZ2VNYWdpY2sOZ2FtbWE9MC40NTQ1NDUALACAAAAAAAGrAAEEAAL+",
        "hI+py+0Po5y02otzDjzoD4biSJam1XnnyrbuC0tdTNf2jTtzzvf+r9kBh8QiUGhMKpcrJPMJjU6c0qq1Sr1qt0YO9wsOi8fk",
        "svmMTqvX7Lb7DY/L5/S6/Y6fZ/P8ZdVKF+iXIliY9GeYOISo2MjzB+goGQM5aQlTeanJwrjpSdL5KfqROWp6UXqqKhO66tqQ",
        "+iqr0DprCxB7K5ur68rbGwbpRVkLrCWMPMz5a8yU/FwswtxcBG09vRGeLRRWbNW2DMlBHWt0btcRbwXFNbmXKt1sdu8OlliW",
        "VWC3AZHizbv4scyEQA8jXst2cd2cWCXb8AzBMtG0YEGb1Wza59/KojdHotn6nmDNJVLDii3bttTEinnL5kibr24GuO8N13mc",
        "VvF0yVXSbv6b+PLRmB9Aj648uNXn07ddr324O7XvwsOLN0Z+u2+y1bFbP68vPS74veS7pgd8vfvQ8/76++fMlHaz/EdggU8t",
        "YJ8vBi7IYEYIJLhKgxJOWAyECFGIoYQI0sdahh4SKJ1+4ny+4n8hijleiSr2NZ+AqqwIY2HZodhMjDY6eICFo9zI42o5unhh",
        "j0Li9yCHjQyJ5G1A7oikkErSCEyTTp7YXo1S3phZlehdaWOWWtbHZYxeEmlcmDCO+VpuZq6I5n5rsjmmm2+W+B5irNHRWiur",
        "t+LaHwVGwsXrUezJamWwLFJJseyWxv7EarJ3LiujrmpCGy2mqBZLbZ7TZuvhb9z6ue23FHorbqPklgvgftaiW6h37JKm7pPv",
        "tjvrvPRia6+n7uX766f86ovdv5TKKbCz8QZY8MG+FmywwrMl7PC6DF8b78TQRPywxToqqHG6AXfs8bkg+/jxyBsHafK9TKY8",
        "sLIsY3yZpTDLNefMUnRrc84678xzzz7/DHTQQg9NdNFGH4100kovzXTTTj8NddRST61FAQA7",
    ].joined())!)

    @Test("A GIF frame placed outside the logical screen is clipped, not a crash", arguments: [DecodingPolicy.strict, .lenient])
    func gifFrameOutsideScreen(policy: DecodingPolicy) {
        var options = DecodingOptions()
        options.policy = policy
        do {
            let bitmap = try ImageDecoder().decode(Self.frameOutsideScreen, options: options)
            #expect(bitmap.width == 256 && bitmap.height == 171)
            #expect(!bitmap.hasTransparency || bitmap.pixel(x: 0, y: 0).alpha == 0)
        } catch {
            #expect(policy == .strict, "a lenient decode should return the (empty) canvas: \(error)")
            #expect(Self.isDamage(error, in: .gif), "a strict decode says the GIF is damaged: \(error)")
        }
    }

    /// Whether `error` says the data is damaged, truncated or corrupt (in `format`, when given):
    /// the answer for a bad file, as opposed to a bad request or an encoder failure.
    static func isDamage(_ error: ImageError, in format: ImageFormat? = nil) -> Bool {
        switch error {
        case let .truncated(found, _), let .corrupt(found, _): format.map { $0 == found } ?? true
        default: false
        }
    }

    @Test func zeroBytes() {
        #expect(throws: ImageError.emptyData) { try ImageDecoder().decode([]) }
    }

    @Test func randomBytesAreUnrecognised() {
        var generator = SplitMix64(state: 42)
        let noise = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
        #expect { try ImageDecoder().decode(noise) } throws: { error in
            guard case let ImageError.unrecognizedFormat(signature) = error else { return false }
            return signature.split(separator: " ").count == 12
        }
    }

    @Test("A bare header is recognised, and refused as unsupported without its decoder or as damaged with it", arguments: [ImageFormat.heic, .avif, .tiff, .bmp, .svg])
    func recognisedButUnsupportedFormats(format: ImageFormat) {
        let header: [UInt8] = switch format {
        case .heic: [0, 0, 0, 0x18] + Array("ftypheic\0\0\0\0mif1heic".utf8)
        case .avif: [0, 0, 0, 0x18] + Array("ftypavif\0\0\0\0avifmif1".utf8)
        case .tiff: [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0] + [UInt8](repeating: 0, count: 24)
        case .svg: Array("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\"".utf8)
        default: Array("BM".utf8) + [UInt8](repeating: 0, count: 52)
        }
        #expect { try ImageDecoder().decode(header) } throws: { error in
            switch error as? ImageError {
            case let .unsupportedFormat(found, _)?: !ImageDecoder.supportedFormats.contains(format) && found == format
            case let .corrupt(found, _)?, let .truncated(found, _)?: ImageDecoder.supportedFormats.contains(format) && found == format
            default: false
            }
        }
    }

    @Test(arguments: [
        ("jpeg_small_base_rocket_640x427.jpg", ImageFormat.jpeg),
        ("jpeg_med_prog_greenmeadow_1280x1024.jpg", .jpeg),
        ("png_rgba_logo_500x500.png", .png),
        ("png_interlaced_motorcycle_741x500.png", .png),
        ("gif_static_objects_256x171.gif", .gif),
    ])
    func truncatedFilesFailUnderTheStrictPolicy(name: String, format: ImageFormat) throws {
        let bytes = try TestImages.bytes(name)
        // Cut anywhere from just past the header to the last few bytes.
        for fraction in [0.1, 0.3, 0.5, 0.7, 0.9, 0.995] {
            let cut = Array(bytes.prefix(Int(Double(bytes.count) * fraction)))
            #expect("cut at \(Int(fraction * 100))%", performing: { try ImageDecoder().decode(cut) }, throws: { error in
                switch error as? ImageError {
                case .truncated(format, _)?, .corrupt(format, _)?: true
                default: false
                }
            })
        }
    }

    @Test func truncatedJPEGIsFlaggedUnderTheLenientPolicy() throws {
        let cut = Array(try TestImages.bytes("jpeg_small_base_rocket_640x427.jpg").prefix(60_000))
        #expect { try ImageDecoder().decode(cut) } throws: { error in
            guard case let ImageError.truncated(.jpeg, detail) = error else { return false }
            return detail.contains("Premature end")
        }
        var options = DecodingOptions()
        options.policy = .lenient
        let partial = try ImageDecoder().decode(cut, options: options)
        #expect(partial.width == 640 && partial.height == 427)
        #expect(partial.metadata.isIncomplete)
        // libjpeg fills the missing rows with mid grey (128 ± IDCT rounding).
        let filled = partial.pixel(x: 320, y: 420)
        #expect(filled.red == filled.green && filled.green == filled.blue && abs(Int(filled.red) - 128) <= 1)
    }

    @Test func truncatedPNGIsPaddedUnderTheLenientPolicy() throws {
        let cut = Array(try TestImages.bytes("png_rgba_logo_500x500.png").prefix(90_000))
        var options = DecodingOptions()
        options.policy = .lenient
        let partial = try ImageDecoder().decode(cut, options: options)
        #expect(partial.metadata.isIncomplete)
        #expect(partial.pixel(x: 250, y: 499) == RGBA(red: 128, green: 128, blue: 128))
    }

    /// A header claiming 65,000×65,000 is refused from the header alone, by its size.
    @Test(arguments: [
        "jpeg_small_base_rocket_640x427.jpg", "jpeg_med_prog_greenmeadow_1280x1024.jpg",
        "png_rgba_logo_500x500.png", "gif_static_objects_256x171.gif",
    ])
    func oversizedHeaderIsRefused(name: String) throws {
        let hostile = try Self.claimingHugeSize(name)
        #expect(throws: ImageError.tooLarge(width: 65_000, height: 65_000, limit: 100_000_000)) { try ImageDecoder().decode(hostile) }
    }

    /// The same headers, refused without allocating: the `imagery` tool reads them with its
    /// address space capped 2 GiB above a thumbnail's needs (prlimit), so an attempt to allocate
    /// the 16.9 GB of pixels, or libjpeg's 12 GB of progressive coefficients, would kill it. The
    /// cap is on a child: set on this process, it would fail the allocations of the tests
    /// running beside it.
    @Test(.enabled(if: ChildProcess.onPath("prlimit") != nil && !Sanitizer.isActive, "needs prlimit (util-linux); a sanitizer's shadow memory outgrows any cap"))
    func oversizedHeaderIsRefusedWithoutAllocating() async throws {
        let tool = try #require(ChildProcess.executable("imagery"), "the imagery tool is built beside the tests")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-huge-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("in"), withIntermediateDirectories: true)
        for name in ["jpeg_med_prog_greenmeadow_1280x1024.jpg", "png_rgba_logo_500x500.png", "gif_static_objects_256x171.gif"] {
            try Data(Self.claimingHugeSize(name)).write(to: directory.appendingPathComponent("in/\(name)"))
        }
        let log = directory.appendingPathComponent("log.txt")
        let outcome = try await ChildProcess.run(
            "/bin/sh", ["-c", #"exec prlimit --as=$((3 << 30)) "$0" thumbnail "$1/in" --fit 64x64 -o "$1/out" 2>&1"#, tool, directory.path],
            output: log.path
        )
        let text = try String(contentsOf: log, encoding: .utf8)
        // 1: every file refused, each with a line; a failed allocation would be a signal (-1).
        #expect(outcome.exitCode == 1, "\(text)")
        #expect(text.components(separatedBy: "65000").count - 1 >= 3, "each refusal names the claimed size: \(text)")
    }

    private static func claimingHugeSize(_ name: String) throws -> [UInt8] {
        let original = try TestImages.bytes(name)
        return switch ImageFormat(sniffing: original) {
        case .png?: HostileFiles.png(original, claimingWidth: 65_000, height: 65_000)
        case .gif?: HostileFiles.gif(original, claimingWidth: 65_000, height: 65_000)
        default: JPEGFrameHeader.settingSize(of: original, width: 65_000, height: 65_000)!
        }
    }

    @Test func pixelLimitIsConfigurable() throws {
        var options = DecodingOptions()
        options.maximumPixelCount = 100_000
        #expect(throws: ImageError.tooLarge(width: 640, height: 427, limit: 100_000)) {
            try ImageDecoder().decode(TestImages.bytes("jpeg_small_base_rocket_640x427.jpg"), options: options)
        }
    }

    /// Seeded byte mutations of real files: each decode either succeeds with a sane size or throws
    /// an ImageError. A crash, hang or overrun fails the whole run.
    @Test(arguments: [
        "jpeg_small_base_rocket_640x427.jpg", "jpeg_med_prog_greenmeadow_1280x1024.jpg", "png16_rgb_chelsea_451x300.png",
        "png_pal8_trns_debianlogo_256x256.png", "gif_static_objects_256x171.gif",
    ])
    func mutatedFilesNeverCrash(name: String) throws {
        try Self.checkMutations(of: name)
    }

    /// `someStillDecode`: whether a few of the 60 mutations should land where they do no harm
    /// (metadata, padding). A JPEG XL codestream is entropy-coded end to end and has no such place.
    static func checkMutations(of name: String, someStillDecode: Bool = true) throws {
        let original = try TestImages.bytes(name)
        var generator = SplitMix64(state: UInt64(truncatingIfNeeded: name.utf8.reduce(0) { $0 &* 31 &+ Int($1) }))
        var options = DecodingOptions()
        options.draft = .fit(width: 64, height: 64)
        var failures = 0
        for round in 0..<60 {
            var bytes = original
            for _ in 0..<(1 + round % 8) {
                let index = Int.random(in: 8..<bytes.count, using: &generator)
                bytes[index] = UInt8.random(in: 0...255, using: &generator)
            }
            options.policy = round % 2 == 0 ? .strict : .lenient
            do {
                let bitmap = try ImageDecoder().decode(bytes, options: options)
                #expect(bitmap.pixels.count == bitmap.bytesPerRow * bitmap.height)
            } catch {
                failures += 1
                // Damage, or a header the mutation made unrecognisable or too large: what a bad
                // file gets, never a request or encoder error.
                switch error {
                case .truncated, .corrupt, .unrecognizedFormat, .unsupportedFormat, .tooLarge: break
                case .emptyData, .encodingFailed, .invalidRequest, .processorFailed: Issue.record("mutated data gave \(error)")
                }
                #expect(!error.description.isEmpty)
            }
        }
        if someStillDecode { #expect(failures < 60, "some mutations (in metadata or padding) still decode") }
    }
}
