import ImageryTestSupport
import Testing

/// The documents' code is the compiled code of `DocumentExamples.swift`, line for line.
@Suite
struct DocumentSnippetTests {
    @Test("Every marked example appears in its document", arguments: [
        ("readme pipeline", "README.md"),
        ("readme codecs", "README.md"),
        ("readme disk cache", "README.md"),
        ("readme http client", "README.md"),
        ("readme imgproxy", "README.md"),
        ("library", "Sources/Imagery/Imagery.docc/UsingThePipeline.md"),
        ("foundation", "Sources/Imagery/Imagery.docc/UsingThePipeline.md"),
        ("loaders", "Sources/Imagery/Imagery.docc/UsingThePipeline.md"),
        ("processing", "Sources/Imagery/Imagery.docc/ProcessingImages.md"),
        ("disk cache", "Sources/ImageryDiskCache/ImageryDiskCache.docc/ImageryDiskCache.md"),
        ("pixels", "Sources/ImageryCodecs/ImageryCodecs.docc/DecodingAndEncoding.md"),
        ("animation", "Sources/ImageryCodecs/ImageryCodecs.docc/DecodingAndEncoding.md"),
        ("http client", "Sources/ImageryHTTPClient/ImageryHTTPClient.docc/ImageryHTTPClient.md"),
        ("image server", "docs/server.md"),
        ("getting started load", "Sources/Imagery/Imagery.docc/GettingStarted.md"),
        ("getting started decode", "Sources/Imagery/Imagery.docc/GettingStarted.md"),
        ("getting started thumbnail", "Sources/Imagery/Imagery.docc/GettingStarted.md"),
        ("placeholder request", "Sources/Imagery/Imagery.docc/PlaceholderHashes.md"),
        ("bundle loader", "Sources/Imagery/Imagery.docc/WritingALoader.md"),
        ("streaming loader", "Sources/Imagery/Imagery.docc/WritingALoader.md"),
        ("loader decorator", "Sources/Imagery/Imagery.docc/WritingALoader.md"),
    ])
    func documentMatchesCompiledExample(block: String, document: String) throws {
        let examples = try DocumentSnippets.read("Tests/ImageryDocsTests/DocumentExamples.swift")
        let code = try #require(DocumentSnippets.block(block, in: examples))
        #expect(code.count > 80)
        let text = DocumentSnippets.withoutImports(try DocumentSnippets.read(document))
        #expect(text.contains(code), "\(document) lacks the current '\(block)' example from DocumentExamples.swift")
    }
}
