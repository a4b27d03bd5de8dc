extension ImagePipeline {
    /// Waits, in `priority` order, for `pixels` of the pixel budget's room for an encoder to
    /// work in beside the image it encodes, and charges them until the hold is released. At
    /// most ``Configuration/maximumConcurrentDecodes`` encodes hold room at once.
    ///
    /// A server charges each encode what its encoder holds beyond the image (libjxl's float
    /// planes, a JPEG's coefficients), so that encodes wait for room as decodes do, rather
    /// than take memory past the budget.
    ///
    /// ```swift
    /// let room = try await pipeline.encodingCharge(pixels: overhead, priority: .normal, source: "photo.jpg")
    /// defer { room?.release() }
    /// ```
    ///
    /// - Returns: `nil` without a budget, or for no pixels.
    /// - Throws: ``ImagePipelineError/cancelled`` when the caller is cancelled while waiting;
    ///   ``ImagePipelineError/processingFailed(source:_:)`` at once when `pixels` is more than
    ///   any one piece of work may take (``Configuration/decodingPixelCeiling``).
    package func encodingCharge(pixels: Int, priority: ImageRequest.Priority, source: String) async throws(ImagePipelineError) -> PixelHold? {
        guard pixels > 0, configuration.decodingPixelBudget != nil else { return nil }
        let waiter = EncodingWaiter()
        let outcome = await withTaskCancellationHandler {
            Task { @PipelineActor [graph] in graph.queueEncoding(waiter, pixels: pixels, priority: priority, source: source) }
            return await waiter.wait()
        } onCancel: {
            waiter.withdraw()
            Task { @PipelineActor [graph] in graph.withdrawEncoding(waiter) }
        }
        return try outcome.get()
    }
}
