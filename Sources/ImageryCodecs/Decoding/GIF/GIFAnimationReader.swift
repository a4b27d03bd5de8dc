import Imagery

/// Every frame of a GIF, composed as browsers compose them: the canvas starts transparent,
/// each frame is drawn over it (its transparent index leaves the canvas as it was), and before
/// the next frame its rectangle is kept (disposal 0 and 1), cleared to transparent (2) or
/// restored to what it was before the frame (3). The canvas is held at full size, once; each
/// call returns a copy of it, so the caller decides how many frames it keeps.
struct GIFAnimationReader: AnimationFrameReading {
    let canvasSize: PixelSize
    let frameCount: Int
    /// From the NETSCAPE2.0 extension before the first frame, read at the start.
    let loopCount: Int
    /// Damage the lenient policy let through.
    private(set) var warnings: [String] = []

    private let bytes: [UInt8]
    private let options: DecodingOptions
    private var stream: GIFStream
    private var canvas: [UInt8]
    private var pendingDisposal: (rect: (left: Int, top: Int, width: Int, height: Int), mode: Int, saved: [UInt8]?)?

    /// Reads the header and the first frame's descriptor, so the canvas is known and checked
    /// against `options.maximumPixelCount` before it is allocated.
    init(_ bytes: [UInt8], options: DecodingOptions) throws(ImageError) {
        self.bytes = bytes
        self.options = options
        let result: Result<GIFStream, ImageError> = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(ImageError) -> GIFStream in try GIFStream(buffer) }
        }
        stream = try result.get()
        let screen = stream.screen
        frameCount = ImageHeader.frameCount(of: bytes, format: .gif)
        // A zero-sized screen takes the first frame's extent, as the still decoder does.
        let (extent, loopCount) = GIFStream.preamble(bytes)
        self.loopCount = loopCount
        canvasSize = PixelSize(width: screen.width > 0 ? screen.width : extent.width, height: screen.height > 0 ? screen.height : extent.height)
        guard canvasSize.width > 0, canvasSize.height > 0 else { throw .corrupt(.gif, detail: "the logical screen and the first frame are empty") }
        try options.checkPixelLimit(width: canvasSize.width, height: canvasSize.height)
        canvas = [UInt8](repeating: 0, count: canvasSize.width * canvasSize.height * 4)
    }

    mutating func nextFrame() throws(ImageError) -> AnimationFrame? {
        disposePrevious()
        var stream = self.stream
        let options = self.options
        let result: Result<GIFStream.Frame?, ImageError> = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(ImageError) -> GIFStream.Frame? in try stream.nextFrame(buffer, options: options) }
        }
        self.stream = stream
        guard let frame = try result.get() else { return nil }
        if let damage = frame.damage {
            if options.policy == .strict { throw .truncated(.gif, detail: damage) }
            warnings.append("frame \(stream.framesRead): \(damage)")
        }
        let rect = (left: frame.left, top: frame.top, width: frame.width, height: frame.height)
        pendingDisposal = (rect, frame.disposal, frame.disposal == 3 ? saved(rect) : nil)
        draw(frame)
        let metadata = ImageMetadata(format: .gif, originalWidth: canvasSize.width, originalHeight: canvasSize.height)
        var image = Bitmap(width: canvasSize.width, height: canvasSize.height, pixels: canvas, alphaMode: .straight, metadata: metadata)
        if !image.hasTransparency { image.alphaMode = .opaque }
        return AnimationFrame(image: image, duration: .milliseconds(frame.delay * 10))
    }

    private func clipped(_ rect: (left: Int, top: Int, width: Int, height: Int)) -> (x: Range<Int>, y: Range<Int>) {
        let x = min(rect.left, canvasSize.width)..<min(rect.left + rect.width, canvasSize.width)
        let y = min(rect.top, canvasSize.height)..<min(rect.top + rect.height, canvasSize.height)
        return (x, y)
    }

    private func saved(_ rect: (left: Int, top: Int, width: Int, height: Int)) -> [UInt8] {
        let (xs, ys) = clipped(rect)
        var copy: [UInt8] = []
        copy.reserveCapacity(xs.count * ys.count * 4)
        for y in ys {
            let start = (y * canvasSize.width + xs.lowerBound) * 4
            copy.append(contentsOf: canvas[start..<start + xs.count * 4])
        }
        return copy
    }

    private mutating func disposePrevious() {
        guard let (rect, mode, saved) = pendingDisposal else { return }
        pendingDisposal = nil
        let (xs, ys) = clipped(rect)
        guard !xs.isEmpty, !ys.isEmpty else { return }
        let rowBytes = xs.count * 4
        for (row, y) in ys.enumerated() {
            let start = (y * canvasSize.width + xs.lowerBound) * 4
            switch mode {
            case 2:
                canvas.withUnsafeMutableBufferPointer { $0.baseAddress!.advanced(by: start).update(repeating: 0, count: rowBytes) }
            case 3:
                if let saved { canvas.replaceSubrange(start..<start + rowBytes, with: saved[row * rowBytes..<(row + 1) * rowBytes]) }
            default:
                return
            }
        }
    }

    private mutating func draw(_ frame: GIFStream.Frame) {
        let (xs, ys) = clipped((frame.left, frame.top, frame.width, frame.height))
        guard !xs.isEmpty else { return }
        let width = canvasSize.width
        canvas.withUnsafeMutableBufferPointer { canvas in
            for y in ys { frame.draw(row: y - frame.top, onto: canvas.baseAddress! + y * width * 4, canvasWidth: width) }
        }
    }
}
