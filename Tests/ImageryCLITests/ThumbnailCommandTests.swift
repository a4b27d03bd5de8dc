import ArgumentParser
import Foundation
import Imagery
import ImageryCodecs
import Testing
@testable import ImageryCLI

@Suite(.timeLimit(.minutes(10))) struct ThumbnailCommandTests {
    let input: URL
    let output: URL

    init() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-cli-\(UUID().uuidString)")
        input = root.appendingPathComponent("in")
        output = root.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        // A real photo, written under two names, plus a broken file.
        let photo = try ImageEncoder(format: .jpeg, quality: 90).encode(
            Bitmap(width: 640, height: 480, filledWith: RGBA(red: 30, green: 120, blue: 200))
        )
        try Data(photo).write(to: input.appendingPathComponent("sky.jpeg"))
        try Data(photo).write(to: input.appendingPathComponent("sea.jpg"))
        try Data(photo.prefix(300)).write(to: input.appendingPathComponent("broken.jpg"))
    }

    func job(_ resize: Resize = .fit(width: 64, height: 64), format: ImageFormat = .png) throws -> ThumbnailJob {
        ThumbnailJob(thumbnailer: Thumbnailer(resize: resize), encoder: try ImageEncoder(format: format), outputDirectory: output)
    }

    @Test func writesOneThumbnailPerInputNamedAfterIt() async throws {
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let files = [input.appendingPathComponent("sky.jpeg").path, input.appendingPathComponent("sea.jpg").path]
        let report = try await job().run(files: files, jobs: 2, progress: Progress(total: 2))
        #expect(report.succeeded == 2 && report.failures.isEmpty)
        let sky = try [UInt8](Data(contentsOf: output.appendingPathComponent("sky.png")))
        #expect(ImageFormat(sniffing: sky) == .png)
        let bitmap = try ImageDecoder().decode(sky)
        #expect(bitmap.width == 64 && bitmap.height == 48)
    }

    @Test func aFailureIsReportedAndTheBatchGoesOn() async throws {
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let files = ["broken.jpg", "sea.jpg", "missing.jpg"].map { input.appendingPathComponent($0).path }
        let report = try await job().run(files: files, jobs: 1, progress: Progress(total: 3))
        #expect(report.succeeded == 1)
        let reasons = Dictionary(uniqueKeysWithValues: report.failures.map { (URL(fileURLWithPath: $0.path).lastPathComponent, $0.reason) })
        #expect(reasons["broken.jpg"]?.contains("JPEG data is truncated") == true)
        #expect(reasons["missing.jpg"]?.hasPrefix("cannot read") == true)
    }

    @Test func inputsWithTheSameStemDoNotOverwriteEachOther() async throws {
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let other = input.appendingPathComponent("nested")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: input.appendingPathComponent("sea.jpg"), to: other.appendingPathComponent("sea.jpg"))
        let files = [input.appendingPathComponent("sea.jpg").path, other.appendingPathComponent("sea.jpg").path]
        let report = try await job().run(files: files, jobs: 2, progress: Progress(total: 2))
        #expect(report.succeeded == 1)
        #expect(report.failures.count == 1 && report.failures[0].reason.contains("already written"))
    }

    @Test func commandExitsWithOneWhenAnyImageFails() async throws {
        var command = try ThumbnailCommand.parse([input.path, "--fill", "32x32", "--format", "jpeg", "-o", output.path])
        await #expect(throws: ExitCode(1)) { try await command.run() }
        // The two good photos were still written, as 32x32 JPEGs.
        for name in ["sky.jpg", "sea.jpg"] {
            let bitmap = try ImageDecoder().decode([UInt8](Data(contentsOf: output.appendingPathComponent(name))))
            #expect(bitmap.width == 32 && bitmap.height == 32)
        }
        command = try ThumbnailCommand.parse([input.appendingPathComponent("sky.jpeg").path, "--width", "100", "-o", output.path])
        try await command.run()
    }

    @Test func conflictingOrInvalidOptionsAreRejected() {
        #expect(throws: (any Error).self) { try ThumbnailCommand.parse(["a.jpg", "--fit", "10x10", "--width", "5", "-o", "x"]) }
        #expect(throws: (any Error).self) { try ThumbnailCommand.parse(["a.jpg", "--fit", "10by10", "-o", "x"]) }
        #expect(throws: (any Error).self) { try ThumbnailCommand.parse(["a.jpg", "--quality", "101", "-o", "x"]) }
    }

    @Test("Processor flags parse into processors in the documented order, and --circle writes a PNG with clear corners")
    func processorFlags() async throws {
        let sky = input.appendingPathComponent("sky.jpeg").path
        let command = try ThumbnailCommand.parseAsRoot([
            sky, "--fill", "80x80", "--crop", "60x40:north", "--blur", "1.5", "--sharpen", "--circle", "-o", output.path,
        ]) as! ThumbnailCommand
        #expect(command.processors.map(\.identifier) == ["crop(60x40,no)", "blur(1.5)", "sharpen(1.0,1.0,0)", "circle"])
        #expect(command.outputFormat == .png)
        try await command.run()
        let written = try ImageDecoder().decode([UInt8](Data(contentsOf: output.appendingPathComponent("sky.png"))))
        #expect(written.width == 40 && written.height == 40)
        #expect(written.pixel(x: 0, y: 0).alpha == 0 && written.pixel(x: 20, y: 20).alpha == 255)

        #expect(throws: (any Error).self) { try ThumbnailCommand.parseAsRoot([sky, "--crop", "10x10:sideways", "-o", output.path]) }
        #expect(throws: (any Error).self) { try ThumbnailCommand.parseAsRoot([sky, "--round", "4", "--circle", "-o", output.path]) }
        #expect(throws: (any Error).self) { try ThumbnailCommand.parseAsRoot([sky, "--blur", "-1", "-o", output.path]) }
    }
}
