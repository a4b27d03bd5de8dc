import Foundation

/// Keeps the code in the README and the DocC articles compiling: each example lives in a test
/// source file between `// Example: NAME begin` and `// Example: NAME end` markers, where every
/// build compiles it, and the document must contain the same lines.
package enum DocumentSnippets {
    /// The repository's root, found from this file.
    package static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The marked block `name` of `source`, with the indentation of its first line removed from
    /// every line (examples of statements sit inside a function in the source file).
    package static func block(_ name: String, in source: String) -> String? {
        guard let begin = source.range(of: "// Example: \(name) begin\n"),
              let end = source.range(of: "// Example: \(name) end", range: begin.upperBound..<source.endIndex)
        else { return nil }
        let lines = source[begin.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let indent = lines.first.map { $0.prefix { $0 == " " }.count } ?? 0
        return lines.map { $0.count >= indent && $0.prefix(indent).allSatisfy({ $0 == " " }) ? String($0.dropFirst(indent)) : String($0) }
            .joined(separator: "\n") + "\n"
    }

    /// `document` without its `import` lines: a compiled example's imports sit at the top of
    /// its file, and a document's at the top of its code block.
    package static func withoutImports(_ document: String) -> String {
        document.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("import ") }
            .joined(separator: "\n")
    }

    package static func read(_ relativePath: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(relativePath), encoding: .utf8)
    }
}
