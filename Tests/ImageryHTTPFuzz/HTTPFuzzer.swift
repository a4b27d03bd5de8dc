import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Imagery
import ImageryHTTPSurface
import ImageryServer

/// The HTTP fuzz target: any bytes, read as a ``HostileExchange`` (a request's method, path and
/// headers, and its origin's status, headers and body), through imagery-server's router in this
/// process, with every setting that changes header handling on. The same request is asked
/// again after the exchange's `Later` seconds, so that stored answers are read back. Any
/// trap, sanitizer report, hang past `-timeout`, 500, or success that is not what it says is a
/// finding.
///
/// Built by `scripts/fuzz.sh http` with `-D FUZZING` and libFuzzer, whose runtime provides
/// `main`. Built plainly, it replays inputs: `imagery-http-fuzz FILE...` (the server tests
/// replay `Fuzz/http-seeds` and any findings so), and runs the property tests' batches:
/// `imagery-http-fuzz --property request-headers`.
///
/// libFuzzer calls in on its own thread and waits for each answer; the surface lives for the
/// process in a task of its own, which takes the exchanges one at a time.
final class HTTPFuzzer: Sendable {
    private struct Job: Sendable {
        let exchange: HostileExchange
        let done: @Sendable ([String]) -> Void
    }

    private let jobs: AsyncStream<Job>.Continuation

    init() {
        let (stream, jobs) = AsyncStream<Job>.makeStream()
        self.jobs = jobs
        let ready = DispatchSemaphore(value: 0)
        Task.detached {
            do {
                // Stored answers are read back from disk too: the memory tier keeps almost
                // nothing, so a second ask after `Later` goes to the disk tier's entry.
                let disk = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-http-fuzz-\(getpid())")
                defer { try? FileManager.default.removeItem(at: disk) }
                try await HTTPSurface.run({
                    if ProcessInfo.processInfo.environment["IMAGERY_FUZZ_DISK"] != nil { $0.cacheDirectory = disk.path }
                    $0.responseCacheBytes = 4096
                }) { surface in
                    ready.signal()
                    for await job in stream {
                        do {
                            job.done(try await surface.ask(job.exchange))
                        } catch {
                            job.done(["the test client failed: \(error)"])
                        }
                    }
                }
            } catch {
                FileHandle.standardError.write(Data("imagery-http-fuzz: the surface did not start: \(error)\n".utf8))
                exit(2)
            }
        }
        ready.wait()
    }

    /// The problems with `bytes`' exchange; empty when it was answered as it should be.
    func check(_ bytes: UnsafeBufferPointer<UInt8>) -> [String] {
        let exchange = HostileExchange(text: String(decoding: bytes, as: UTF8.self))
        let answered = DispatchSemaphore(value: 0)
        let problems = Locked<[String]>([])
        jobs.yield(Job(exchange: exchange) { found in
            problems.withLock { $0 = found }
            answered.signal()
        })
        answered.wait()
        return problems.withLock { $0 }
    }
}

#if FUZZING
let fuzzer = HTTPFuzzer()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let problems = fuzzer.check(UnsafeBufferPointer(start: data, count: size))
    guard problems.isEmpty else {
        FileHandle.standardError.write(Data(("imagery-http-fuzz: " + problems.joined(separator: "\n") + "\n").utf8))
        abort()
    }
    return 0
}
#else
@main
struct HTTPFuzzReplay {
    /// `imagery-http-fuzz FILE...` replays inputs; `imagery-http-fuzz --property NAME` asks a
    /// ``PropertyBatch`` and prints what was wrong. Either exits 1 when anything was.
    static func main() async throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "--property", arguments.count == 2 {
            guard let batch = PropertyBatch(rawValue: arguments[1]) else {
                print("unknown batch \(arguments[1]): \(PropertyBatch.allCases.map(\.rawValue).joined(separator: ", "))")
                exit(64)
            }
            // Background work beside a test run: the suites running meanwhile (whose requests have
            // deadlines) get the cores first, and this batch takes what they leave.
            setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
            let exchanges = batch.exchanges
            let problems = try await HTTPSurface.run { surface in try await surface.ask(exchanges) }
            print("checked \(exchanges.count) exchanges for \(batch.targets.count) targets: \(problems.count) problems")
            for problem in problems.prefix(20) { print("---\n" + problem) }
            if !problems.isEmpty { exit(1) }
            return
        }
        let fuzzer = HTTPFuzzer()
        var failed = false
        for file in arguments {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
            let problems = bytes.withUnsafeBufferPointer(fuzzer.check)
            if problems.isEmpty {
                print("ok \(file)")
            } else {
                failed = true
                print("FAILED \(file)\n" + problems.joined(separator: "\n"))
            }
        }
        if failed { exit(1) }
    }
}
#endif
