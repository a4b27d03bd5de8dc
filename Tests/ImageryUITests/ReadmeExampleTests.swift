import Foundation
import ImageryTestSupport
import Testing

/// The README's SwiftUI examples are copies of `GalleryExample.swift`, which every build
/// compiles; this keeps the copies exact.
@Suite
struct ReadmeExampleTests {
    @Test("Every marked block of GalleryExample.swift appears verbatim in the README", arguments: ["gallery", "custom source", "fetched image", "round avatar"])
    func readmeMatchesCompiledExample(block: String) throws {
        let example = try DocumentSnippets.read("Tests/ImageryUITests/GalleryExample.swift")
        let code = try #require(DocumentSnippets.block(block, in: example))
        #expect(code.count > 200)
        #expect(try DocumentSnippets.read("README.md").contains(code), "README.md lacks the current '\(block)' example from GalleryExample.swift")
    }
}
