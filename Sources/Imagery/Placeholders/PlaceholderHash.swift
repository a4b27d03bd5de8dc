import Foundation

/// A placeholder an API ships beside an image's URL, a ThumbHash or a BlurHash of 20–30 bytes,
/// which a view shows in its first frame, before any network, until the image arrives.
///
/// Put it in ``ImageRequest/placeholder``; `ImageryUI`'s model and views then show its
/// ``image`` while the request loads. Decoded placeholders are cached by hash, so a list that
/// scrolls back decodes none twice.
///
/// ```swift
/// var request = ImageRequest(url: photo.url)
/// request.placeholder = PlaceholderHash(thumbHashBase64: photo.thumbHash)   // from your JSON
/// let preview = request.placeholder?.image                                  // about 32 × 24, blurred
/// ```
public enum PlaceholderHash: Sendable, Hashable {
    /// A ThumbHash, which keeps the image's aspect ratio and transparency.
    case thumbHash(ThumbHash)
    /// A BlurHash, with the aspect ratio (width over height) to decode it at: the hash does not
    /// keep one.
    case blurHash(BlurHash, aspectRatio: Double)

    /// A ThumbHash from its base64 form (the reference implementation's), or `nil`.
    public init?(thumbHashBase64 text: String) {
        guard let data = Data(base64Encoded: text), let hash = ThumbHash(bytes: Array(data)) else { return nil }
        self = .thumbHash(hash)
    }

    /// A ThumbHash from its hex form (what `imagery-server`'s `/info` answers for `th:1`), or `nil`.
    public init?(thumbHashHex text: String) {
        guard let bytes = Hex.decode(text), let hash = ThumbHash(bytes: bytes) else { return nil }
        self = .thumbHash(hash)
    }

    /// A BlurHash from its string, to be decoded at `aspectRatio` (width over height), or `nil`.
    public init?(blurHash text: String, aspectRatio: Double) {
        guard let hash = BlurHash(string: text), aspectRatio.isFinite, aspectRatio > 0 else { return nil }
        self = .blurHash(hash, aspectRatio: aspectRatio)
    }

    /// The decoded placeholder, 32 pixels on its long side, from a process-wide cache of
    /// recently decoded ones. Decoding is pure arithmetic on a few dozen coefficients.
    public var image: Bitmap {
        PlaceholderCache.shared.image(for: self)
    }

    /// Decodes without the cache.
    func decode() -> Bitmap {
        switch self {
        case let .thumbHash(hash):
            return hash.image()
        case let .blurHash(hash, aspectRatio):
            let landscape = aspectRatio >= 1
            let width = landscape ? 32 : max(1, Int((32 * aspectRatio).rounded()))
            let height = landscape ? max(1, Int((32 / aspectRatio).rounded())) : 32
            return hash.image(width: width, height: height)
        }
    }
}

/// Recently decoded placeholders, keyed by their hash: a bounded map, the oldest insertion
/// leaving first. Placeholders are a few KB each, so the bound is about a screenful of lists.
final class PlaceholderCache: Sendable {
    static let shared = PlaceholderCache(capacity: 256)

    private struct State {
        var images: [PlaceholderHash: Bitmap] = [:]
        var order: [PlaceholderHash] = []
        var decodes = 0
    }

    private let capacity: Int
    private let state = Locked(State())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// How many decodes this cache has run (for tests).
    var decodeCount: Int { state.withLock { $0.decodes } }

    func image(for hash: PlaceholderHash) -> Bitmap {
        if let image = state.withLock({ $0.images[hash] }) { return image }
        let image = hash.decode()   // outside the lock: two threads may both decode a new hash once
        state.withLock { state in
            state.decodes += 1
            guard state.images.updateValue(image, forKey: hash) == nil else { return }
            state.order.append(hash)
            if state.order.count > capacity { state.images[state.order.removeFirst()] = nil }
        }
        return image
    }
}
