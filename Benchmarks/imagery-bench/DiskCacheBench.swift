import ArgumentParser
import Foundation
import Imagery
import ImageryCodecs
import ImageryDiskCache

/// `imagery-bench disk-cache`: the SQLite disk cache against a file-per-entry baseline (one
/// file per key, atomic rename: how most image libraries store), in one run.
struct DiskCacheBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "disk-cache",
        abstract: "Benchmark the disk cache against a file-per-entry baseline."
    )

    @Option(help: "Repetitions per measurement (medians are reported).")
    var repetitions = 5

    @Option(help: "Directory for scratch caches and disk-cache.md.")
    var output = "bench-out"

    @Option(help: "A large JPEG to thumbnail (default: the 12 MP photo in Benchmarks/Corpus).")
    var original: String?

    func run() async throws {
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        let scratch = output + "/disk-cache-scratch"
        try? FileManager.default.removeItem(atPath: scratch)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        var rows: [String] = []

        log("20 KB reads")
        let small = try await readLatency(entry: 20_000, count: 1000, scratch: scratch + "/read20k")
        rows.append("| 20 KB entry read, p50 | \(f(small.disk)) µs | \(f(small.files)) µs | ≤ 50 µs |")
        log("500 KB reads: as a file beside the index, and as an inline SQLite blob")
        let large = try await readLatency(entry: 500_000, count: 100, scratch: scratch + "/read500k")
        var inline = DiskCache.Configuration()
        inline.fileThreshold = .max
        let largeInline = try await readLatency(entry: 500_000, count: 100, scratch: scratch + "/read500k-inline", configuration: inline)
        rows.append("| 500 KB entry read, p50: stored as a file (the default above 128 KiB) | \(f(large.disk)) µs | \(f(large.files)) µs | faster than inline |")
        rows.append("| 500 KB entry read, p50: stored as an inline blob | \(f(largeInline.disk)) µs | – | – |")
        log("writes")
        let writes = try await writeThroughput(entry: 20_000, count: 1000, scratch: scratch + "/write")
        rows.append("| Write throughput, 20 KB entries | \(f(writes.disk, 0)) /s | \(f(writes.files, 0)) /s | ≥ baseline |")
        log("open 100,000 entries")
        let open = try await openTime(entries: 100_000, scratch: scratch + "/open")
        rows.append("| Open a cache of 100,000 entries | \(f(open.disk, 1)) ms | \(f(open.files, 1)) ms (list + stat) | ≤ 100 ms |")
        log("warm-disk thumbnail vs decoding the original")
        let warm = try await warmThumbnail(scratch: scratch + "/warm")
        rows.append("| 256 px thumbnail: warm disk vs decoding \(warm.name) | \(f(warm.disk, 2)) ms | \(f(warm.decode, 2)) ms decode (\(f(warm.decode / warm.disk, 0))×) | ≥ 20× |")

        let markdown = """
        | Measurement (median of \(repetitions)) | DiskCache (SQLite) | File per entry | Target |
        |---|---:|---:|---|
        \(rows.joined(separator: "\n"))
        """
        print(markdown)
        try markdown.write(toFile: "\(output)/disk-cache.md", atomically: true, encoding: .utf8)
    }

    private func f(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }

    private func payload(_ size: Int, _ seed: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ seed) }
    }

    private func readLatency(
        entry: Int, count: Int, scratch: String, configuration: DiskCache.Configuration = DiskCache.Configuration()
    ) async throws -> (disk: Double, files: Double) {
        let disk = try DiskCache(directory: scratch + "/sqlite", configuration: configuration)
        let files = try FilePerEntryCache(directory: scratch + "/files")
        for index in 0..<count {
            let bytes = payload(entry, index)
            await disk.storeData(bytes, for: "key-\(index)")
            try files.store(bytes, for: "key-\(index)")
        }
        var diskTimes: [Double] = [], fileTimes: [Double] = []
        let clock = ContinuousClock()
        for _ in 0..<repetitions {
            for index in (0..<count).shuffled() {
                var start = clock.now
                guard await disk.cachedData(for: "key-\(index)")?.count == entry else { throw ValidationError("disk miss") }
                diskTimes.append((clock.now - start).seconds * 1e6)
                start = clock.now
                guard files.data(for: "key-\(index)")?.count == entry else { throw ValidationError("file miss") }
                fileTimes.append((clock.now - start).seconds * 1e6)
            }
        }
        return (Measurement.median(diskTimes), Measurement.median(fileTimes))
    }

    private func writeThroughput(entry: Int, count: Int, scratch: String) async throws -> (disk: Double, files: Double) {
        var diskRates: [Double] = [], fileRates: [Double] = []
        for repetition in 0..<repetitions {
            let disk = try DiskCache(directory: scratch + "/sqlite-\(repetition)")
            let files = try FilePerEntryCache(directory: scratch + "/files-\(repetition)")
            let entries = (0..<count).map { payload(entry, $0) }
            let diskMs = await Measurement.timeAsync {
                for (index, bytes) in entries.enumerated() { await disk.storeData(bytes, for: "key-\(index)") }
            }
            let fileMs = try Measurement.time {
                for (index, bytes) in entries.enumerated() { try files.store(bytes, for: "key-\(index)") }
            }
            diskRates.append(Double(count) / diskMs * 1000)
            fileRates.append(Double(count) / fileMs * 1000)
        }
        return (Measurement.median(diskRates), Measurement.median(fileRates))
    }

    private func openTime(entries: Int, scratch: String) async throws -> (disk: Double, files: Double) {
        let bytes = payload(1000, 1)
        do {
            let disk = try DiskCache(directory: scratch + "/sqlite")
            await disk.storeMany((0..<entries).map { ("key-\($0)", bytes) })
            let files = try FilePerEntryCache(directory: scratch + "/files")
            for index in 0..<entries { try files.store(bytes, for: "key-\(index)") }
        }
        var diskTimes: [Double] = [], fileTimes: [Double] = []
        for _ in 0..<repetitions {
            diskTimes.append(try Measurement.time { _ = try DiskCache(directory: scratch + "/sqlite") })
            fileTimes.append(try Measurement.time { _ = try FilePerEntryCache(directory: scratch + "/files").totalSize() })
        }
        return (Measurement.median(diskTimes), Measurement.median(fileTimes))
    }

    private func warmThumbnail(scratch: String) async throws -> (name: String, disk: Double, decode: Double) {
        let path = original ?? "Benchmarks/Corpus/jpeg_large_base_sunset_4272x2848.jpg"
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let request = ImageRequest(source: .custom(id: path) { bytes }, resize: .fit(width: 256, height: 256))
        func pipeline() -> ImagePipeline {
            var configuration = ImagePipeline.Configuration.standard
            configuration.imageCache = nil
            configuration.useDiskCache(directory: scratch)
            return ImagePipeline(configuration: configuration)
        }
        let warmUp = pipeline()
        _ = try await warmUp.response(for: request)
        await warmUp.waitUntilIdle()
        let warm = pipeline()
        var diskTimes: [Double] = [], decodeTimes: [Double] = []
        let thumbnailer = Thumbnailer(resize: .fit(width: 256, height: 256))
        for _ in 0..<repetitions * 4 {
            let ms = try await Measurement.timeAsync {
                guard try await warm.response(for: request).origin == .disk else { throw ValidationError("not a disk hit") }
            }
            diskTimes.append(ms)
            decodeTimes.append(try Measurement.time { _ = try thumbnailer.thumbnail(from: bytes) })
        }
        return ((path as NSString).lastPathComponent, Measurement.median(diskTimes), Measurement.median(decodeTimes))
    }
}

/// The baseline: one file per key under a hashed name, written to a temporary file and renamed
/// into place (atomic, no fsync), read whole; opening lists the directory to learn its size.
struct FilePerEntryCache {
    let directory: String

    init(directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    private func path(for key: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return directory + "/" + String(hash, radix: 16)
    }

    func store(_ bytes: [UInt8], for key: String) throws {
        let final = path(for: key)
        let temporary = final + ".tmp"
        try Data(bytes).write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, final) == 0 else { throw POSIXError(.EIO) }
    }

    func data(for key: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path(for: key)).map { [UInt8]($0) }
    }

    func totalSize() throws -> Int {
        var total = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            var info = stat()
            if stat(directory + "/" + name, &info) == 0 { total += Int(info.st_size) }
        }
        return total
    }
}
