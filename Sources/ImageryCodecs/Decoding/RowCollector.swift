import Imagery

/// Collects decoded rows either straight into the result or through a ``BoxReducer``.
struct RowCollector {
    let width: Int
    let height: Int
    let factor: Int
    private var pixels: [UInt8]
    private let reducer: BoxReducer?
    private(set) var rowsReceived = 0

    init(width: Int, height: Int, factor: Int, hasAlpha: Bool) {
        self.width = width
        self.height = height
        self.factor = factor
        if factor > 1 {
            reducer = BoxReducer(sourceWidth: width, sourceHeight: height, factor: factor, hasAlpha: hasAlpha)
            pixels = []
        } else {
            reducer = nil
            // Not zero-filled: every row is written by the decoder, or padded by a lenient decode,
            // before the buffer is read; a failed decode discards it.
            pixels = [UInt8](unsafeUninitializedCapacity: width * height * 4) { _, count in count = width * height * 4 }
        }
    }

    var outputSize: PixelSize {
        reducer.map { PixelSize(width: $0.outputWidth, height: $0.outputHeight) } ?? PixelSize(width: width, height: height)
    }

    /// Lets `fill` write up to `maxRows` rows (4 bytes a pixel, tightly packed) and returns how many it wrote.
    mutating func fillRows<E: Error>(
        maxRows: Int, scratch: inout [UInt8],
        _ fill: (UnsafeMutablePointer<UInt8>, Int) throws(E) -> Int
    ) throws(E) -> Int {
        let count = min(maxRows, height - rowsReceived)
        guard count > 0 else { return 0 }
        let written: Int
        if reducer != nil {
            if scratch.count < count * width * 4 { scratch = [UInt8](repeating: 0, count: count * width * 4) }
            let result: Result<Int, E> = scratch.withUnsafeMutableBufferPointer { buffer in
                Result { () throws(E) -> Int in try fill(buffer.baseAddress!, count) }
            }
            written = try result.get()
            scratch.withUnsafeBufferPointer { buffer in
                reducer?.consume(rows: buffer.baseAddress!, bytesPerRow: width * 4, count: written)
            }
        } else {
            let offset = rowsReceived * width * 4
            let result: Result<Int, E> = pixels.withUnsafeMutableBufferPointer { buffer in
                Result { () throws(E) -> Int in try fill(buffer.baseAddress! + offset, count) }
            }
            written = try result.get()
        }
        rowsReceived += written
        return written
    }

    /// Fills the rows not yet received with opaque grey (lenient decodes of damaged data).
    mutating func padRemainingRows() {
        var scratch: [UInt8] = []
        let rowBytes = width * 4
        let grey = [UInt8](repeating: 0, count: width).flatMap { _ in [128, 128, 128, 255] as [UInt8] }
        while rowsReceived < height {
            _ = fillRows(maxRows: 16, scratch: &scratch) { (rows: UnsafeMutablePointer<UInt8>, count: Int) -> Int in
                for row in 0..<count {
                    grey.withUnsafeBufferPointer { (rows + row * rowBytes).update(from: $0.baseAddress!, count: rowBytes) }
                }
                return count
            }
        }
    }

    func finish() -> [UInt8] {
        reducer?.finish() ?? pixels
    }
}

extension RowCollector {
    /// A whole decoded plane (RGB or RGBA, rows `stride` bytes apart) as packed RGBA, box-reduced
    /// by `factor` on the way: for codecs that decode only at full size (HEVC, AV1, JPEG XL), so
    /// that a thumbnail's Lanczos stage starts from the draft, not from every source pixel.
    static func collect(
        plane: UnsafePointer<UInt8>, stride: Int, width: Int, height: Int, channels: Int, factor: Int, hasAlpha: Bool
    ) -> (pixels: [UInt8], size: PixelSize) {
        var collector = RowCollector(width: width, height: height, factor: factor, hasAlpha: hasAlpha)
        var scratch: [UInt8] = []
        var row = 0
        while row < height {
            row += collector.fillRows(maxRows: 16, scratch: &scratch) { (rows: UnsafeMutablePointer<UInt8>, count: Int) -> Int in
                for offset in 0..<count {
                    let source = plane + (row + offset) * stride
                    let target = rows + offset * width * 4
                    if channels == 4 {
                        target.update(from: source, count: width * 4)
                    } else {
                        for x in 0..<width {
                            target[x * 4] = source[x * 3]
                            target[x * 4 + 1] = source[x * 3 + 1]
                            target[x * 4 + 2] = source[x * 3 + 2]
                            target[x * 4 + 3] = 255
                        }
                    }
                }
                return count
            }
        }
        return (collector.finish(), collector.outputSize)
    }
}

extension RowCollector {
    /// A whole bitmap box-reduced by `factor` (an animation's composed frame, which its codec
    /// gives only at full size); premultiplied when it has alpha, as every reduction is.
    static func reduced(_ bitmap: Bitmap, factor: Int) -> Bitmap {
        guard factor > 1 else { return bitmap }
        let hasAlpha = bitmap.alphaMode != .opaque
        let (pixels, size) = bitmap.pixels.withUnsafeBufferPointer {
            collect(plane: $0.baseAddress!, stride: bitmap.bytesPerRow, width: bitmap.width, height: bitmap.height,
                    channels: 4, factor: factor, hasAlpha: hasAlpha)
        }
        var metadata = bitmap.metadata
        metadata.decodeScale = 1 / Double(factor)
        return Bitmap(width: size.width, height: size.height, pixels: pixels, alphaMode: hasAlpha ? .premultiplied : .opaque, metadata: metadata)
    }
}
