import Foundation
@testable import Imagery
import ImageryTestSupport
import Testing

/// Local files that are not what they seem fail at once, with what is wrong with them.
@Suite(.timeLimit(.minutes(10)))
struct FileLoadingTests {
    let files: OddFiles
    let loader = DataLoader()

    init() throws { files = try OddFiles(image: Fixtures.rocket) }

    func failure(_ path: String) async -> DataLoadingError? {
        do {
            _ = try await loader.loadData(for: .file(path)) { _ in }
            return nil
        } catch {
            return error
        }
    }

    @Test("A FIFO fails at once as not a regular file, instead of blocking in open() for a writer")
    func fifo() async {
        #expect(await failure(files.fifo) == .fileUnreadable(path: files.fifo, detail: "not a regular file (a FIFO)"))
    }

    @Test("A socket and a directory are not regular files either")
    func socketAndDirectory() async {
        #expect(await failure(files.socket) == .fileUnreadable(path: files.socket, detail: "not a regular file (a socket)"))
        #expect(await failure(files.directory) == .fileUnreadable(path: files.directory, detail: "not a regular file (a directory)"))
    }

    @Test("A symlink loop says so, not 'no such file'")
    func symlinkLoop() async {
        #expect(await failure(files.loop) == .fileUnreadable(path: files.loop, detail: "Too many levels of symbolic links"))
    }

    @Test("A file nobody may read says permission denied",
          .enabled(if: OddFiles.permissionsApply, "runs as root, who may read any file"))
    func unreadable() async {
        #expect(await failure(files.unreadable) == .fileUnreadable(path: files.unreadable, detail: "Permission denied"))
    }

    @Test("A file over the size limit is refused from its size, before it is read")
    func sizeLimit() async throws {
        var configuration = DataLoader.Configuration()
        configuration.maximumResponseSize = 1_000
        let small = DataLoader(configuration: configuration)
        await #expect(throws: DataLoadingError.tooLarge(source: files.image, limit: 1_000)) {
            try await small.loadData(for: .file(files.image)) { _ in }
        }
        #expect(try await loader.loadData(for: .file(files.image)) { _ in } == Fixtures.rocket)
    }

    @Test("A local file loads at once while slow downloads hold every download slot")
    func filesTakeNoDownloadSlot() async throws {
        let gate = Gate()
        let server = try TestHTTPServer { _ in .gated(Fixtures.rocket, gate: gate) }
        defer { server.stop() }
        // The held downloads sit idle until the gate opens after the local load; under TSan on
        // a busy 2-core machine that load took over the default 30 s idle timeout once.
        var patient = DataLoader.Configuration()
        patient.timeout = .seconds(600)
        let pipeline = Fixtures.pipeline(loader: DataLoader(configuration: patient))
        let slow = (0..<pipeline.configuration.maximumConcurrentDownloads + 2).map {
            pipeline.imageTask(with: ImageRequest(url: server.url("/slow-\($0).jpg")))
        }
        await pipeline.graph.waitUntil { $0.downloads.running == pipeline.configuration.maximumConcurrentDownloads && $0.waitingDownloads == 2 }

        // Every slot is taken and two downloads wait; the file does not queue behind them.
        let local = try await pipeline.response(for: ImageRequest(source: .file(files.image)))
        #expect(local.image.width == 640)
        // The held downloads end only when the gate opens (it never opens by itself while the
        // server runs), so none has freed its slot for a seventh.
        let started = slow.indices.filter { server.events.count("request:/slow-\($0).jpg") > 0 }
        #expect(
            started.count <= pipeline.configuration.maximumConcurrentDownloads,
            "downloads started before the gate opened: \(server.events.counts.filter { $0.key.hasPrefix("request:") })"
        )

        gate.open()
        for task in slow { _ = try await task.response }
    }

    @Test("Bytes a caller holds already (a server's fetched source) decode at once while downloads hold every slot and more wait")
    func bytesAtHandTakeNoDownloadSlot() async throws {
        let loader = ControlledLoader()
        let pipeline = Fixtures.pipeline(loader: loader)
        let slots = pipeline.configuration.maximumConcurrentDownloads
        let held = (0...slots).map { pipeline.imageTask(with: ImageRequest(source: .custom(id: "held-\($0)") { [] })) }
        await pipeline.graph.waitUntil { $0.downloads.running == slots && $0.waitingDownloads == 1 }

        // The loader is asked for them too (it holds every source it is not told to release).
        loader.release("at-hand")
        let image = try await pipeline.response(for: ImageRequest(source: .bytes(id: "at-hand", Fixtures.rocket)))
        #expect(image.image.width == 640)
        #expect(loader.startOrder.filter { $0.hasPrefix("held-") }.count == slots, "a held download's slot went to another")

        loader.releaseAll()
        for task in held { _ = try await task.response }
    }
}
