import ArgumentParser
import Foundation
import Imagery
import ImageryHTTPClient

/// `imagery-load-probe URL`: loads one URL with ``HTTPClientDataLoader`` and reports the
/// outcome, so that tests can read the peak memory and CPU time of a load from `wait4`
/// without the other tests of their process in the figures. A test-support executable.
@main
struct LoadProbeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "imagery-load-probe")

    @Argument(help: "The http(s) URL to load.")
    var url: String

    @Option(help: "Maximum response size in bytes.")
    var limit = 64 << 20

    @Option(help: "Idle timeout in seconds.")
    var idle = 30.0

    @Option(help: "Total deadline in seconds.")
    var deadline = 60.0

    func run() async throws {
        var configuration = HTTPClientDataLoader.Configuration()
        configuration.maximumResponseSize = limit
        configuration.idleTimeout = .milliseconds(Int(idle * 1000))
        configuration.totalDeadline = .milliseconds(Int(deadline * 1000))
        let loader = HTTPClientDataLoader(configuration: configuration)
        let outcome: Result<[UInt8], DataLoadingError>
        do throws(DataLoadingError) {
            outcome = .success(try await loader.loadData(for: .url(URL(string: url)!)) { _ in })
        } catch {
            outcome = .failure(error)
        }
        try await loader.shutdown()
        switch outcome {
        case let .success(bytes): print("ok \(bytes.count)")
        case let .failure(error):
            print("failed \(error.kind): \(error)")
            throw ExitCode(1)
        }
    }
}
