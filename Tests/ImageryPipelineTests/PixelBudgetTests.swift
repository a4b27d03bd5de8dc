@testable import Imagery
import ImageryCodecs
import ImageryTestSupport
import Testing

/// One pixel budget for every bitmap a request holds: decodes, processing runs (their inputs
/// charged while they wait), and a delivered image a caller holds while it encodes.
// The limit is a hang's bound, not a timing: in a full run on two cores every decode here waits
// behind the other suites' heavy work on the shared heavy-work threads.
@Suite(.timeLimit(.minutes(10)))
struct PixelBudgetTests {
    @Test("Queues sharing a budget: a waiting input is charged, room goes to processing first, and an idle processing queue starts a run that does not fit")
    @PipelineActor
    func sharedBudget() {
        let budget = PixelBudget(limit: 100)
        let processing = WorkQueue(limit: 4, sharing: budget, alone: .whenQueueIsIdle)
        let decodes = WorkQueue(limit: 4, sharing: budget, alone: .whenNothingRuns)
        var started: [String] = []
        var items: [String: WorkQueue.Item] = [:]
        func add(_ name: String, on queue: WorkQueue, cost: Int, held: Int = 0) {
            items[name] = queue.enqueue(priority: .normal, cost: cost, held: held) { started.append(name) }
        }
        // Given a run holding 60 of input and adding 30
        add("p1", on: processing, cost: 30, held: 60)
        #expect(started == ["p1"] && budget.inUse == 90)
        // When a decode of 20 and a run holding 50 and adding 10 come, neither fits
        add("d1", on: decodes, cost: 20)
        add("p2", on: processing, cost: 10, held: 50)
        #expect(started == ["p1"] && budget.inUse == 140)
        // Then the first run's end gives its room to the waiting run first, then to the decode
        processing.finished(items["p1"]!)
        #expect(started == ["p1", "p2", "d1"] && budget.inUse == 80)
        // A waiting run that is cancelled gives its input's charge back
        add("p3", on: processing, cost: 500, held: 5)
        #expect(started.count == 3 && budget.inUse == 85)
        processing.cancel(items["p3"]!)
        #expect(budget.inUse == 80)
        // A run larger than the room starts once no run is running, whatever else is charged
        add("p4", on: processing, cost: 500, held: 5)
        processing.finished(items["p2"]!)
        #expect(started.last == "p4" && budget.inUse == 525)
        // A decode too large waits until nothing at all is charged
        add("d2", on: decodes, cost: 300)
        processing.finished(items["p4"]!)
        #expect(started.last == "p4" && budget.inUse == 20)
        decodes.finished(items["d1"]!)
        #expect(started.last == "d2" && budget.inUse == 300)
        // Pixels a caller holds (here 30) never keep a decode larger than the whole budget
        // waiting: only its caller can release them, and it may be waiting for this decode. It
        // starts once nothing runs.
        budget.charge(30)
        add("d3", on: decodes, cost: 150)
        #expect(started.last == "d2")
        decodes.finished(items["d2"]!)
        #expect(started.last == "d3" && budget.inUse == 180)
        // One that could fit still waits for room, the held pixels' included
        decodes.finished(items["d3"]!)
        add("d4", on: decodes, cost: 90)
        #expect(started.last == "d3" && budget.inUse == 30)
        budget.release(30)
        #expect(started.last == "d4" && budget.inUse == 90)
        decodes.finished(items["d4"]!)
        #expect(budget.inUse == 0 && budget.runningItems == 0)
    }

    @Test("A decode is charged its draft, its output and the resample's rows; an enlargement its whole source; a progressive JPEG its coefficients; a turned JPEG twice")
    func decodingCost() throws {
        let fetch = FetchKey(source: "x", readsDisk: false)
        func cost(_ bytes: [UInt8], _ resize: Resize?, upscaling: Bool = false, headroom: Int = 2) -> Int {
            var options = ImageRequest.DecodeOptions()
            options.resize = resize
            options.allowsUpscaling = upscaling
            return DecodeKey(fetch: fetch, decodeOptions: options, maximumPixelCount: .max, draftHeadroom: headroom).decodingCost(of: bytes)
        }
        func scratch(_ source: (Int, Int), _ output: (Int, Int)) -> Int {
            LanczosResampler.scratchPixels(source: PixelSize(width: source.0, height: source.1), output: PixelSize(width: output.0, height: output.1))
        }
        // Whole images cost their pixels.
        #expect(cost(Fixtures.rocket, nil) == 640 * 427)
        #expect(cost(Fixtures.logo, nil) == 500 * 500)
        #expect(cost(Fixtures.gif, nil) == 256 * 171)
        // A 1280x1024 progressive JPEG fitted to 160: the draft is 320 (a quarter), so DCT scaling
        // decodes 2/8 of each side, 320x256; the 160x128 output and the coefficients of the
        // whole image (three bytes a pixel) are added.
        let coefficients = 1280 * 1024 * 3 / 4
        #expect(cost(Fixtures.meadow, .fit(width: 160, height: 160)) == 320 * 256 + 160 * 128 + scratch((320, 256), (160, 128)) + coefficients)
        // With a headroom of 1 the draft is the target: an eighth of each side.
        #expect(cost(Fixtures.meadow, .fit(width: 160, height: 160), headroom: 1) == 160 * 128 + 160 * 128 + scratch((160, 128), (160, 128)) + coefficients)
        // A GIF is decoded whole whatever the resize.
        #expect(cost(Fixtures.gif, .fit(width: 64, height: 64)) == 256 * 171 + 64 * 43 + scratch((256, 171), (64, 43)))
        // Upscaling turns the draft off, and the output (here larger than the source) is added.
        #expect(cost(Fixtures.rocket, .fit(width: 100, height: 100), upscaling: true) == 640 * 427 + 100 * 67 + scratch((640, 427), (100, 67)))
        #expect(cost(Fixtures.rocket, .fit(width: 2000, height: 2000), upscaling: true) == 640 * 427 + 2000 * 1334 + scratch((640, 427), (2000, 1334)))
        // A whole JPEG with an EXIF turn is decoded, then copied upright.
        let turned = Fixtures.bytes("jpeg_exif6_aqua_2560x1600.jpg")
        #expect(cost(turned, nil) == 2 * 2560 * 1600)
        // Not an image: its decode fails at once, and costs nothing.
        #expect(cost(Array("not an image".utf8), nil) == 0)
    }

    @Test("A processing chain's footprint: in-place steps add their scratch, copying steps their output, each step's input goes")
    func footprints() {
        let input = PixelSize(width: 1000, height: 500)
        let blur = [any ImageProcessing]([.blur(sigma: 20)]).footprint(for: input)
        #expect(blur.output == input && blur.peak == input.pixelCount + GaussianFilter.scratchPixels(for: input, sigma: 20))
        let padded = [any ImageProcessing]([.padding(top: 10, right: 0, bottom: 10, left: 0, color: .white), .blur(sigma: 1)]).footprint(for: input)
        #expect(padded.output == PixelSize(width: 1000, height: 520))
        #expect(padded.peak == input.pixelCount + 1000 * 520)
        let custom = [any ImageProcessing]([.custom(id: "x") { $0 }, .crop(width: 10, height: 10)]).footprint(for: input)
        #expect(custom.output == PixelSize(width: 10, height: 10) && custom.peak == 2 * input.pixelCount)
    }
}

/// Suspends processing runs until opened, without holding a thread.
final class ProcessingGate: Sendable {
    private let state = Locked<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let run = state.withLock { state -> Bool in
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if run { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

extension PixelBudgetTests {
    static let rocketPixels = 640 * 427

    static func pipeline(budget: Int, ceiling: Int? = nil, waitsForHolds: Bool = false) -> (ImagePipeline, ControlledLoader) {
        let loader = ControlledLoader { _ in Fixtures.rocket }
        loader.releaseAll()
        let pipeline = ImagePipeline(configuration: .standard.with {
            $0.dataLoader = loader
            $0.maximumConcurrentDecodes = 4
            $0.decodingPixelBudget = budget
            $0.decodingPixelCeiling = ceiling
            $0.largeWorkWaitsForHolds = waitsForHolds
            $0.imageCache = nil
        })
        return (pipeline, loader)
    }

    @Test("A processing run holds its input and output: a decode that does not fit beside it waits until it ends")
    func processingKeepsDecodesWaiting() async throws {
        // Given a run holding the rocket and its copy, and room for one more rocket less a pixel
        let (pipeline, _) = Self.pipeline(budget: 3 * Self.rocketPixels - 1)
        let gate = ProcessingGate()
        var slow = ImageRequest(source: .controlled("a"))
        slow.processors = [.custom(id: "gated") { bitmap in
            await gate.wait()
            return bitmap
        }]
        let first = pipeline.imageTask(with: slow)
        await pipeline.graph.waitUntil { $0.processing.running == 1 }
        #expect(await pipeline.graph.inUse() == 2 * Self.rocketPixels)
        // When a second image is asked for
        let second = pipeline.imageTask(with: ImageRequest(source: .controlled("b")))
        await pipeline.graph.waitUntil { $0.decodes.waitingCount == 1 && $0.decodes.running == 0 }
        // Then it decodes once the run ends, and both deliver
        gate.open()
        #expect(try await first.response.image.width == 640)
        #expect(try await second.response.image.width == 640)
        await pipeline.graph.waitUntil { $0.isIdle }
        #expect(await pipeline.graph.inUse() == 0)
    }

    @Test("A held response keeps its pixels charged until released: the next decode waits for it")
    func heldResponseKeepsDecodesWaiting() async throws {
        let (pipeline, _) = Self.pipeline(budget: 2 * Self.rocketPixels - 1)
        // Given a response held by its caller
        let (response, hold) = try await pipeline.heldResponse(for: ImageRequest(source: .controlled("a")))
        #expect(response.image.width == 640 && hold?.pixels == Self.rocketPixels)
        await pipeline.graph.waitUntil { $0.decodes.running == 0 }
        // When another image is asked for, its decode does not fit beside the held one
        let second = pipeline.imageTask(with: ImageRequest(source: .controlled("b")))
        await pipeline.graph.waitUntil { $0.decodes.waitingCount == 1 }
        // Then releasing the hold lets it decode
        hold?.release()
        #expect(try await second.response.image.width == 640)
        await pipeline.graph.waitUntil { $0.isIdle }
        #expect(await pipeline.graph.inUse() == 0)
        // A plain response holds nothing
        _ = try await pipeline.response(for: ImageRequest(source: .controlled("c")))
        await pipeline.graph.waitUntil { $0.isIdle }
        #expect(await pipeline.graph.inUse() == 0)
    }
}

extension PixelBudgetTests {
    @Test(
        "Images one after another on one pipeline whose budget is smaller than any of them: each delivers, and the budget is empty after each",
        .timeLimit(.minutes(10))
    )
    func sequentialRequestsOnASmallBudget() async throws {
        let (pipeline, _) = Self.pipeline(budget: 1_000)
        for index in 0..<24 {
            var request = ImageRequest(source: .controlled("seq-\(index)"))
            switch index % 4 {
            case 0: break
            case 1: request.resize = .fit(width: 100, height: 100)
            case 2:
                request.resize = .fit(width: 200, height: 200)
                request.processors = [.blur(sigma: 1)]
            default:
                request.resize = .fit(width: 700, height: 700)
                request.allowsUpscaling = true
            }
            let image = try await pipeline.image(for: request)
            #expect(image.width == [640, 100, 200, 700][index % 4], "request \(index)")
            await pipeline.graph.waitUntil { $0.isIdle }
            #expect(await pipeline.graph.inUse() == 0, "request \(index)")
        }
    }

    @Test(
        "An image larger than the whole budget is decoded while its caller holds another image's pixels, instead of waiting for them forever",
        .timeLimit(.minutes(10))
    )
    func largerThanTheBudgetBesideAHold() async throws {
        // Given a budget of exactly one rocket, held by the caller
        let (pipeline, _) = Self.pipeline(budget: Self.rocketPixels)
        let (held, hold) = try await pipeline.heldResponse(for: ImageRequest(source: .controlled("held")))
        #expect(held.image.width == 640 && hold?.pixels == Self.rocketPixels)
        // When the same caller asks for an enlargement that costs more than the whole budget
        var large = ImageRequest(source: .controlled("large"), resize: .fit(width: 1000, height: 1000))
        large.allowsUpscaling = true
        large.processors = [.blur(sigma: 1)]
        // Then it runs alone (nothing else runs) and delivers, though the hold is still charged
        let image = try await pipeline.image(for: large)
        #expect(image.width == 1000)
        await pipeline.graph.waitUntil { $0.isIdle }
        #expect(await pipeline.graph.inUse() == Self.rocketPixels)
        // And an image that fits the budget but not beside the hold decodes once it is released
        let next = pipeline.imageTask(with: ImageRequest(source: .controlled("next")))
        await pipeline.graph.waitUntil { $0.decodes.waitingCount == 1 }
        hold?.release()
        #expect(try await next.response.image.width == 640)
        await pipeline.graph.waitUntil { $0.isIdle }
        #expect(await pipeline.graph.inUse() == 0)
    }
}

/// A server's budget: large work waits for delivered images to be let go, encodes wait for
/// room, and work past the ceiling is refused at once.
extension PixelBudgetTests {
    @Test("Where large work waits for holds, an image larger than the budget runs once the caller lets its image go", .timeLimit(.minutes(10)))
    func largeWorkWaitsForHolds() async throws {
        // Given a server's budget of one rocket, held by a caller that is encoding it
        let (pipeline, _) = Self.pipeline(budget: Self.rocketPixels, waitsForHolds: true)
        let (_, hold) = try await pipeline.heldResponse(for: ImageRequest(source: .controlled("held")))
        // When another caller asks for an enlargement larger than the whole budget
        var large = ImageRequest(source: .controlled("large"), resize: .fit(width: 1000, height: 1000))
        large.allowsUpscaling = true
        let task = pipeline.imageTask(with: large)
        // Then it waits beside the hold instead of adding to it
        await pipeline.graph.waitUntil { $0.decodes.waitingCount == 1 }
        #expect(await pipeline.graph.inUse() == Self.rocketPixels)
        // And runs alone once the image is let go
        hold?.release()
        #expect(try await task.response.image.width == 1000)
        await pipeline.graph.waitUntil { $0.isIdle }
        #expect(await pipeline.graph.inUse() == 0)
    }

    @Test("Encodes wait for room in priority order, hold it until released, and are refused past the ceiling", .timeLimit(.minutes(10)))
    func encodingRoom() async throws {
        let (pipeline, _) = Self.pipeline(budget: 1_000, ceiling: 5_000, waitsForHolds: true)
        // Given the whole budget held by one encode
        let first = try #require(try await pipeline.encodingCharge(pixels: 1_000, priority: .normal, source: "a"))
        // When a low and then a high encode wait for room
        let order = Locked<[String]>([])
        let low = Task {
            let room = try await pipeline.encodingCharge(pixels: 600, priority: .low, source: "low")
            order.withLock { $0.append("low") }
            return room
        }
        await pipeline.graph.waitUntil { $0.encodes.waitingCount == 1 }
        let high = Task {
            let room = try await pipeline.encodingCharge(pixels: 600, priority: .high, source: "high")
            order.withLock { $0.append("high") }
            return room
        }
        await pipeline.graph.waitUntil { $0.encodes.waitingCount == 2 }
        #expect(await pipeline.graph.inUse() == 1_000)
        // Then the high one gets the room first, and the low one once that is let go
        first.release()
        let highRoom = try await high.value
        #expect(order.withLock { $0 } == ["high"])
        highRoom?.release()
        try await low.value?.release()
        #expect(order.withLock { $0 } == ["high", "low"])
        await pipeline.graph.waitUntil { $0.encodes.running == 0 }
        #expect(await pipeline.graph.inUse() == 0)

        // An encode larger than the budget runs alone; one past the ceiling is refused at once
        let alone = try await pipeline.encodingCharge(pixels: 4_000, priority: .normal, source: "alone")
        #expect(alone?.pixels == 4_000)
        alone?.release()
        await #expect(throws: ImagePipelineError.self) { try await pipeline.encodingCharge(pixels: 5_001, priority: .normal, source: "huge") }

        // A waiting encode that is cancelled leaves the queue and charges nothing
        let blocker = try #require(try await pipeline.encodingCharge(pixels: 1_000, priority: .normal, source: "b"))
        let cancelled = Task { try await pipeline.encodingCharge(pixels: 500, priority: .normal, source: "c") }
        await pipeline.graph.waitUntil { $0.encodes.waitingCount == 1 }
        cancelled.cancel()
        await #expect(throws: ImagePipelineError.self) { try await cancelled.value }
        await pipeline.graph.waitUntil { $0.encodes.waitingCount == 0 }
        blocker.release()
        await pipeline.graph.waitUntil { $0.encodes.running == 0 }
        #expect(await pipeline.graph.inUse() == 0)
    }
}

extension PipelineGraph {
    /// The pixels charged to the budget now, read on the actor.
    func inUse() -> Int { pixelBudget?.inUse ?? 0 }
}
