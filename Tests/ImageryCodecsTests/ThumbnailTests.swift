import Testing
import Imagery
import ImageryCodecs
import ImageryTestSupport

// Serialized, and each case's work on a thread of its own at the lowest priority (onOwnThread):
// each is seconds of CPU in a debug build (the reference is a full decode and a wide Lanczos),
// and on the cooperative pool they held its threads, so the other suites' async tests sat
// unscheduled behind them on a 2-core machine.
@Suite(.serialized) struct ThumbnailTests {
    static let box = Resize.fit(width: 256, height: 256)

    static func expectedSize(_ entry: ManifestEntry) throws -> PixelSize {
        try box.plan(for: entry.displaySize).outputSize
    }

    /// Fast path against the slow full-decode Lanczos reference: the lowest PSNR `imagery-bench`
    /// measured over the corpus was 47.9 dB (jpeg_med_base_dune, 3 runs on 2026-11-21). Sources that
    /// need no reduction beyond Lanczos come out identical. The bound leaves room for libjpeg versions.
    static let minimumPSNR = 44.0

    static func checkQuality(_ entry: ManifestEntry) async throws {
        let expected = try expectedSize(entry)
        let (size, psnr) = try await onOwnThread { () throws -> (PixelSize, Double) in
            let bytes = try entry.bytes
            let thumbnailer = Thumbnailer(resize: box)
            let fast = try thumbnailer.thumbnail(from: bytes)
            let size = PixelSize(width: fast.width, height: fast.height)
            let reference = try thumbnailer.referenceThumbnail(from: bytes, size: size)
            return (size, ImageComparison.psnr(fast, reference))
        }
        #expect(size == expected, "\(entry.file)")
        #expect(psnr > minimumPSNR, "\(entry.file): \(psnr) dB")
    }

    @Test(arguments: TestImages.bundledEntries.filter { !$0.needsTrait && !$0.isRefused })
    func fastThumbnailIsCloseToTheSlowReference(_ entry: ManifestEntry) async throws {
        try await Self.checkQuality(entry)
    }

    // An SVG renders at the thumbnail's size rather than reducing a full render: SVGTests
    // compares it with rsvg-convert's render at that size instead.
    static let traitEntries = TestImages.bundledEntries.filter { $0.needsTrait && $0.isDecodable && !$0.isRefused && $0.format != "SVG" }

    @Test(.enabled(if: !traitEntries.isEmpty, "needs a format trait: swift test --traits AllFormats"), arguments: traitEntries)
    func fastThumbnailOfTraitFormatIsCloseToTheSlowReference(_ entry: ManifestEntry) async throws {
        try await Self.checkQuality(entry)
    }

    @Test("The trait pass of .ci/run decodes every bundled image of its formats", .enabled(if: !CIRun.expectedTraits.isEmpty, "not .ci/run's trait pass"))
    func traitPassDecodesTraitFormats() {
        let needing = TestImages.bundledEntries.filter { $0.needsTrait && !$0.isRefused }
        #expect(!needing.isEmpty)
        for entry in needing { #expect(entry.isDecodable, "\(entry.file): \(CIRun.missing("its format trait"))") }
    }

    @Test(.enabled(if: TestImages.corpusIsAvailable, "needs ../shared/corpus"),
          arguments: TestImages.corpusEntries.filter { entry in
              !TestImages.bundledEntries.contains { $0.file == entry.file }   // checked above already
          }.filter {
              $0.width * $0.height <= 5_000_000 && !$0.kind.contains("animated")
                  && $0.isDecodable
          })
    func corpusThumbnailIsCloseToTheSlowReference(_ entry: ManifestEntry) async throws {
        try await Self.checkQuality(entry)
    }

    @Test func fillCropsToTheExactBox() throws {
        let bytes = try TestImages.bytes("jpeg_exif6_aqua_2560x1600.jpg")
        let filled = try Thumbnailer(resize: .fill(width: 120, height: 120)).thumbnail(from: bytes)
        #expect(filled.width == 120 && filled.height == 120)
        let fitted = try Thumbnailer(resize: .fit(width: 256, height: 256)).thumbnail(from: bytes)
        #expect(fitted.width == 160 && fitted.height == 256, "EXIF 6: portrait after rotation")
    }

    @Test func smallSourcesAreNotUpscaledUnlessAsked() throws {
        let bytes = try TestImages.bytes("png_pal8_trns_debianlogo_256x256.png")
        let same = try Thumbnailer(resize: .fit(width: 512, height: 512)).thumbnail(from: bytes)
        #expect(same.width == 256)
        let larger = try Thumbnailer(resize: .fit(width: 512, height: 512), allowsUpscaling: true).thumbnail(from: bytes)
        #expect(larger.width == 512)
    }
}
