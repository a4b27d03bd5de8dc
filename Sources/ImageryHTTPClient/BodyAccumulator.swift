import NIOCore

/// Collects a response body in segments of at most 1 MiB and joins them once at the end, so
/// that reading up to the limit holds about the limit: one growing array would hold its old
/// and new buffers at each doubling, nearly twice the limit at the peak.
struct BodyAccumulator {
    static let segmentSize = 1 << 20

    private(set) var count = 0
    private var segments: [[UInt8]] = []
    private let firstCapacity: Int

    /// `declared` (the Content-Length, if any, already checked against the limit) sizes the
    /// first segment, so a small image is one allocation of its own size.
    init(declared: Int?) {
        firstCapacity = min(declared ?? Self.segmentSize, Self.segmentSize)
    }

    mutating func append(_ buffer: ByteBuffer) {
        var bytes = buffer.readableBytesView[...]
        count += bytes.count
        while !bytes.isEmpty {
            if segments.isEmpty || segments[segments.count - 1].count == Self.segmentSize {
                // Every segment is taken whole, never grown by doubling (which frees a block at
                // each step and left the peak at 1.9 times the limit); the first is the declared
                // length when the server gave one, so a small image is one exact allocation.
                var segment: [UInt8] = []
                segment.reserveCapacity(segments.isEmpty ? firstCapacity : Self.segmentSize)
                segments.append(segment)
            }
            let last = segments.count - 1
            let taken = bytes.prefix(Self.segmentSize - segments[last].count)
            segments[last].append(contentsOf: taken)
            bytes = bytes.dropFirst(taken.count)
        }
    }

    /// The body as one array.
    consuming func joined() -> [UInt8] {
        if segments.count == 1 { return segments[0] }
        var body: [UInt8] = []
        body.reserveCapacity(count)
        for segment in segments { body.append(contentsOf: segment) }
        return body
    }
}
