import Foundation
import Imagery
import ImageryCodecs

/// Expands directories into the image files inside them (by content, so any name works).
/// Images in formats this build cannot decode are skipped, and counted in `skipped`;
/// a file named on the command line is always attempted, so its failure is reported.
enum InputFiles {
    static func expand(_ inputs: [String]) -> (paths: [String], failures: [ThumbnailJob.Failure], skipped: [ImageFormat: Int]) {
        var paths: [String] = []
        var failures: [ThumbnailJob.Failure] = []
        var skipped: [ImageFormat: Int] = [:]
        let fileManager = FileManager.default
        for input in inputs {
            var isDirectory: ObjCBool = false
            guard fileManager.fileExists(atPath: input, isDirectory: &isDirectory) else {
                failures.append(.init(path: input, reason: "no such file or directory"))
                continue
            }
            if isDirectory.boolValue {
                let entries = (try? fileManager.contentsOfDirectory(atPath: input)) ?? []
                for entry in entries.sorted() where !entry.hasPrefix(".") {
                    let path = (input as NSString).appendingPathComponent(entry)
                    var entryIsDirectory: ObjCBool = false
                    if fileManager.fileExists(atPath: path, isDirectory: &entryIsDirectory), !entryIsDirectory.boolValue,
                       let handle = FileHandle(forReadingAtPath: path) {
                        let head = handle.readData(ofLength: 32)
                        try? handle.close()
                        guard let format = ImageFormat(sniffing: [UInt8](head)) else { continue }
                        if ImageDecoder.supportedFormats.contains(format) {
                            paths.append(path)
                        } else {
                            skipped[format, default: 0] += 1
                        }
                    }
                }
            } else {
                paths.append(input)
            }
        }
        return (paths, failures, skipped)
    }
}
