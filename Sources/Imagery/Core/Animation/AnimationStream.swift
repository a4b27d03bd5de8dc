/// An animation that is read, resized and processed one frame at a time, when its frames are
/// asked for: it holds its source bytes and its first frame, never every frame.
///
/// The pipeline returns one in ``ImageResponse/animationStream`` when the request asks for
/// animation with ``AnimationLimits/Delivery-swift.enum/stream``. Its header and limits were
/// checked when it was made, and its first frame (``poster``) decoded and processed; the other
/// frames are decoded, resized and processed by ``Frames/next()``. A server that encodes each
/// frame as it comes (imagery-server does) holds one frame and the encoder's output, whatever
/// the frame count.
///
/// ```swift
/// var request = ImageRequest(url: gifURL, resize: .fit(width: 320, height: 320))
/// request.animation = AnimationLimits(delivery: .stream)
/// if let stream = try await pipeline.response(for: request).animationStream {
///     var writer = try ImageEncoder(format: .webp).animationWriter(loopCount: stream.loopCount)
///     var frames = stream.frames()
///     while let frame = try await frames.next() { try writer.add(frame) }
///     let webp = try writer.finish()
/// }
/// ```
///
/// Reading a frame is a decode: call ``Frames/next()`` from work that may take the CPU, not
/// from the main actor.
public struct AnimationStream: Sendable {
    /// The most frames ``frames()`` yields: the source's count within the frame limit. A
    /// source whose data ends early yields fewer.
    public let frameCount: Int
    /// How many times the animation plays: 0 for ever.
    public let loopCount: Int
    /// The first frame, resized and processed as every frame is: what a still-image consumer shows.
    public private(set) var poster: Bitmap
    /// Named in the errors of later frames.
    var source = "animation"
    private let sourceByteCount: Int
    private let open: @Sendable () throws(ImageError) -> any AnimationFrameReading
    private var processors: [(processor: any ImageProcessing, context: ImageProcessingContext)] = []

    /// A stream of at most `frameCount` frames from the readers `open` makes, each of which
    /// starts at the first frame and yields frames already resized; `poster` is the first of
    /// them, and `sourceByteCount` the size of the source `open` keeps. Decoders make streams
    /// (``ImageDecoding/animationStream(_:resize:allowsUpscaling:options:)``); the pipeline adds
    /// the request's processors.
    public init(
        frameCount: Int, loopCount: Int, poster: Bitmap, sourceByteCount: Int,
        open: @escaping @Sendable () throws(ImageError) -> any AnimationFrameReading
    ) {
        self.frameCount = frameCount
        self.loopCount = max(0, loopCount)
        self.poster = poster
        self.sourceByteCount = sourceByteCount
        self.open = open
    }

    /// The bytes it keeps in memory, its poster's pixels and its source, for cache costs.
    public var byteCount: Int { poster.pixels.count + sourceByteCount }

    /// The same stream with `processors` run, in order, on every frame it yields (as
    /// `context` tells them) and on its poster now.
    func processed(by processors: [any ImageProcessing], context: ImageProcessingContext, poster: Bitmap) -> AnimationStream {
        var stream = self
        stream.processors += processors.map { ($0, context) }
        stream.poster = poster
        return stream
    }

    /// An iterator over the frames, from the first; each call of ``frames()`` starts again.
    public func frames() -> Frames { Frames(stream: self) }

    /// Reads the frames of an ``AnimationStream`` in order.
    public struct Frames {
        private let stream: AnimationStream
        private var reader: (any AnimationFrameReading)?
        private var yielded = 0

        init(stream: AnimationStream) { self.stream = stream }

        /// The next frame, decoded, resized and processed, or `nil` after the last.
        ///
        /// - Throws: ``ImagePipelineError/decodingFailed(source:_:)`` for a damaged frame (a
        ///   lenient decode ends the animation there instead), ``ImagePipelineError/processingFailed(source:_:)``
        ///   when a processor fails, and ``ImagePipelineError/cancelled`` when the task is
        ///   cancelled; frames already returned stay valid, but the animation is incomplete.
        public mutating func next() async throws(ImagePipelineError) -> AnimationFrame? {
            guard yielded < stream.frameCount else { return nil }
            if Task.isCancelled { throw .cancelled }
            var frame: AnimationFrame
            do throws(ImageError) {
                if reader == nil { reader = try stream.open() }
                guard let next = try reader?.nextFrame() else { return nil }
                frame = next
            } catch {
                throw .decodingFailed(source: stream.source, error)
            }
            yielded += 1
            for (processor, context) in stream.processors {
                if Task.isCancelled { throw .cancelled }
                do throws(ImageError) {
                    frame.image = try await processor.process(frame.image, context: context)
                } catch {
                    throw .processingFailed(source: stream.source, error)
                }
            }
            return frame
        }
    }
}
