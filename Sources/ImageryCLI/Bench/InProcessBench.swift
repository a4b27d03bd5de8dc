import Imagery
import ImageryCodecs

/// Floor and Imagery timed in one process, on one thread, interleaved file by file.
struct InProcessBench {
    let box: Resize
    let repetitions: Int

    struct Result {
        /// Mean over files of the per-file median, in ms/image.
        var floor: Double
        var imagery: Double
        var eighths: [String: Int]
        var perFile: [String: [Double]]
    }

    func measure(_ files: [BenchCorpus.File]) throws -> Result {
        let thumbnailer = Thumbnailer(resize: box)
        let encoder = try ImageEncoder(format: .jpeg, quality: 85)
        var eighths: [String: Int] = [:]
        for file in files where file.format == "JPEG" {
            eighths[file.path] = CodecFloor.jpegEighths(file.bytes, resize: box) ?? 8
        }
        var floorTimes = [[Double]](repeating: [], count: files.count)
        var imageryTimes = [[Double]](repeating: [], count: files.count)
        // One untimed pass warms caches and the allocator, then floor and Imagery alternate.
        for repetition in 0...repetitions {
            for (index, file) in files.enumerated() {
                let floor = Measurement.time {
                    if let scale = eighths[file.path] {
                        _ = CodecFloor.decodeJPEG(file.bytes, eighths: scale)
                    } else {
                        _ = CodecFloor.decodePNG(file.bytes)
                    }
                }
                let imagery = try Measurement.time { _ = try thumbnailer.thumbnailData(from: file.bytes, encoder: encoder) }
                if repetition > 0 {
                    floorTimes[index].append(floor)
                    imageryTimes[index].append(imagery)
                }
            }
        }
        let floors = floorTimes.map(Measurement.median), ours = imageryTimes.map(Measurement.median)
        return Result(
            floor: floors.reduce(0, +) / Double(files.count),
            imagery: ours.reduce(0, +) / Double(files.count),
            eighths: Dictionary(uniqueKeysWithValues: eighths.map { (String($0.key.split(separator: "/").last!), $0.value) }),
            perFile: Dictionary(uniqueKeysWithValues: files.indices.map { (files[$0].name, [floors[$0], ours[$0]]) })
        )
    }
}

/// PSNR of each tool's 256 px output against Imagery's slow reference (full decode, one
/// Lanczos-3 pass) at that output's exact size, with PNG output so encoding adds no loss.
struct QualityBench {
    let box: Resize
    let tools: ExternalTools

    func measure(_ files: [BenchCorpus.File]) throws -> [String: BenchReport.Quality] {
        let thumbnailer = Thumbnailer(resize: box)
        var scores: [String: [Double]] = [:]
        var perFile: [String: [String: Double]] = [:]
        let vipsOutputs = try tools.vipsPNGs(files.map(\.path))
        let pillowOutputs = try tools.pillowPNGs(files.map(\.path))
        for file in files {
            var references: [PixelSize: Bitmap] = [:]
            func score(_ bitmap: Bitmap, as tool: String) throws {
                let size = PixelSize(width: bitmap.width, height: bitmap.height)
                if references[size] == nil { references[size] = try thumbnailer.referenceThumbnail(from: file.bytes, size: size) }
                let psnr = ImageComparison.psnr(bitmap, references[size]!)
                scores[tool, default: []].append(psnr)
                perFile[tool, default: [:]][file.name] = psnr
            }
            try score(thumbnailer.thumbnail(from: file.bytes), as: "Imagery")
            if let png = vipsOutputs[file.path] { try score(ImageDecoder().decode(png), as: "vipsthumbnail") }
            if let png = pillowOutputs[file.path] { try score(ImageDecoder().decode(png), as: "Pillow") }
        }
        return scores.mapValues { values in
            // Sources no larger than the box come out unresampled: identical to the reference.
            let finite = values.filter(\.isFinite)
            return BenchReport.Quality(
                mean: finite.isEmpty ? .infinity : finite.reduce(0, +) / Double(finite.count),
                minimum: values.min() ?? .nan, identical: values.count - finite.count
            )
        }.merging(perFile.mapValues { _ in BenchReport.Quality(mean: .nan, minimum: .nan) }) { quality, _ in quality }
            .reduce(into: [:]) { result, entry in
                var quality = entry.value
                quality.perFile = perFile[entry.key] ?? [:]
                result[entry.key] = quality
            }
    }
}

/// A progressive JPEG whose header claims 65,000×65,000.
struct HostileBench {
    let tools: ExternalTools
    let output: String

    func measure(_ progressive: [UInt8]) throws -> BenchReport.Hostile {
        guard let hostile = JPEGFrameHeader.settingSize(of: progressive, width: 65_000, height: 65_000) else {
            return BenchReport.Hostile()
        }
        let path = "\(output)/hostile_65000x65000_progressive.jpg"
        try Data(hostile).write(to: URL(fileURLWithPath: path))
        var result = BenchReport.Hostile()
        var times: [Double] = []
        var message = ""
        for _ in 0..<50 {
            times.append(Measurement.time {
                do { _ = try Thumbnailer(resize: .fit(width: 256, height: 256)).thumbnail(from: hostile) } catch { message = "\(error)" }
            })
        }
        result.imageryInProcessMs = Measurement.median(times)
        result.imageryError = message
        let ours = try Measurement.peakMemory([tools.imageryExecutable, "thumbnail", path, "-o", "\(output)/hostile"])
        result.imageryProcessMs = ours.milliseconds
        result.imageryPeakMB = ours.megabytes
        if let vips = tools.vips {
            let theirs = try Measurement.peakMemory([vips, "--size", "256", "-o", "\(tools.absoluteOutput)/hostile/%s.jpg", path], timeoutSeconds: 60)
            result.vipsMs = theirs.milliseconds
            result.vipsPeakMB = theirs.megabytes
            result.vipsTimedOut = theirs.timedOut
        }
        return result
    }
}

import Foundation
