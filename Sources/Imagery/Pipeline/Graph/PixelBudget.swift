import Foundation
import Metrics

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
    /// The most pixels one piece of work may be charged (by default the machine's physical
    /// memory at 4 bytes a pixel): work larger than the budget runs alone (once no other work
    /// runs), work larger than this is refused with an error.
    let ceiling: Int
    /// The pixels charged now.
    private(set) var inUse = 0
    /// The part of ``inUse`` that callers hold (``PixelHold``): images delivered and not yet
    /// let go, which their callers release in bounded time (a server, once encoded).
    private(set) var heldByCallers = 0
    /// The queues offered room when pixels are released, in this order: processing first, so
    /// images already decoded finish before new ones are made.
    private var queues: [WeakQueue] = []

    private struct WeakQueue {
        weak var queue: WorkQueue?
    }

    /// Whether work larger than the room waits for callers' holds to go before it runs alone
    /// (``ImagePipeline/Configuration/largeWorkWaitsForHolds``).
    let largeWorkWaitsForHolds: Bool

    /// `<prefix>_memory_charged_bytes`, by kind: work (decodes, runs and their waiting inputs,
    /// encoders) and delivered (images callers hold); 4 bytes a pixel.
    private let chargedWork: Meter
    private let chargedDelivered: Meter

    nonisolated init(
        limit: Int, ceiling: Int = Int(clamping: ProcessInfo.processInfo.physicalMemory) / 4, largeWorkWaitsForHolds: Bool = false,
        metricsPrefix: String = "imagery"
    ) {
        self.limit = max(1, limit)
        self.ceiling = ceiling
        self.largeWorkWaitsForHolds = largeWorkWaitsForHolds
        chargedWork = Meter(label: "\(metricsPrefix)_memory_charged_bytes", dimensions: [("kind", "work")])
        chargedDelivered = Meter(label: "\(metricsPrefix)_memory_charged_bytes", dimensions: [("kind", "delivered")])
    }

    /// Sets the gauges to what is charged now.
    private func report() {
        chargedWork.set(Double(inUse - heldByCallers) * 4)
        chargedDelivered.set(Double(heldByCallers) * 4)
    }

    /// Whether callers' holds let work larger than the room run alone now: always, unless it
    /// waits for them and some are held.
    var holdsLetWorkRunAlone: Bool {
        !largeWorkWaitsForHolds || heldByCallers == 0
    }

    /// The items running in the queues that share the budget: the work that will release
    /// pixels. When there is none, only callers' holds and waiting inputs are charged.
    var runningItems: Int {
        queues.reduce(0) { $0 + ($1.queue?.running ?? 0) }
    }

    /// Why work of `pixels` can never run, even alone: it is past ``ceiling``; `nil` when it
    /// may run. `what` names the work in the message ("processing").
    func refusal(of pixels: Int, for what: String) -> ImageError? {
        guard pixels > ceiling else { return nil }
        return .invalidRequest("\(what) needs about \(pixels >> 18) MB at once, more than the \(ceiling >> 18) MB that images may take")
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
        report()
    }

    func release(_ pixels: Int) {
        inUse -= pixels
        report()
        for entry in queues { entry.queue?.retry() }
    }

    /// A hold of `pixels`, charged now, for a caller to release when it lets its image go.
    func hold(_ pixels: Int) -> PixelHold {
        heldByCallers += pixels
        charge(pixels)
        return PixelHold(pixels: pixels) { [self] in releaseHold(pixels) }
    }

    /// Returns a hold's pixels.
    func releaseHold(_ pixels: Int) {
        heldByCallers -= pixels
        release(pixels)
    }
}
