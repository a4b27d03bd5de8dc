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
    let cacheControl: String
    let metrics: ServerMetrics

    var tier: ServerMetrics.Tier { .disk }

    /// The stored response for `key`, or `nil`; an entry that does not parse is a miss.
    func response(for key: ResponseVariantKey) async -> CachedResponse? {
        guard let stored = await store.cachedData(for: Self.name(key)) else { return nil }
        return Self.decode(stored, cacheControl: cacheControl)
    }

    /// Stores `response` under `key` in the background.
    func store(_ response: CachedResponse, for key: ResponseVariantKey) {
        let store = self.store, name = Self.name(key), bytes = Self.encode(response)
        metrics.responseWriteBegun(.disk)
        writes.run { await store.storeData(bytes, for: name) }
    }

    private static func name(_ key: ResponseVariantKey) -> String { "response/" + key.digest }

    // An entry: a magic, the content type and the ETag (each a length byte and UTF-8), a byte
    // that says whether it varies by Accept, then the body. The store checksums the whole.
    private static let magic = Array("IMR1".utf8)

    static func encode(_ response: CachedResponse) -> [UInt8] {
        var bytes = magic
        for field in [response.contentType, response.etag] {
            let utf8 = Array(field.utf8.prefix(255))
            bytes.append(UInt8(utf8.count))
            bytes += utf8
        }
        bytes.append(response.varyAccept ? 1 : 0)
        bytes += response.body.readableBytesView
        return bytes
    }

    static func decode(_ bytes: [UInt8], cacheControl: String) -> CachedResponse? {
        guard bytes.starts(with: magic) else { return nil }
        var offset = magic.count
        var fields: [String] = []
        for _ in 0..<2 {
            guard offset < bytes.count else { return nil }
            let length = Int(bytes[offset])
            offset += 1
            guard offset + length <= bytes.count else { return nil }
            fields.append(String(decoding: bytes[offset..<offset + length], as: UTF8.self))
            offset += length
        }
        guard offset < bytes.count else { return nil }
        let varyAccept = bytes[offset] == 1
        offset += 1
        return CachedResponse(
            body: ByteBuffer(bytes: bytes[offset...]), contentType: fields[0], etag: fields[1],
            varyAccept: varyAccept, cacheControl: cacheControl
        )
    }
}
