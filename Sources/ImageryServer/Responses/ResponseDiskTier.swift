import Imagery
import ImageryImgproxy
import NIOCore

/// Encoded responses on disk (a ``DataCaching`` store, the server's `DiskCache`) by the digest
/// of their ``ResponseVariantKey``: a hit is served without a download, a decode or an encode,
/// by any instance that shares the directory. Writes run in the background, tracked by
/// ``BackgroundWrites`` so that a graceful shutdown lets them land.
struct ResponseDiskTier: ResponseStoring {
    let store: any DataCaching
    let writes: BackgroundWrites
    /// How the headers of a hit are written.
    let policy: ResponseHeaderPolicy
    let metrics: ServerMetrics

    var tier: ServerMetrics.Tier { .disk }

    /// The stored response for `key`, or `nil`; an entry that does not parse, or one written in
    /// an older format, is a miss.
    func response(for key: ResponseVariantKey) async -> CachedResponse? {
        guard let stored = await store.cachedData(for: Self.name(key)) else { return nil }
        return Self.decode(stored, policy: policy)
    }

    /// Stores `response` under `key` in the background.
    func store(_ response: CachedResponse, for key: ResponseVariantKey) {
        let store = self.store, name = Self.name(key), bytes = Self.encode(response)
        metrics.responseWriteBegun(.disk)
        writes.run { await store.storeData(bytes, for: name) }
    }

    private static func name(_ key: ResponseVariantKey) -> String { "response/" + key.digest }

    // An entry, version 3: a magic; the content type, the ETag, the source's Cache-Control,
    // Expires and Last-Modified, and the answer's facts (``ResponseFacts/stored``), each a
    // 16-bit little-endian length and UTF-8, empty for none; a byte that says whether it varies
    // by Accept; when it was made (Unix seconds, 64-bit little-endian); then the body. The store
    // checksums the whole. Version 2 ("IMR2", without the facts) is still read, so that an
    // upgrade keeps what is stored; version 1 ("IMR1", without the source's freshness) reads as
    // a miss: its entries are made again, never misread.
    static let magic = Array("IMR3".utf8)
    private static let previousMagic = Array("IMR2".utf8)

    static func encode(_ response: CachedResponse) -> [UInt8] {
        var bytes = magic
        let fields = [
            response.contentType, response.etag, response.source.cacheControl ?? "", response.source.expires ?? "",
            response.source.lastModified ?? "", response.facts.stored,
        ]
        for field in fields {
            let utf8 = Array(field.utf8.prefix(Int(UInt16.max)))
            bytes += [UInt8(utf8.count & 0xFF), UInt8(utf8.count >> 8)]
            bytes += utf8
        }
        bytes.append(response.varyAccept ? 1 : 0)
        let madeAt = UInt64(bitPattern: Int64(response.madeAt))
        bytes += (0..<8).map { UInt8(truncatingIfNeeded: madeAt >> (8 * $0)) }
        bytes += response.body.readableBytesView
        return bytes
    }

    static func decode(_ bytes: [UInt8], policy: ResponseHeaderPolicy) -> CachedResponse? {
        let fieldCount: Int
        if bytes.starts(with: magic) {
            fieldCount = 6
        } else if bytes.starts(with: previousMagic) {
            fieldCount = 5
        } else {
            return nil
        }
        var offset = magic.count
        var fields: [String] = []
        for _ in 0..<fieldCount {
            guard offset + 2 <= bytes.count else { return nil }
            let length = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8
            offset += 2
            guard offset + length <= bytes.count else { return nil }
            fields.append(String(decoding: bytes[offset..<offset + length], as: UTF8.self))
            offset += length
        }
        guard offset + 9 <= bytes.count, !fields[0].isEmpty, !fields[1].isEmpty else { return nil }
        let varyAccept = bytes[offset] == 1
        let madeAt = Int(Int64(bitPattern: (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + 1 + $1]) << (8 * $1) }))
        offset += 9
        func optional(_ text: String) -> String? { text.isEmpty ? nil : text }
        return CachedResponse(
            body: ByteBuffer(bytes: bytes[offset...]), contentType: fields[0], etag: fields[1], varyAccept: varyAccept,
            source: SourceHeaders(cacheControl: optional(fields[2]), expires: optional(fields[3]), lastModified: optional(fields[4])),
            facts: ResponseFacts(stored: fields.count > 5 ? fields[5] : ""), madeAt: madeAt, policy: policy
        )
    }
}
