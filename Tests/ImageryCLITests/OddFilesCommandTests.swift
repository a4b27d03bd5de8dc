import ArgumentParser
import Foundation
import Imagery
import ImageryCodecs
import ImageryTestSupport
import Testing
@testable import ImageryCLI

/// Scanned directories that hold FIFOs, sockets, symlink loops and unreadable files: every such
/// entry is reported with its reason, nothing blocks, and the run fails.
@Suite(.timeLimit(.minutes(10)))
struct OddFilesCommandTests {
    let files: OddFiles

    init() throws { files = try OddFiles(image: Fixtures.rocket) }

    @Test("A directory scan reports each odd entry with its reason and keeps the image")
    func scan() {
        let expanded = InputFiles.expand([files.directory])
        #expect(expanded.paths == [files.image] + (OddFiles.permissionsApply ? [] : [files.unreadable]))
        let reasons = Dictionary(uniqueKeysWithValues: expanded.failures.map { ($0.path, $0.reason) })
        #expect(reasons[files.fifo] == "not a regular file (a FIFO)")
        #expect(reasons[files.socket] == "not a regular file (a socket)")
        #expect(reasons[files.loop] == "Too many levels of symbolic links")
        #expect(reasons[files.directory + "/loop-b.jpg"] == "Too many levels of symbolic links")
        if OddFiles.permissionsApply { #expect(reasons[files.unreadable] == "Permission denied") }
    }

    @Test("thumbnail over such a directory fails the run, and a FIFO named explicitly says what it is")
    func thumbnailExitCode() async throws {
        let output = files.directory + "-out"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let command = try ThumbnailCommand.parseAsRoot([files.directory, "--fit", "32x32", "-o", output]) as! ThumbnailCommand
        await #expect(throws: ExitCode(1)) { try await command.run() }
        #expect(FileManager.default.fileExists(atPath: output + "/photo.jpg"))

        let job = ThumbnailJob(thumbnailer: Thumbnailer(resize: .width(32)), encoder: try ImageEncoder(format: .jpeg), outputDirectory: URL(fileURLWithPath: output))
        let report = await job.run(files: [files.fifo], jobs: 1, progress: Progress(total: 1))
        #expect(report.failures.first?.reason == "cannot read: not a regular file (a FIFO)")
    }

    @Test("grid refuses a sheet it cannot draw before loading anything")
    func gridBounds() throws {
        #expect(throws: (any Error).self) { try GridCommand.parseAsRoot(["--columns", "9223372036854775807"]) }
        #expect(throws: (any Error).self) { try GridCommand.parseAsRoot(["--columns", "100000", "--cell", "1024"]) }
        let sheet = ContactSheet(columns: 5, cell: 128)
        #expect(sheet.refusal(forCells: 535) == nil)            // 107 rows of 152 px: 16,264 px
        #expect(sheet.refusal(forCells: 536)?.contains("at most 535 images") == true)
        #expect(ContactSheet(columns: 120, cell: 128).refusal(forCells: 12_000) == nil)   // thousands fit in more columns
        #expect(ContactSheet(columns: 5, cell: 128).refusal(forCells: .max) != nil)        // no overflow
    }
}
