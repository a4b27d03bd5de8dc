import Foundation
@testable import Imagery
import Testing

/// The decode options are one value that the memory-cache key, the processed image's disk key
/// and the decode stage's key each hold whole. The fields are found by reflection and changed
/// one at a time: a field added without a change here fails, and so would a key that left one out.
@Suite("Decode options are one value, in every key")
struct DecodeOptionsTests {
    /// One change away from the default for each field of ``ImageRequest/DecodeOptions``.
    static var changes: [String: (inout ImageRequest.DecodeOptions) -> Void] {
        [
            "resize": { $0.resize = .fit(width: 64, height: 64) },
            "allowsUpscaling": { $0.allowsUpscaling = true },
            "policy": { $0.policy = .lenient },
            "ignoresEXIFOrientation": { $0.ignoresEXIFOrientation = true },
            "prefersEmbeddedThumbnail": { $0.prefersEmbeddedThumbnail = true },
            "keptMetadata": { $0.keptMetadata = [.xmp] },
            "animation": { $0.animation = AnimationLimits(maximumFrameCount: 7) },
        ]
    }

    /// The fields the pipeline passes to the decode call itself, beside the codec's options.
    static let passedBesideCodecOptions: Set<String> = ["resize", "allowsUpscaling"]

    static var fields: [String] {
        Mirror(reflecting: ImageRequest.DecodeOptions()).children.compactMap { $0.label }
    }

    @Test("Every field of the decode options has a change here, and only they do")
    func everyFieldHasAChange() {
        #expect(Set(Self.fields) == Set(Self.changes.keys))
    }

    @Test("Each field changes the memory-cache key, the processed image's disk key, the decode key and, unless passed beside them, the codec's options")
    func eachFieldChangesEveryKey() throws {
        // Given the defaults' keys
        let base = ImageRequest.DecodeOptions()
        let baseKey = ImageCacheKey(sourceKey: "https://example.com/a.jpg", decodeOptions: base)
        let baseDecode = DecodeKey(fetch: FetchKey(source: baseKey.sourceKey, readsDisk: false), decodeOptions: base, maximumPixelCount: 1_000_000)
        for field in Self.fields {
            // When one field changes
            let change = try #require(Self.changes[field], "\(field) has no change in DecodeOptionsTests.changes")
            var options = base
            change(&options)
            // Then every key sees it
            let key = ImageCacheKey(sourceKey: baseKey.sourceKey, decodeOptions: options)
            #expect(key != baseKey, "\(field): the memory-cache key")
            #expect(key.processedDataKey != baseKey.processedDataKey, "\(field): the processed image's disk key")
            var decode = baseDecode
            decode.decodeOptions = options
            #expect(decode != baseDecode, "\(field): the decode key")
            if !Self.passedBesideCodecOptions.contains(field) {
                #expect(decode.codecOptions != baseDecode.codecOptions, "\(field): the codec's options")
            }
        }
    }

    @Test("A request's properties read and write its decode options, which its key holds whole")
    func requestPropertiesForward() {
        // Given a request set through its own properties
        var request = ImageRequest(url: URL(string: "https://example.com/a.jpg")!, resize: .width(300))
        request.allowsUpscaling = true
        request.decodingPolicy = .lenient
        request.ignoresEXIFOrientation = true
        request.prefersEmbeddedThumbnail = true
        request.keptMetadata = .all
        request.animation = AnimationLimits(maximumFrameCount: 3)
        request.animation?.delivery = .stream

        // Then its decode options say the same
        var expected = ImageRequest.DecodeOptions()
        expected.resize = .width(300)
        expected.allowsUpscaling = true
        expected.policy = .lenient
        expected.ignoresEXIFOrientation = true
        expected.prefersEmbeddedThumbnail = true
        expected.keptMetadata = .all
        expected.animation = AnimationLimits(maximumFrameCount: 3, delivery: .stream)
        #expect(request.decodeOptions == expected)

        // And so does its key, under the names keys had before too
        let key = ImagePipeline.cacheKey(for: request, loader: DataLoader())
        #expect(key.decodeOptions == expected)
        #expect(key.resize == Resize.width(300) && key.allowsUpscaling && key.policy == .lenient)
        #expect(key.ignoresEXIFOrientation && key.prefersEmbeddedThumbnail && key.keptMetadata == .all && key.animation == expected.animation)
    }

    @Test("The pixel limit, the priority, the cache options and previews stay out of the key")
    func otherFieldsStayOut() {
        // Given two requests that differ in whether, when and how they are answered, not with what
        let request = ImageRequest(url: URL(string: "https://example.com/a.jpg")!, resize: .width(300))
        var other = request
        other.maximumPixelCount = 1000
        other.priority = .veryHigh
        other.options = .reloadIgnoringCachedData
        other.progressivePreviews = true

        // Then they share a memory-cache key (a hit is checked against the limit apart)
        #expect(ImagePipeline.cacheKey(for: other, loader: DataLoader()) == ImagePipeline.cacheKey(for: request, loader: DataLoader()))
    }
}
