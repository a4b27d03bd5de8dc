import Foundation
@testable import Imagery
import ImageryCodecs
import ImageryTestSupport
import Testing

/// Decodes run on threads of their own: with every one of them busy in a decode that has not
/// returned, work on the cooperative pool (a server's health check) still runs.
@Suite(.timeLimit(.minutes(10)))
struct HeavyWorkTests {
    /// A decoder that keeps its thread busy computing until the test releases it, as the decode
    /// of a huge image does. (Busy, not blocked: a thread blocked in a wait is not what starves a
    /// pool; one that computes is.)
    struct BusyDecoder: ImageDecoding {
        let released: Locked<Bool>
        let started: EventCounter

        func decode(_ data: [UInt8], options: DecodingOptions) throws(ImageError) -> Bitmap {
            started.record("decode")
            // Bounded: a test that fails before releasing must not leave threads spinning. The
            // test releases it as soon as its task has run; the bound is only for a pool that
            // never runs it, and is long, since in a full run hundreds of suites' jobs queue on
            // the pool ahead of that task (twenty seconds were once not enough).
            let giveUp = ContinuousClock.now + .seconds(300)
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
        // (at high priority, so that it goes ahead of the jobs other suites queue on the pool)
        let answered = await Task.detached(priority: .high) { started.count("done") == 0 }.value
        #expect(answered, "the pool ran the task only once the decodes had ended")
        released.withLock { $0 = true }
        for image in images { #expect(try await image.response.image.width == 256) }
    }
}

/// Downloads wait while the sources already downloaded wait for a decode: a source fetched
/// faster than it can be decoded is held in memory, so memory stays bounded by the download
/// limit, not by the number of requests.
///
/// Its test holds a decode on a blocked heavy-work thread, so it runs in the serialized suite
/// of the other tests that do (``DecodeCancellationTests``): two held at once would hold both
/// threads of a 2-core machine, and a test waiting for a decode to end would wait for ever.
extension DecodeCancellationTests {
    /// A decoder that holds its thread until the test opens the gate.
    struct GatedDecoder: ImageDecoding {
        let gate: Gate

        func decode(_ data: [UInt8], options: DecodingOptions) throws(ImageError) -> Bitmap {
            gate.wait()
            return try ImageDecoder().decode(data, options: options)
        }

        func decode(_ data: [UInt8], resize: Resize, allowsUpscaling: Bool, options: DecodingOptions) throws(ImageError) -> Bitmap {
            try decode(data, options: options)
        }
    }

    @Test("With the one decode slot held, no more sources are downloaded than can wait for it")
    func downloadsWaitForDecodes() async throws {
        let gate = Gate()
        defer { gate.open() }
        let loads = Locked(0)
        let pipeline = ImagePipeline(configuration: .standard.with {
            $0.decoder = GatedDecoder(gate: gate)
            $0.maximumConcurrentDecodes = 1
            $0.maximumConcurrentDownloads = 2
            $0.imageCache = nil
        })

        // Given 8 distinct sources asked for at once
        let tasks = (0..<8).map { index in
            pipeline.imageTask(with: ImageRequest(source: .custom(id: "source-\(index)") {
                loads.withLock { $0 += 1 }
                return Fixtures.gif
            }))
        }
        // When the graph settles: one decode held, two sources waiting for it, no download running
        await pipeline.graph.waitUntil { $0.decodes.running == 1 && $0.decodes.waitingCount == 2 && $0.downloads.running == 0 }

        // Then the rest have not been downloaded
        #expect(loads.withLock { $0 } == 3)
        #expect(await pipeline.graph.downloads.waitingCount == 5)
        gate.open()
        for task in tasks { #expect(try await task.response.image.width == 256) }
        #expect(loads.withLock { $0 } == 8)
    }
}
