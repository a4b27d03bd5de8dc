/// Reduces an image by an integer factor while its rows stream out of a decoder.
///
/// Each output pixel is the mean of a `factor × factor` block (fewer at the right and
/// bottom edges). Rows are summed into one accumulator row as they arrive, so a 15 MP PNG
/// is reduced without ever holding it in memory. Alpha images are averaged premultiplied;
/// the result is then ``AlphaMode/premultiplied``.
package final class BoxReducer {
    package let factor: Int
    package let sourceWidth: Int
    package let sourceHeight: Int
    package let outputWidth: Int
    package let outputHeight: Int
    private let hasAlpha: Bool
    private let accumulator: UnsafeMutablePointer<UInt32>
    private var output: [UInt8]
    private var rowsInBand = 0
    private var rowsSeen = 0
    private var outputRow = 0

    package init(sourceWidth: Int, sourceHeight: Int, factor: Int, hasAlpha: Bool) {
        precondition(factor >= 1 && sourceWidth > 0 && sourceHeight > 0)
        self.factor = factor
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.outputWidth = (sourceWidth + factor - 1) / factor
        self.outputHeight = (sourceHeight + factor - 1) / factor
        self.hasAlpha = hasAlpha
        self.accumulator = .allocate(capacity: sourceWidth * 4)
        self.accumulator.initialize(repeating: 0, count: sourceWidth * 4)
        self.output = [UInt8](repeating: 0, count: outputWidth * outputHeight * 4)
    }

    deinit { accumulator.deallocate() }

    /// Adds `count` source rows of 8-bit RGBA (straight alpha).
    package func consume(rows: UnsafePointer<UInt8>, bytesPerRow: Int, count: Int) {
        for index in 0..<count where rowsSeen < sourceHeight {
            accumulate(rows + index * bytesPerRow)
            rowsSeen += 1
            rowsInBand += 1
            if rowsInBand == factor || rowsSeen == sourceHeight { emitBand() }
        }
    }

    /// Whether every source row has arrived.
    package var isComplete: Bool { rowsSeen == sourceHeight }

    /// The reduced pixels (valid once ``isComplete``).
    package func finish() -> [UInt8] { output }

    private func accumulate(_ row: UnsafePointer<UInt8>) {
        let sums = accumulator
        let count = sourceWidth * 4
        if hasAlpha {
            var index = 0
            while index < count {
                let alpha = UInt32(row[index + 3])
                sums[index] &+= UInt32(row[index]) &* alpha
                sums[index + 1] &+= UInt32(row[index + 1]) &* alpha
                sums[index + 2] &+= UInt32(row[index + 2]) &* alpha
                sums[index + 3] &+= alpha
                index += 4
            }
        } else {
            for index in 0..<count { sums[index] &+= UInt32(row[index]) }
        }
    }

    private func emitBand() {
        let sums = accumulator
        let rows = rowsInBand
        let colourScale: Float = hasAlpha ? 1 / 255 : 1
        output.withUnsafeMutableBufferPointer { out in
            let base = out.baseAddress! + outputRow * outputWidth * 4
            for x in 0..<outputWidth {
                let first = x * factor
                let columns = min(factor, sourceWidth - first)
                var total = SIMD4<UInt32>.zero
                for column in first..<(first + columns) {
                    total &+= UnsafeRawPointer(sums + column * 4).loadUnaligned(as: SIMD4<UInt32>.self)
                }
                let reciprocal = 1 / Float(columns * rows)
                let sum = SIMD4(Float(total.x), Float(total.y), Float(total.z), Float(total.w))
                var mean = sum * reciprocal
                mean = SIMD4(mean.x * colourScale, mean.y * colourScale, mean.z * colourScale, mean.w)
                // A mean of bytes (or of byte products over 255) is within 0...255: no clamp needed.
                UnsafeMutableRawPointer(base + x * 4).storeBytes(of: PixelConversion.bytes(mean), as: SIMD4<UInt8>.self)
            }
        }
        sums.update(repeating: 0, count: sourceWidth * 4)
        rowsInBand = 0
        outputRow += 1
    }
}
