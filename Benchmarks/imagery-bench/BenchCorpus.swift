import ArgumentParser
import Foundation

/// The benchmark's files, grouped as the targets are stated.
struct BenchCorpus {
    struct File: Sendable {
        var path: String
        var name: String
        var format: String
        var width: Int
        var height: Int
        var kind: String
        var bytes: [UInt8]
        var megapixels: Double { Double(width * height) / 1e6 }
    }

    struct Group: Sendable {
        var title: String
        var target: String
        var files: [File]
    }

    var groups: [Group]

    /// The corpus every clone has: the benchmark's two full-size photos and the test images.
    static let defaultDirectories = ["Benchmarks/Corpus", "Tests/ImageryCodecsTests/Resources"]

    /// The JPEG and PNG files listed in each directory's MANIFEST.tsv (reference images left out).
    init(directories: [String]) throws {
        var files: [File] = []
        for directory in directories { files += try Self.files(in: directory) }
        self.init(files: files)
    }

    private static func files(in directory: String) throws -> [File] {
        let manifestPath = "\(directory)/MANIFEST.tsv"
        guard FileManager.default.fileExists(atPath: manifestPath) else {
            throw ValidationError("no \(manifestPath): run the bench from the package root, or pass --corpus DIR")
        }
        let manifest = try String(contentsOfFile: manifestPath, encoding: .utf8)
        var files: [File] = []
        for line in manifest.split(separator: "\n").dropFirst() {
            let c = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard c.count >= 6, let width = Int(c[2]), let height = Int(c[3]), ["JPEG", "PNG"].contains(c[1]),
                  !c[0].hasPrefix("reference_") else { continue }
            let path = "\(directory)/\(c[0])"
            files.append(File(path: path, name: c[0], format: c[1], width: width, height: height, kind: c[5],
                              bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))))
        }
        return files
    }

    private init(files: [File]) {
        let jpegs = files.filter { $0.format == "JPEG" && !$0.kind.contains("CMYK") }
        groups = [
            Group(title: "Large baseline JPEG (≥ 12 MP)", target: "≤ 1.25× floor",
                  files: jpegs.filter { $0.kind.hasPrefix("baseline") && $0.megapixels >= 12 }),
            Group(title: "Progressive JPEG", target: "≤ 1.15× floor", files: jpegs.filter { $0.kind.hasPrefix("progressive") }),
            Group(title: "PNG", target: "≤ 1.15× floor", files: files.filter { $0.format == "PNG" }),
            Group(title: "Other baseline JPEG (< 12 MP)", target: "(information)",
                  files: jpegs.filter { $0.kind.hasPrefix("baseline") && $0.megapixels < 12 }),
        ]
    }
}
