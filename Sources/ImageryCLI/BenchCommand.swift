import ArgumentParser

struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "bench", abstract: "Benchmark thumbnails against the codec floor and other tools.")
    func run() async throws {}
}
