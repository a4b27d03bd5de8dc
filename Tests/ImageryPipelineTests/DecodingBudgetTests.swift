@testable import Imagery
import ImageryCodecs
import ImageryTestSupport
import Testing

/// `decodingPixelBudget`: decodes across requests queue for room in a budget of pixels instead
/// of all running at once (what each is charged: `PixelBudgetTests`).
@Suite(.timeLimit(.minutes(10)))
struct DecodingBudgetTests {
    @Test("A pipeline's draft headroom reaches the decoder: 1 decodes smaller than 2, to the same output size")
    func draftHeadroom() async throws {
        func load(headroom: Int) async throws -> (Bitmap, Int) {
            let decoded = EventCounter()
            let loader = ControlledLoader { _ in Fixtures.meadow }
            loader.releaseAll()
            let pipeline = ImagePipeline(configuration: .standard.with {
                $0.dataLoader = loader
                $0.decoder = ScaleRecordingDecoder(decoded: decoded)
                $0.draftHeadroom = headroom
            })
            let image = try await pipeline.response(for: ImageRequest(source: .controlled("meadow"), resize: .fit(width: 160, height: 160))).image
            return (image, decoded.count("draft:\(Resize.fit(width: 160 * headroom, height: 160 * headroom))"))
        }
        let (fine, fineDrafts) = try await load(headroom: 2)
        let (fast, fastDrafts) = try await load(headroom: 1)
        #expect(fine.width == 160 && fast.width == 160 && fine.height == fast.height)
        #expect(fineDrafts == 1 && fastDrafts == 1)
        #expect(fine.pixels != fast.pixels)
    }
}

/// The real decoder, recording the draft each resized decode asks the codec for.
struct ScaleRecordingDecoder: ImageDecoding {
    let decoded: EventCounter

    func decode(_ data: [UInt8], options: DecodingOptions) throws(ImageError) -> Bitmap {
        try ImageDecoder().decode(data, options: options)
    }

    func decode(_ data: [UInt8], resize: Resize, allowsUpscaling: Bool, options: DecodingOptions) throws(ImageError) -> Bitmap {
        decoded.record("draft:\(resize.scaled(by: options.draftHeadroom))")
        return try ImageDecoder().decode(data, resize: resize, allowsUpscaling: allowsUpscaling, options: options)
    }
}

// With the other tests that block a pool thread in a held decode, one at a time.
extension DecodeCancellationTests {
    @Test("Three decodes that fit the slots but not the budget run one at a time, and all deliver")
    func budgetQueuesDecodes() async throws {
        let gate = Gate()
        let decoded = EventCounter()
        let loader = ControlledLoader { _ in Fixtures.rocket }
        loader.releaseAll()
        let pixels = 640 * 427
        let pipeline = ImagePipeline(configuration: .standard.with {
            $0.dataLoader = loader
            $0.decoder = HoldingDecoder(held: Fixtures.rocket, gate: gate, decoded: decoded)
            $0.maximumConcurrentDecodes = 4
            $0.decodingPixelBudget = pixels * 3 / 2
        })
        let tasks = ["a", "b", "c"].map { pipeline.imageTask(with: ImageRequest(source: .controlled($0))) }
        await pipeline.graph.waitUntil { $0.decodes.running + $0.decodes.waitingCount == 3 }
        let (running, waiting, cost) = await pipeline.graph.decodesState()
        #expect(running == 1 && waiting == 2)
        #expect(cost == pixels)
        gate.open()
        for task in tasks { #expect(try await task.response.image.width == 640) }
        #expect(decoded.count("decode:\(Fixtures.rocket.count)") == 3)
    }
}

extension PipelineGraph {
    /// The decode queue's running and waiting counts and the cost in use, read on the actor.
    func decodesState() -> (running: Int, waiting: Int, cost: Int) {
        (decodes.running, decodes.waitingCount, decodes.costInUse)
    }
}
