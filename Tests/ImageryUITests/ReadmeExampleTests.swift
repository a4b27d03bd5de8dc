import Foundation
import Testing

/// The README's SwiftUI examples are copies of `GalleryExample.swift`, which every build
/// compiles; this keeps the copies exact.
@Suite
struct ReadmeExampleTests {
    private static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    @Test("Every marked block of GalleryExample.swift appears verbatim in the README", arguments: ["gallery", "custom source", "fetched image"])
    func readmeMatchesCompiledExample(block: String) throws {
        let example = try String(contentsOf: Self.testsDirectory.appendingPathComponent("GalleryExample.swift"), encoding: .utf8)
        let readme = try String(
            contentsOf: Self.testsDirectory.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("README.md"),
            encoding: .utf8
        )
        let begin = try #require(example.range(of: "// README: \(block) begin\n"))
        let end = try #require(example.range(of: "// README: \(block) end", range: begin.upperBound..<example.endIndex))
        let code = String(example[begin.upperBound..<end.lowerBound])
        #expect(code.count > 200)
        #expect(readme.contains(code), "README.md lacks the current '\(block)' example from GalleryExample.swift")
    }
}
