import Foundation
import Imagery
import ImageryCodecs

/// Runs thumbnails for a batch of files with bounded parallelism.
struct ThumbnailJob: Sendable {
    struct Failure: Sendable {
        var path: String
        var reason: String
    }

    struct Report: Sendable {
        var succeeded = 0
        var failures: [Failure] = []
        var seconds: Double = 0
    }

    /// The largest input read, as for the pipeline's loader: 64 MiB.
    static let maximumFileSize = DataLoader.Configuration().maximumResponseSize

    let thumbnailer: Thumbnailer
    let encoder: ImageEncoder
    let outputDirectory: URL

    func outputURL(for path: String) -> URL {
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        return outputDirectory.appendingPathComponent(name).appendingPathExtension(encoder.format.fileExtension)
    }

    func run(files: [String], jobs: Int, progress: Progress) async -> Report {
        let clock = ContinuousClock()
        let start = clock.now
        var report = Report()
        // Two inputs with one stem would overwrite each other's output: fail the later ones.
        var claimed: [String: String] = [:]
        var work: [String] = []
        for path in files {
            let target = outputURL(for: path).path
            if let first = claimed[target] {
                report.failures.append(Failure(path: path, reason: "output \(target) is already written for \(first)"))
            } else {
                claimed[target] = path
                work.append(path)
            }
        }
        await withTaskGroup(of: Failure?.self) { group in
            var pending = work[...]
            func addNext() {
                guard let path = pending.popFirst() else { return }
                group.addTask { process(path) }
            }
            for _ in 0..<min(jobs, work.count) { addNext() }
            for await failure in group {
                if let failure { report.failures.append(failure) } else { report.succeeded += 1 }
                progress.advance(failed: failure != nil)
                addNext()
            }
        }
        progress.finish()
        report.seconds = (clock.now - start).seconds
        return report
    }

    private func process(_ path: String) -> Failure? {
        let data: [UInt8]
        do {
            data = try FileDataLoader.contents(ofFile: path, limit: Self.maximumFileSize)
        } catch .notFound {
            return Failure(path: path, reason: "cannot read: no such file or directory")
        } catch let .fileUnreadable(_, detail) {
            return Failure(path: path, reason: "cannot read: \(detail)")
        } catch {
            return Failure(path: path, reason: "cannot read: \(error)")
        }
        do {
            // GIF and WebP outputs keep an animation's frames; other formats take the first.
            let bytes = if ImageEncoder.animatedFormats.contains(encoder.format), let animation = try thumbnailer.animatedThumbnail(from: data) {
                try encoder.encode(animation)
            } else {
                try thumbnailer.thumbnailData(from: data, encoder: encoder)
            }
            try Data(bytes).write(to: outputURL(for: path), options: .atomic)
            return nil
        } catch let error as ImageError {
            return Failure(path: path, reason: error.description)
        } catch {
            return Failure(path: path, reason: "cannot write \(outputURL(for: path).path): \((error as NSError).localizedDescription)")
        }
    }
}
