import Foundation
import ImageryTestSupport
import Testing

/// The SwiftUI and UIKit articles' examples (and the README's round avatar) are copies of
/// `GalleryExample.swift` and `UIKitExample.swift`, which every build compiles; this keeps the
/// copies exact.
@Suite(.timeLimit(.minutes(10)))
struct ReadmeExampleTests {
    @Test("Every marked block of GalleryExample.swift appears verbatim in its document", arguments: [
        ("gallery", "Sources/ImageryUI/ImageryUI.docc/UsingSwiftUI.md"),
        ("custom source", "Sources/ImageryUI/ImageryUI.docc/UsingSwiftUI.md"),
        ("fetched image", "Sources/ImageryUI/ImageryUI.docc/UsingSwiftUI.md"),
        ("round avatar", "Sources/ImageryUI/ImageryUI.docc/UsingSwiftUI.md"),
        ("round avatar", "README.md"),
        ("animated sticker", "Sources/ImageryUI/ImageryUI.docc/PlayingAnimations.md"),
    ])
    func documentMatchesCompiledExample(block: String, document: String) throws {
        try check(block, of: "Tests/ImageryUITests/GalleryExample.swift", in: document)
    }

    @Test("The UIKit article's collection view is UIKitExample.swift's, verbatim")
    func uikitArticle() throws {
        try check("collection view", of: "Tests/ImageryUITests/UIKitExample.swift", in: "Sources/ImageryUI/ImageryUI.docc/UsingUIKit.md")
    }

    private func check(_ block: String, of file: String, in document: String) throws {
        let example = try DocumentSnippets.read(file)
        let code = try #require(DocumentSnippets.block(block, in: example))
        #expect(code.count > 200)
        #expect(try DocumentSnippets.read(document).contains(code), "\(document) lacks the current '\(block)' example from \(file)")
    }
}
