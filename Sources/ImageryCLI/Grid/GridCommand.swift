import ArgumentParser
import Foundation
import Imagery
import ImageryCodecs
import ImageryDiskCache
#if HTTPClient
import ImageryHTTPClient
#endif

/// `imagery grid`: loads a gallery through `ImagePipeline` and writes a contact sheet.
struct GridCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grid",
        abstract: "Load images through the pipeline, concurrently, and write a contact sheet PNG.",
        discussion: """
        SOURCES are http(s) URLs, files, directories (every image inside) and `-` (one source per \
        line from standard input). On Linux, http(s) needs a build with `--traits HTTPClient` \
        (AsyncHTTPClient); without it, http(s) sources are refused before anything is loaded. With no SOURCES, an embedded gallery of 15 photos (5 of them \
        asked for twice) is served through a simulated slow network (0.3–1.5 s per image), then \
        loaded a second time to show it all coming from cache. The sheet is columns × (cell + 8) \
        pixels wide and rows × (cell + 24) high, at most 16,384 each way: a larger sheet is \
        refused before anything is loaded.
        """
    )

    @Argument(help: "URLs, files, directories, or - for standard input. Default: the embedded gallery.")
    var sources: [String] = []

    @Option(help: "Cells per row.")
    var columns = 5

    @Option(help: "Cell size in pixels (thumbnails fit inside it).")
    var cell = 128

    @Option(name: .shortAndLong, help: "The contact sheet to write (PNG).")
    var output = "contact-sheet.png"

    @Option(help: "Keep a disk cache in this directory, so that a second run downloads nothing.")
    var cacheDir: String?

    @Flag(help: "Print the summary as one JSON object on standard output.")
    var json = false

    func validate() throws {
        guard columns > 0, cell >= 32, cell <= 1024 else {
            throw ValidationError("--columns must be positive and --cell between 32 and 1024")
        }
        if let refusal = ContactSheet(columns: columns, cell: cell).refusal(forCells: 1) { throw ValidationError(refusal) }
    }

    func run() async throws {
        let isDefault = sources.isEmpty
        let items = isDefault
            ? try GridSources.gallery(cell: cell)
            : GridSources.resolve(sources, cell: cell) { Self.standardInputLines() }
        guard !items.isEmpty else { throw GridError.noSources }
        // Before any load: a sheet too large to draw must not cost every download first.
        if let refusal = ContactSheet(columns: columns, cell: cell).refusal(forCells: items.count) {
            throw GridError.sheetTooLarge(refusal)
        }
        if let refusal = GridSources.httpRefusal(for: items) { throw GridError.noHTTP(refusal) }

        var configuration = ImagePipeline.Configuration.standard
        if isDefault {
            configuration.dataLoader = LatencySimulatingDataLoader(
                wrapping: DataLoader(), delay: .milliseconds(300)...(.milliseconds(1500))
            )
        }
        #if HTTPClient
        // Built with the HTTPClient trait: http(s) through AsyncHTTPClient, which holds up
        // against hostile servers where FoundationNetworking does not (see the README).
        var httpConfiguration = HTTPClientDataLoader.Configuration()
        httpConfiguration.accept = HTTPClientDataLoader.Configuration.accept(ImageDecoder.supportedFormats)
        let http = HTTPClientDataLoader(configuration: httpConfiguration)
        if !isDefault { configuration.dataLoader = RetryingDataLoader(wrapping: http) }
        #endif
        if let cacheDir { configuration.useDiskCache(directory: cacheDir) }
        let pipeline = ImagePipeline(configuration: configuration)

        var results = await GridLoader.load(items, pipeline: pipeline, pass: isDefault ? "pass 1" : "grid")
        if isDefault {
            let again = await GridLoader.load(items, pipeline: pipeline, pass: "pass 2 (cached)")
            results.latencies += again.latencies
        }
        await pipeline.waitUntilIdle()
        #if HTTPClient
        try? await http.shutdown()
        #endif

        let sheet = ContactSheet(columns: columns, cell: cell)
        let bitmap = sheet.render(results.cells)
        let png = try ImageEncoder(format: .png).encode(bitmap)
        try Data(png).write(to: URL(fileURLWithPath: output))

        let summary = GridSummary(
            requested: results.latencies.count,
            distinct: Set(items.map { pipeline.cacheKey(for: $0.request) }).count,
            statistics: pipeline.statistics,
            failures: results.failures,
            latencies: results.latencies,
            output: output,
            size: PixelSize(width: bitmap.width, height: bitmap.height)
        )
        print(json ? summary.json() : summary.text())
        if !results.failures.isEmpty { throw ExitCode(1) }
    }

    static func standardInputLines() -> [String] {
        var lines: [String] = []
        while let line = readLine() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if !trimmed.isEmpty, !trimmed.hasPrefix("#") { lines.append(trimmed) }
        }
        return lines
    }
}

/// Loads every item concurrently through the pipeline, timing each request.
enum GridLoader {
    struct Results {
        var cells: [ContactSheet.Cell] = []
        var failures: [GridSummary.Failure] = []
        var latencies: [Double] = []
    }

    static func load(_ items: [GridItem], pipeline: ImagePipeline, pass: String) async -> Results {
        let progress = GridProgress(total: items.count, pipeline: pipeline, pass: pass)
        var cells = [ContactSheet.Cell?](repeating: nil, count: items.count)
        var results = Results()
        await withTaskGroup(of: (Int, Result<ImageResponse, ImagePipelineError>, Double).self) { group in
            for (index, item) in items.enumerated() {
                group.addTask {
                    let start = ContinuousClock.now
                    let result: Result<ImageResponse, ImagePipelineError>
                    do throws(ImagePipelineError) {
                        result = .success(try await pipeline.response(for: item.request))
                    } catch {
                        result = .failure(error)
                    }
                    let ms = (ContinuousClock.now - start).seconds * 1000
                    let outcome = (try? result.get()).map { "from \($0.origin)" } ?? "failed"
                    progress.finished(item.label, milliseconds: ms, outcome: outcome)
                    return (index, result, ms)
                }
            }
            for await (index, result, ms) in group {
                results.latencies.append(ms)
                switch result {
                case let .success(response):
                    cells[index] = ContactSheet.Cell(label: items[index].label, content: .image(response.image))
                case let .failure(error):
                    cells[index] = ContactSheet.Cell(label: items[index].label, content: .failure(Self.reason(error)))
                    results.failures.append(GridSummary.Failure(source: items[index].source, reason: "\(error)"))
                }
            }
        }
        results.cells = cells.compactMap { $0 }
        return results
    }

    /// The short reason shown in a failed cell.
    static func reason(_ error: ImagePipelineError) -> String {
        switch error {
        case let .loadingFailed(loading):
            switch loading {
            case .notFound: "NOT FOUND"
            case let .httpStatus(status, _): "HTTP \(status)"
            case .tooLarge: "TOO LARGE"
            case .timedOut: "TIMED OUT"
            case .connectionFailed: "NO CONNECTION"
            default: "\(loading)"
            }
        case let .decodingFailed(_, image): "\(image)"
        case let .processingFailed(_, image): "\(image)"
        case .cancelled: "CANCELLED"
        }
    }
}
