/// Collects a response body in segments of at most 1 MiB and joins them once at the end, so
/// that reading a body up to a loader's limit holds about the limit: one growing array would
/// hold its old and new buffers at each doubling, nearly twice the limit at the peak.
struct BodyAccumulator {
    static let segmentSize = 1 << 20

    private(set) var count = 0
    private var segments: [[UInt8]] = []
    private let firstCapacity: Int

    /// `declared` (a length the source gave) sizes the first segment, so a small image is one
    /// allocation of its own size; it is trusted only up to one segment, since a hostile source
    /// could claim a large length and then drip bytes.
    init(declared: Int64?) {
        firstCapacity = Int(min(max(declared ?? Int64(Self.segmentSize), 0), Int64(Self.segmentSize)))
    }

    mutating func append(_ chunk: [UInt8]) {
        if segments.isEmpty, chunk.count >= firstCapacity {
            // A body that comes in one chunk (a file, a closure's bytes) is kept as it is.
            segments.append(chunk)
            count = chunk.count
            return
        }
        var bytes = chunk[...]
        count += bytes.count
        while !bytes.isEmpty {
            if segments.isEmpty || segments[segments.count - 1].count >= Self.segmentSize {
                // Every segment is taken whole, never grown by doubling; the first is the
                // declared length when the source gave one.
                var segment: [UInt8] = []
                segment.reserveCapacity(segments.isEmpty ? firstCapacity : Self.segmentSize)
                segments.append(segment)
            }
            let last = segments.count - 1
            let taken = bytes.prefix(max(Self.segmentSize - segments[last].count, 0))
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
