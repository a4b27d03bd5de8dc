import HTTPTypes

/// What went into an answer: the source's size in bytes and pixels, the result's pixels, and
/// the quality its encoder used. Every tier keeps them with the answer, whether or not they
/// are sent, so that turning `--enable-debug-headers` on shows them on hits too; sent, they
/// are imgproxy's debug headers (`X-Origin-Content-Length`, `X-Origin-Width`, `X-Origin-Height`,
/// `X-Result-Width`, `X-Result-Height`) and our `X-Imagery-Quality`.
struct ResponseFacts: Sendable, Hashable {
    /// The source's encoded size in bytes.
    var originBytes: Int?
    /// The source's stored width and height, before orientation (as imgproxy reports them).
    var originWidth: Int?
    var originHeight: Int?
    /// The answer's width and height, as encoded.
    var resultWidth: Int?
    var resultHeight: Int?
    /// The quality the answer was encoded at: the URL's or the server's, or the one
    /// autoquality chose; `nil` for a format without one (PNG, GIF, lossless WebP), for an
    /// animation (encoded frame by frame at the URL's quality) and for a source sent as it is.
    var quality: Int?

    /// Each fact's header, stored code and property (computed: key paths are not `Sendable`).
    private static var fields: [(name: HTTPField.Name, code: String, value: WritableKeyPath<ResponseFacts, Int?>)] {
        [
            (.xOriginContentLength, "ob", \.originBytes), (.xOriginWidth, "ow", \.originWidth), (.xOriginHeight, "oh", \.originHeight),
            (.xResultWidth, "rw", \.resultWidth), (.xResultHeight, "rh", \.resultHeight), (.xImageryQuality, "q", \.quality),
        ]
    }

    /// The headers that say them; none for a fact not known.
    var headers: [HTTPField] {
        Self.fields.compactMap { field in self[keyPath: field.value].map { HTTPField(name: field.name, value: String($0)) } }
    }

    /// How a tier stores them: `ob=482113,ow=1920,…`, header-safe, so that result storage
    /// keeps them as an object's metadata.
    var stored: String {
        Self.fields.compactMap { field in self[keyPath: field.value].map { "\(field.code)=\($0)" } }.joined(separator: ",")
    }

    /// The facts in `stored`; a part it does not know or cannot read is left out, so that an
    /// entry written by another version still answers.
    init(stored: String) {
        for part in stored.split(separator: ",") {
            let pieces = part.split(separator: "=", maxSplits: 1)
            guard pieces.count == 2, let value = Int(pieces[1]), value >= 0,
                  let field = Self.fields.first(where: { $0.code == pieces[0] })
            else { continue }
            self[keyPath: field.value] = value
        }
    }

    init(
        originBytes: Int? = nil, originWidth: Int? = nil, originHeight: Int? = nil, resultWidth: Int? = nil, resultHeight: Int? = nil,
        quality: Int? = nil
    ) {
        self.originBytes = originBytes
        self.originWidth = originWidth
        self.originHeight = originHeight
        self.resultWidth = resultWidth
        self.resultHeight = resultHeight
        self.quality = quality
    }
}

extension HTTPField.Name {
    static let xOriginContentLength = HTTPField.Name("X-Origin-Content-Length")!
    static let xOriginWidth = HTTPField.Name("X-Origin-Width")!
    static let xOriginHeight = HTTPField.Name("X-Origin-Height")!
    static let xResultWidth = HTTPField.Name("X-Result-Width")!
    static let xResultHeight = HTTPField.Name("X-Result-Height")!
    static let xImageryQuality = HTTPField.Name("X-Imagery-Quality")!
}
