import Synchronization

/// Pixels charged to the pipeline's budget until ``release()``: a delivered image that a
/// server keeps charged while it encodes it, so new decodes wait instead of piling images up
/// behind the encoder, or the room an encoder works in (``ImagePipeline/encodingCharge(pixels:priority:source:)``).
/// Released at the latest when the hold is freed.
package final class PixelHold: Sendable {
    /// The pixels charged.
    package let pixels: Int
    private let returnPixels: @PipelineActor @Sendable () -> Void
    private let released = Atomic<Bool>(false)

    init(pixels: Int, release: @escaping @PipelineActor @Sendable () -> Void) {
        self.pixels = pixels
        self.returnPixels = release
    }

    /// Returns the pixels to the budget; later calls do nothing.
    package func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let returnPixels = returnPixels
        Task { @PipelineActor in returnPixels() }
    }

    deinit {
        release()
    }
}
