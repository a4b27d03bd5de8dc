import Imagery

extension Bitmap {
    /// Copies the pixels row by row to `destination`, whose rows are `stride` bytes apart: as
    /// RGBA, or as packed RGB with alpha dropped, the two layouts the C encoders take.
    func copyRows(to destination: UnsafeMutablePointer<UInt8>, stride: Int, keepingAlpha: Bool) {
        pixels.withUnsafeBufferPointer { pixels in
            guard let source = pixels.baseAddress else { return }
            for row in 0..<height {
                let from = source + row * bytesPerRow, to = destination + row * stride
                if keepingAlpha {
                    to.update(from: from, count: width * 4)
                } else {
                    for column in 0..<width {
                        to[column * 3] = from[column * 4]
                        to[column * 3 + 1] = from[column * 4 + 1]
                        to[column * 3 + 2] = from[column * 4 + 2]
                    }
                }
            }
        }
    }
}
