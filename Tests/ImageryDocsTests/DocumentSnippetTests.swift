import ImageryTestSupport
import Testing

/// The documents' code is the compiled code of `DocumentExamples.swift`, line for line.
@Suite
struct DocumentSnippetTests {
    @Test("Every marked example appears in its document", arguments: [
        ("library", "README.md"),
        ("foundation", "README.md"),
        ("loaders", "README.md"),
        ("processing", "README.md"),
        ("disk cache", "README.md"),
        ("pixels", "README.md"),
        ("http client", "README.md"),
        ("image server", "README.md"),
        ("getting started load", "Sources/Imagery/Imagery.docc/GettingStarted.md"),
        ("getting started decode", "Sources/Imagery/Imagery.docc/GettingStarted.md"),
        ("getting started thumbnail", "Sources/Imagery/Imagery.docc/GettingStarted.md"),
    ])
    func documentMatchesCompiledExample(block: String, document: String) throws {
        let examples = try DocumentSnippets.read("Tests/ImageryDocsTests/DocumentExamples.swift")
        let code = try #require(DocumentSnippets.block(block, in: examples))
        #expect(code.count > 100)
        let text = DocumentSnippets.withoutImports(try DocumentSnippets.read(document))
        #expect(text.contains(code), "\(document) lacks the current '\(block)' example from DocumentExamples.swift")
    }
}
