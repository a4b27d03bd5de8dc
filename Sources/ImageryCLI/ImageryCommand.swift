import ArgumentParser

@main
struct ImageryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imagery",
        abstract: "Decode, resize and encode images on Linux and Apple platforms.",
        subcommands: [ThumbnailCommand.self, BenchCommand.self, CacheStressCommand.self]
    )
}
