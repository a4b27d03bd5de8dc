import ArgumentParser
import Foundation
import Imagery
import ImageryDiskCache
import ImageryTestSupport

/// `imagery-cache-stress`: hammers a disk cache from this process, for the crash-safety and
/// two-process tests (which SIGKILL it or run two at once). A test-support executable: the
/// disk-cache tests declare it as a dependency, and no product ships it.
@main
struct CacheStressCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imagery-cache-stress",
        abstract: "Write and read a disk cache in a loop (for the crash and multi-process tests)."
    )

    @Option(help: "Cache directory.")
    var directory: String

    @Option(help: "Iterations; 0 runs until killed.")
    var iterations = 0

    @Option(help: "Distinct keys.")
    var keys = 200

    @Option(help: "Seed for entry sizes and the key order.")
    var seed: UInt64 = 1

    @Flag(help: "Also read and verify a key on every iteration.")
    var read = false

    func run() async throws {
        let cache = try DiskCache(directory: directory)
        var random = SplitMix64(state: seed)
        var corrupt = 0
        var iteration = 0
        while iterations == 0 || iteration < iterations {
            let key = Int(random.next() % UInt64(keys))
            let size = 1_000 + Int(random.next() % 150_000)
            await cache.storeData(StressPayload.make(key: key, generation: iteration, size: size), for: "k\(key)")
            if read {
                let other = Int(random.next() % UInt64(keys))
                if let bytes = await cache.cachedData(for: "k\(other)"), !StressPayload.isValid(bytes, key: other) { corrupt += 1 }
            }
            iteration += 1
            // Unbuffered, so the test reading the pipe sees each line as it is written.
            FileHandle.standardOutput.write(Data("wrote \(iteration)\n".utf8))
        }
        if corrupt > 0 || cache.statistics.diskRejected > 0 {
            print("corrupt \(corrupt) rejected \(cache.statistics.diskRejected)")
            throw ExitCode(1)
        }
    }
}
