import Imagery
import ImageryCodecs

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
