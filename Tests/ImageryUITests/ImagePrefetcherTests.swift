import Foundation
@testable import Imagery
import ImageryCodecs
import ImageryTestSupport
@testable import ImageryUI
import Testing

@MainActor
@Suite(.timeLimit(.minutes(10)))
struct ImagePrefetcherTests {
    let loader = ControlledLoader()

    @Test("Prefetching loads each request once into the memory cache, at low priority, and skips cached ones")
    func prefetchOnce() async throws {
        let pipeline = Fixtures.pipeline(loader: loader)
        let prefetcher = ImagePrefetcher(pipeline: pipeline)
        let rows = (0..<3).map { ImageRequest(source: .controlled("row\($0)"), resize: .fill(width: 24, height: 24)) }

        prefetcher.startPrefetching(rows)
        prefetcher.startPrefetching(rows)   // asked again as the user scrolls back and forth
        #expect(prefetcher.count == 3)
        #expect(await loader.events.wait(for: "started:row2"))
        #expect(await pipeline.graph.downloadPriority(for: rows[0].source.identity) == .low)

        loader.releaseAll()
        await pipeline.waitUntilIdle()
        #expect(rows.allSatisfy { pipeline.cachedImage(for: $0) != nil })
        #expect(loader.events.count("started:row0") == 1)

        // Cached rows are not started again
        prefetcher.startPrefetching(rows)
        #expect(prefetcher.count == 0)
    }

    @Test("Rows that scroll away stop their prefetch; a visible cell sharing the load keeps it")
    func stopPrefetching() async throws {
        let pipeline = Fixtures.pipeline(loader: loader)
        let prefetcher = ImagePrefetcher(pipeline: pipeline)
        let away = ImageRequest(source: .controlled("away"), resize: .fill(width: 24, height: 24))
        let shown = ImageRequest(source: .controlled("shown"), resize: .fill(width: 24, height: 24))
        prefetcher.startPrefetching([away, shown])
        #expect(await loader.events.wait(for: "started:away"))
        #expect(await loader.events.wait(for: "started:shown"))

        // A cell shows one of them meanwhile
        let cell = pipeline.imageTask(with: shown)
        prefetcher.stopPrefetching([away, shown])
        #expect(await loader.events.wait(for: "cancelled:away"))
        #expect(prefetcher.count == 0)

        loader.release("shown")
        let response = try await cell.response
        #expect(response.image.width == 24)
        #expect(loader.events.count("cancelled:shown") == 0)
    }
}
