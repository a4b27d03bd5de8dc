/// Room for encoders: an encode waits, in priority order, for the memory its encoder works in
/// beside the image, as decodes and processing runs wait for theirs.
extension PipelineGraph {
    /// Queues `waiter` for `pixels` of room: it is granted a hold when the room is free, or
    /// refused at once when `pixels` is more than one piece of work may ever take.
    func queueEncoding(_ waiter: EncodingWaiter, pixels: Int, priority: ImageRequest.Priority, source: String) {
        guard let pixelBudget, !waiter.isFinished else {
            waiter.finish(.failure(.cancelled))
            return
        }
        if let refusal = pixelBudget.refusal(of: pixels, for: "encoding") {
            waiter.finish(.failure(.processingFailed(source: source, refusal)))
            return
        }
        let id = ObjectIdentifier(waiter)
        let item = encodes.enqueue(priority: priority, cost: pixels) { [weak self] in
            guard let self else { return }
            // Released after this turn, when the item below is stored; weak, since a caller may
            // let its hold go after the pipeline itself has gone.
            let hold = PixelHold(pixels: pixels) { [weak self] in
                guard let self else { return }
                if let item = encodingItems.removeValue(forKey: id) { encodes.finished(item) }
                checkProbes()
            }
            if !waiter.finish(.success(hold)) { hold.release() }
        }
        encodingItems[id] = item
        checkProbes()
    }

    /// Takes back a waiter's place in the queue; one already granted keeps its hold.
    func withdrawEncoding(_ waiter: EncodingWaiter) {
        let id = ObjectIdentifier(waiter)
        guard let item = encodingItems[id] else { return }
        encodes.cancel(item)
        if item.isDone { encodingItems[id] = nil }
        checkProbes()
    }
}
