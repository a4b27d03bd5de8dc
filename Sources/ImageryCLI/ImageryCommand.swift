import ArgumentParser

@main
struct ImageryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imagery",
        abstract: "Load, decode, resize and encode images on Linux and Apple platforms.",
        subcommands: [GridCommand.self, ThumbnailCommand.self]
    )
}
