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
