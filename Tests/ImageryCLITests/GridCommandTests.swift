import ArgumentParser
import Foundation
import Imagery
import ImageryCodecs
import Testing
@testable import ImageryCLI

@Suite(.timeLimit(.minutes(10))) struct GridCommandTests {
    static let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ImageryCodecsTests/Resources").path

    @Test("The embedded gallery has 15 real photos, 5 of them asked for twice")
    func gallery() throws {
        let items = try GridSources.gallery(cell: 128)
        #expect(items.count == 20)
        #expect(Set(items.map(\.source)).count == 15)
        for item in items {
            guard case let .file(path) = item.request.source.kind else { Issue.record("not a file source"); continue }
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(ImageFormat(sniffing: bytes) == .jpeg)
        }
    }

    @Test("Sources: URLs, files, directories and standard input, each one request")
    func sources() {
        let items = GridSources.resolve(
            ["https://example.com/photos/a.jpg", Self.resources + "/png_rgba_logo_500x500.png", Self.resources, "-"],
            cell: 96
        ) { ["https://example.com/b.png"] }
        #expect(items.first?.label == "a.jpg")
        #expect(items.last?.source == "https://example.com/b.png")
        let inDirectory = InputFiles.expand([Self.resources]).paths.count   // 15, or 16 with the WebP trait
        #expect(inDirectory >= 15)
        #expect(items.count == 2 + 1 + inDirectory)   // two URLs, one file, the directory's images
        #expect(items.allSatisfy { $0.request.resize == .fit(width: 96, height: 96) })
    }

    @Test("Without an HTTP loader that holds up, http(s) sources are refused by name before any load")
    func httpRefusal() {
        let items = GridSources.resolve(
            ["http://127.0.0.1:9/a.jpg", Self.resources + "/png_rgba_logo_500x500.png", "https://example.com/b.png"], cell: 64
        ) { [] }
        let refusal = GridSources.httpRefusal(for: items, loadsHTTP: false)
        #expect(refusal?.hasPrefix("2 sources are http(s) URLs (http://127.0.0.1:9/a.jpg)") == true)
        #expect(refusal?.contains("--traits HTTPClient") == true)
        #expect(GridSources.httpRefusal(for: items, loadsHTTP: true) == nil)
        #expect(GridSources.httpRefusal(for: Array(items[1...1]), loadsHTTP: false) == nil)   // files only
    }

    @Test(
        "This build's grid refuses an http source before loading anything, and writes no sheet",
        .enabled(if: !GridSources.loadsHTTP, "this build loads http(s): the HTTPClient trait, or an Apple platform")
    )
    func gridRefusesHTTP() async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("grid-\(UUID().uuidString).png").path
        // Port 9 on loopback: were the refusal missing, the load would fail on a closed port.
        let command = try GridCommand.parseAsRoot(["http://127.0.0.1:9/a.jpg", "-o", output]) as! GridCommand
        await #expect(throws: GridError.self) { try await command.run() }
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test("Loading through the pipeline: images, coalescing, a marked failure, and the sheet's size")
    func loadAndRender() async throws {
        let pipeline = ImagePipeline(configuration: .standard)
        let items = GridSources.resolve(
            [Self.resources + "/jpeg_small_base_rocket_640x427.jpg", Self.resources + "/jpeg_small_base_rocket_640x427.jpg",
             "/nonexistent/missing.jpg"],
            cell: 64
        ) { [] }
        let results = await GridLoader.load(items, pipeline: pipeline, pass: "test")

        #expect(results.cells.count == 3)
        #expect(results.failures.map(\.source) == ["/nonexistent/missing.jpg"])
        #expect(results.failures.first?.reason.contains("not found") == true)
        guard case let .image(bitmap) = results.cells[0].content else { Issue.record("no image"); return }
        #expect(bitmap.width == 64)
        guard case let .failure(reason) = results.cells[2].content else { Issue.record("no failure cell"); return }
        #expect(reason == "NOT FOUND")
        #expect(pipeline.statistics.downloads == 2)

        let sheet = ContactSheet(columns: 2, cell: 64)
        let rendered = sheet.render(results.cells)
        #expect(rendered.width == 2 * (64 + 8) && rendered.height == 2 * (64 + 24))
        // The failed cell is marked in red: its top-left pixel is the placeholder's outline.
        let offset = (rendered.height / 2 + ContactSheet.margin) * rendered.bytesPerRow + ContactSheet.margin * 4
        #expect(Array(rendered.pixels[offset..<offset + 3]) == [180, 30, 30])
    }

    @Test("The JSON summary has the documented, stable field names")
    func jsonFields() throws {
        let summary = GridSummary(
            requested: 4, distinct: 3, statistics: ImagePipeline.Statistics(), failures: [.init(source: "x", reason: "y")],
            latencies: [10, 20, 30, 40], output: "sheet.png", size: PixelSize(width: 10, height: 20)
        )
        let object = try #require(try JSONSerialization.jsonObject(with: Data(summary.json().utf8)) as? [String: Any])
        let keys = Set(object.keys)
        #expect(keys.isSuperset(of: ["requested", "distinct", "downloads", "coalesced", "memoryHits", "diskHits", "failures", "p50Ms", "p95Ms", "output"]))
        #expect((object["failures"] as? [[String: String]])?.first == ["source": "x", "reason": "y"])
        #expect(object["p50Ms"] as? Double == 30)
    }

    @Test("Long reasons wrap at spaces within the cell, and overlong words are split")
    func wrapping() {
        #expect(ContactSheet.wrap("JPEG data is truncated", width: 60) == ["JPEG data", "is", "truncated"])
        #expect(ContactSheet.wrap("ABCDEFGHIJKLMNO", width: 60) == ["ABCDEFGHIJ", "KLMNO"])
    }
}
