import Foundation
@testable import Imagery
import ImageryCodecs
import ImageryTestSupport
import Testing

/// Decodes run on threads of their own: with every one of them busy in a decode that has not
/// returned, work on the cooperative pool (a server's health check) still runs.
@Suite(.timeLimit(.minutes(3)))
struct HeavyWorkTests {
    /// A decoder that keeps its thread busy computing until the test releases it, as the decode
    /// of a huge image does. (Busy, not blocked: a thread blocked in a wait is not what starves a
    /// pool; one that computes is.)
    struct BusyDecoder: ImageDecoding {
        let released: Locked<Bool>
        let started: EventCounter

        func decode(_ data: [UInt8], options: DecodingOptions) throws(ImageError) -> Bitmap {
            started.record("decode")
            // Bounded: a test that fails before releasing must not leave threads spinning.
            let giveUp = ContinuousClock.now + .seconds(20)
            while !released.withLock({ $0 }), ContinuousClock.now < giveUp {}
            started.record("done")
            return try ImageDecoder().decode(data, options: options)
        }

        func decode(_ data: [UInt8], resize: Resize, allowsUpscaling: Bool, options: DecodingOptions) throws(ImageError) -> Bitmap {
            try decode(data, options: options)
        }
    }

    @Test("With every heavy-work thread busy in a decode, the cooperative pool still runs other work")
    func decodesLeaveThePoolFree() async throws {
        let released = Locked(false)
        defer { released.withLock { $0 = true } }
        let started = EventCounter()
        let threads = ProcessInfo.processInfo.activeProcessorCount
        let pipeline = ImagePipeline(configuration: .standard.with {
            $0.decoder = BusyDecoder(released: released, started: started)
            $0.maximumConcurrentDecodes = threads
            $0.imageCache = nil
        })

        // Given one busy decode per core: as many as the cooperative pool has threads
        let images = (0..<threads).map { index in
            pipeline.imageTask(with: ImageRequest(source: .custom(id: "held-\(index)") { Fixtures.gif }))
        }
        #expect(await started.wait(for: "decode", count: threads))

        // Then a task on the cooperative pool runs to its end while they are all still busy
        let answered = await Task.detached { started.count("done") == 0 }.value
        #expect(answered, "the pool ran the task only once the decodes had ended")
        released.withLock { $0 = true }
        for image in images { #expect(try await image.response.image.width == 256) }
    }
}
