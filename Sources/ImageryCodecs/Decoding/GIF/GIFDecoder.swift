import Imagery

/// GIF, first frame, in Swift (libgif is not on a fresh machine); ``GIFAnimationReader``
/// reads every frame. The frame is composed onto a transparent canvas of the logical screen
/// size, a band of rows at a time through the box reducer, so a draft decode holds the reduced
/// canvas, never the full one: a 62-byte file that declares a 10000×10000 screen around a 1×1
/// frame costs the draft's size, not 400 MB. Every read is bounds-checked and LZW output is
/// capped at the frame size, so hostile data ends in an error, never an overrun or a loop.
struct GIFDecoder: FormatDecoding {
    func decode(_ bytes: UnsafeBufferPointer<UInt8>, options: DecodingOptions) throws(ImageError) -> DecodedImage {
        var stream = try GIFStream(bytes)
        guard let frame = try stream.nextFrame(bytes, options: options), let canvas = stream.canvas else {
            throw .corrupt(.gif, detail: "file has no image (trailer before the first frame)")
        }
        var warnings: [String] = []
        if let damage = frame.damage {
            if options.policy == .strict { throw .truncated(.gif, detail: damage) }
            warnings.append(damage)
        }
        let (left, top, width, height) = (frame.left, frame.top, frame.width, frame.height)
        let coversCanvas = left == 0 && top == 0 && left + width >= canvas.width && top + height >= canvas.height
        let hasTransparency = !coversCanvas || frame.transparentIndex.map { index in frame.indices.contains { Int($0) == index } } ?? false
        let scale = options.draftScale(storedSize: canvas, orientation: .up)
        let factor = DecodingOptions.boxFactor(forScale: scale)
        var collector = RowCollector(width: canvas.width, height: canvas.height, factor: factor, hasAlpha: hasTransparency)
        var scratch: [UInt8] = []
        let rowBytes = canvas.width * 4
        while collector.rowsReceived < canvas.height {
            let first = collector.rowsReceived
            _ = collector.fillRows(maxRows: 16, scratch: &scratch) { (rows: UnsafeMutablePointer<UInt8>, count: Int) -> Int in
                rows.initialize(repeating: 0, count: count * rowBytes)   // transparent
                for band in 0..<count {
                    let y = first + band - top
                    guard y >= 0, y < height else { continue }
                    frame.draw(row: y, onto: rows + band * rowBytes, canvasWidth: canvas.width)
                }
                return count
            }
        }
        let size = collector.outputSize
        let metadata = ImageMetadata(
            format: .gif, originalWidth: canvas.width, originalHeight: canvas.height,
            decodeScale: 1 / Double(factor), warnings: warnings
        )
        let alphaMode: AlphaMode = !hasTransparency ? .opaque : (factor > 1 ? .premultiplied : .straight)
        let bitmap = Bitmap(
            width: size.width, height: size.height, pixels: collector.finish(),
            alphaMode: alphaMode, metadata: metadata
        )
        return DecodedImage(bitmap: bitmap, iccProfile: nil)
    }
}
