import Foundation
import Synchronization

/// The pixels that the pipeline's bitmaps may hold at once, across requests: one budget that
/// the decode and processing queues share (``ImagePipeline/Configuration/decodingPixelBudget``).
///
/// Work is charged before it starts and waits for room (``WorkQueue``); what already exists is
/// charged without waiting and released when it goes: a decoded image while it waits for its
/// processing run, and a delivered image that a caller holds while it encodes (``PixelHold``).
/// A delivery is charged before the run that made it releases its own charge, so no new work
/// slips in between.
@PipelineActor
final class PixelBudget {
    let limit: Int
    /// The most pixels the machine could hold, its physical memory at 4 bytes a pixel: work
    /// larger than the budget runs alone (once no other work runs), work larger than this is
    /// refused with an error.
    let ceiling: Int
    /// The pixels charged now.
    private(set) var inUse = 0
    /// The queues offered room when pixels are released, in this order: processing first, so
    /// images already decoded finish before new ones are made.
    private var queues: [WeakQueue] = []

    private struct WeakQueue {
        weak var queue: WorkQueue?
    }

    nonisolated init(limit: Int, ceiling: Int = Int(clamping: ProcessInfo.processInfo.physicalMemory) / 4) {
        self.limit = max(1, limit)
        self.ceiling = ceiling
    }

    /// The items running in the queues that share the budget: the work that will release
    /// pixels. When there is none, only callers' holds and waiting inputs are charged.
    var runningItems: Int {
        queues.reduce(0) { $0 + ($1.queue?.running ?? 0) }
    }

    /// Whether `pixels` more fit now.
    func fits(_ pixels: Int) -> Bool {
        inUse + pixels <= limit
    }

    func register(_ queue: WorkQueue) {
        queues.append(WeakQueue(queue: queue))
    }

    /// Charges pixels that are already held: never waits.
    func charge(_ pixels: Int) {
        inUse += pixels
    }

    func release(_ pixels: Int) {
        inUse -= pixels
        for entry in queues { entry.queue?.retry() }
    }

    /// A hold of `pixels`, charged now, for a caller to release when it lets its image go.
    func hold(_ pixels: Int) -> PixelHold {
        charge(pixels)
        return PixelHold(budget: self, pixels: pixels)
    }
}

/// A delivered image's pixels, charged to the pipeline's budget until ``release()``: a server
/// keeps its response's image charged while it encodes it, so new decodes wait instead of
/// piling images up behind the encoder. Released at the latest when the hold is freed.
package final class PixelHold: Sendable {
    private let budget: PixelBudget
    /// The pixels charged.
    package let pixels: Int
    private let released = Atomic<Bool>(false)

    init(budget: PixelBudget, pixels: Int) {
        self.budget = budget
        self.pixels = pixels
    }

    /// Returns the pixels to the budget; later calls do nothing.
    package func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let (budget, pixels) = (budget, pixels)
        Task { @PipelineActor in budget.release(pixels) }
    }

    deinit {
        release()
    }
}
