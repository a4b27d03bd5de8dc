import Foundation

/// A fuzz target's inputs that the tests replay: its seeds in `Fuzz/<seeds>` and its findings,
/// `Fuzz/findings/<prefix>*`, as paths.
package enum FuzzInputs {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")

    /// The seeds (which must exist) and the findings (which may not).
    package static func files(seeds: String, findings prefix: String) throws -> (seeds: [String], findings: [String]) {
        let seeds = try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent(seeds).path).sorted()
            .map { directory.appendingPathComponent(seeds).appendingPathComponent($0).path }
        let findings = ((try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("findings").path)) ?? [])
            .filter { $0.hasPrefix(prefix) }.sorted().map { directory.appendingPathComponent("findings/\($0)").path }
        return (seeds, findings)
    }
}
