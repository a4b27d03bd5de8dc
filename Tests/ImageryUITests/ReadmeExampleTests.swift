import Foundation
import ImageryTestSupport
import Testing

/// The SwiftUI article's examples (and the README's round avatar) are copies of
/// `GalleryExample.swift`, which every build compiles; this keeps the copies exact.
@Suite(.timeLimit(.minutes(1)))
struct ReadmeExampleTests {
    @Test("Every marked block of GalleryExample.swift appears verbatim in its document", arguments: [
        ("gallery", "Sources/ImageryUI/ImageryUI.docc/UsingSwiftUI.md"),
        ("custom source", "Sources/ImageryUI/ImageryUI.docc/UsingSwiftUI.md"),
        ("fetched image", "Sources/ImageryUI/ImageryUI.docc/UsingSwiftUI.md"),
        ("round avatar", "Sources/ImageryUI/ImageryUI.docc/UsingSwiftUI.md"),
        ("round avatar", "README.md"),
    ])
    func documentMatchesCompiledExample(block: String, document: String) throws {
        let example = try DocumentSnippets.read("Tests/ImageryUITests/GalleryExample.swift")
        let code = try #require(DocumentSnippets.block(block, in: example))
        #expect(code.count > 200)
        #expect(try DocumentSnippets.read(document).contains(code), "\(document) lacks the current '\(block)' example from GalleryExample.swift")
    }
}
