@testable import Imagery
import Testing

/// The strings every memory- and disk-cache key is made of, pinned: a change to any of them
/// silently invalidates every cache on disk, so it must be a decision, made here, and never
/// the side effect of renaming a `description`.
@Suite("Cache identifiers are pinned")
struct CacheIdentifierTests {
    @Test("Every built-in processor's identifier")
    func processors() {
        let pinned: [(any ImageProcessing, String)] = [
            (ImageProcessors.Crop(width: 100, height: 80, gravity: .northEast), "crop(100x80,noea)"),
            (ImageProcessors.Fill(width: 300, height: 200, gravity: .smart), "fill(300x200,sm)"),
            (ImageProcessors.Fill(width: 300, height: 200, gravity: .focus(x: 0.25, y: 0.5), allowsUpscaling: true),
             "fill(300x200,fp:0.25:0.5,upscaling)"),
            (ImageProcessors.Rotate(degrees: 90), "rotate(90)"),
            (ImageProcessors.Flip(.horizontal), "flip(horizontal)"),
            (ImageProcessors.GaussianBlur(sigma: 2), "blur(2.0)"),
            (ImageProcessors.Sharpen(sigma: 1, amount: 1, threshold: 0), "sharpen(1.0,1.0,0)"),
            (ImageProcessors.RoundedCorners(radius: 12), "rounded(12.0)"),
            (ImageProcessors.Circle(), "circle"),
            (ImageProcessors.Background(color: RGBA(red: 1, green: 2, blue: 3)), "background(rgba(1, 2, 3, 255))"),
            (ImageProcessors.Pad(width: 64, height: 32, color: .white, gravity: .south), "pad(64x32,rgba(255, 255, 255, 255),so)"),
        ]
        for (processor, identifier) in pinned {
            #expect(processor.identifier == identifier)
        }
    }

    @Test("Every gravity, colour and resize as keys write them, apart from their descriptions")
    func parts() {
        let gravities: [(Gravity, String)] = [
            (.center, "ce"), (.north, "no"), (.south, "so"), (.east, "ea"), (.west, "we"), (.northEast, "noea"),
            (.northWest, "nowe"), (.southEast, "soea"), (.southWest, "sowe"), (.smart, "sm"), (.focus(x: 0.5, y: 1), "fp:0.5:1.0"),
        ]
        for (gravity, identifier) in gravities {
            #expect(gravity.identifier == identifier)
            #expect(gravity.description != identifier)
        }
        #expect(RGBA(red: 9, green: 8, blue: 7, alpha: 6).identifier == "rgba(9, 8, 7, 6)")
        let resizes: [(Resize, String)] = [
            (.fit(width: 3, height: 4), "fit 3x4"), (.fill(width: 5, height: 6), "fill 5x6"), (.width(7), "width 7"), (.height(8), "height 8"),
        ]
        for (resize, identifier) in resizes { #expect(resize.identifier == identifier) }
    }

    @Test("A processed image's disk key")
    func diskKey() {
        var options = ImageRequest.DecodeOptions()
        options.resize = .fill(width: 240, height: 240)
        options.allowsUpscaling = true
        options.policy = .lenient
        let key = ImageCacheKey(
            sourceKey: "https://example.com/a.jpg", decodeOptions: options,
            processors: [ImageProcessors.Circle(), ImageProcessors.GaussianBlur(sigma: 1)].cacheIdentifier
        )
        #expect(key.processedDataKey == "https://example.com/a.jpg#fill 240x240+upscaling+lenient#circle|blur(1.0)")
        #expect(ImageCacheKey(sourceKey: "https://example.com/a.jpg").processedDataKey == "https://example.com/a.jpg#original")
        // Every decode option away from its default, each in its place.
        options.ignoresEXIFOrientation = true
        options.prefersEmbeddedThumbnail = true
        options.keptMetadata = [.exif, .colorProfile]
        options.animation = AnimationLimits(maximumFrameCount: 9, maximumFramePixelCount: 100, delivery: .stream)
        #expect(
            ImageCacheKey(sourceKey: "s", decodeOptions: options, processors: "circle").processedDataKey
                == "s#fill 240x240+upscaling+lenient+exif-orientation-ignored+embedded-thumbnail+metadata:9#circle#animation:9:100:stream"
        )
    }

    @Test("Gravity names read both ways from one table")
    func gravityNames() {
        for (short, long, gravity) in Gravity.names {
            #expect(Gravity(name: short) == gravity && Gravity(name: long) == gravity && Gravity(name: long.uppercased()) == gravity)
            #expect(gravity.shortName == short)
        }
        #expect(Gravity(name: "centre") == .center)
        #expect(Gravity(name: "up") == nil)
        #expect(Gravity.focus(x: 0, y: 0).shortName == nil)
    }
}
