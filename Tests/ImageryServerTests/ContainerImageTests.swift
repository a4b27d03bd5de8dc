import Foundation
import Imagery
import ImageryCodecs
import ImageryTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The container image `scripts/build-image.sh` builds, tested without a container runtime
/// (none runs in this sandbox): its root filesystem is exported, /proc and /dev are mounted
/// into it, and the server runs there under `chroot` as the unprivileged user the image names.
///
/// A skip by design in CI: the image is a release build with every format, beyond CI's time
/// budget. Build it, then name it:
///
///     scripts/build-image.sh && IMAGERY_CONTAINER_IMAGE=imagery-server:latest swift test --filter ContainerImageTests
@Suite(
    "The container image, run from its root filesystem", .serialized, .tags(.integration), .offUnderSanitizer, .timeLimit(.minutes(10)),
    .enabled(
        if: ContainerImage.name != nil && ContainerImage.podman != nil,
        "needs a built image named in IMAGERY_CONTAINER_IMAGE (scripts/build-image.sh; a release build beyond CI's budget) and podman"
    )
)
struct ContainerImageTests {
    @Test("As user 65534 under chroot, the image's server answers /health, a processed JPEG, AVIF, HEIC and SVG sources (text drawn); `health` tells up from down")
    func imageServes() async throws {
        let root = try await ContainerImage.exportRootFilesystem()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try ContainerImage.mount(into: root)
        defer { ContainerImage.unmount(from: root) }
        let origin = try TestHTTPServer { request in
            switch request.path {
            case "/rocket.jpg": .ok(Fixtures.rocket)
            case "/rocket.avif": .ok(Fixtures.bytes("avif_rocket_320x214.avif"))
            case "/rocket.heic": .ok(Fixtures.bytes("heic_rocket_320x214.heic"))
            case "/label.svg": .ok(ContainerImage.label(text: true))
            case "/blank.svg": .ok(ContainerImage.label(text: false))
            default: .status(404)
            }
        }
        defer { origin.stop() }

        // The image's own environment, with the address narrowed to loopback for the test.
        let environment = try await ContainerImage.environment().merging([
            "IMAGERY_HOST": "127.0.0.1", "IMAGERY_PORT": "0", "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "true",
        ]) { $1 }
        let server = try ServerProcess.start(
            executable: "/usr/sbin/chroot", ["--userspec=65534:65534", root, "/imagery-server"], readyMarker: "listening", environment: environment
        )
        defer { server.kill() }
        let port = try await server.port()

        #expect(try await Cluster.get(port: port, "/health").status == 200)
        for (name, width) in [("rocket.jpg", 100), ("rocket.avif", 90), ("rocket.heic", 80)] {
            let reply = try await Cluster.get(port: port, "/unsafe/rs:fit:\(width):\(width)/plain/http://127.0.0.1:\(origin.port)/\(name)@jpg")
            #expect(reply.status == 200, "\(name): \(reply.text)")
            let image = try ServerHarness.image(reply)
            #expect(image.width == width, "\(name)")
        }

        // SVG: passed through as sanitized SVG, and rasterized with the image's one font family
        // (a label drawn with text differs from the same label without it).
        let passed = try await Cluster.get(port: port, "/unsafe/plain/http://127.0.0.1:\(origin.port)/label.svg")
        #expect(passed.status == 200 && passed.header("Content-Type") == "image/svg+xml", "\(passed.status) \(passed.text.prefix(200))")
        var drawn: [Bitmap] = []
        for name in ["label.svg", "blank.svg"] {
            let reply = try await Cluster.get(port: port, "/unsafe/rs:fit:300:0/plain/http://127.0.0.1:\(origin.port)/\(name)@png")
            #expect(reply.status == 200, "\(name): \(reply.text.prefix(200))")
            drawn.append(try ServerHarness.image(reply))
        }
        let (label, blank) = (drawn[0], drawn[1])
        #expect(label.width == 300 && blank.width == 300)
        let differing = stride(from: 0, to: min(label.pixels.count, blank.pixels.count), by: 4).filter { label.pixels[$0] != blank.pixels[$0] }.count
        #expect(differing > 500, "\(differing) pixels of text: the image has no font librsvg can draw with")

        let probe = environment.merging(["IMAGERY_PORT": String(port)]) { $1 }
        #expect(try await ContainerImage.health(root: root, environment: probe) == 0)
        server.signal(SIGTERM)
        _ = await server.exitCode()
        #expect(try await ContainerImage.health(root: root, environment: probe) != 0)
    }
}

/// The image under test, and what it takes to run it without a container runtime.
enum ContainerImage {
    static let name = ProcessInfo.processInfo.environment["IMAGERY_CONTAINER_IMAGE"]
    static let podman = ["/usr/bin/podman", "/usr/local/bin/podman"].first { FileManager.default.isExecutableFile(atPath: $0) }

    private static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, output: String) {
        let output = NSTemporaryDirectory() + "imagery-container-\(UUID().uuidString).txt"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let outcome = try await ChildProcess.run(executable, arguments, output: output, environment: environment)
        return (outcome.exitCode, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    }

    /// A white label with black text on it, or the same label with none.
    static func label(text: Bool) -> [UInt8] {
        Array("""
        <svg xmlns="http://www.w3.org/2000/svg" width="300" height="80"><rect width="300" height="80" fill="#ffffff"/>\(text ? "<text x=\"10\" y=\"55\" font-family=\"sans-serif\" font-size=\"40\" fill=\"#000000\">Imagery</text>" : "")</svg>
        """.utf8)
    }

    /// The image's root filesystem, unpacked into a new directory.
    static func exportRootFilesystem() async throws -> String {
        let podman = try #require(podman), image = try #require(name)
        let root = NSTemporaryDirectory() + "imagery-rootfs-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let container = "imagery-export-\(UUID().uuidString.prefix(8))"
        let created = try await run(podman, ["--storage-driver", "vfs", "create", "--name", container, image])
        try #require(created.status == 0, "podman create: \(created.output)")
        let archive = root + ".tar"
        defer { try? FileManager.default.removeItem(atPath: archive) }
        let exported = try await run(podman, ["--storage-driver", "vfs", "export", "--output", archive, container])
        _ = try await run(podman, ["--storage-driver", "vfs", "rm", container])
        try #require(exported.status == 0, "podman export: \(exported.output)")
        let unpacked = try await run("/usr/bin/tar", ["-xf", archive, "-C", root])
        try #require(unpacked.status == 0, "tar: \(unpacked.output)")
        return root
    }

    /// The image's `ENV`, as podman reports it.
    static func environment() async throws -> [String: String] {
        let inspected = try await run(try #require(podman), ["--storage-driver", "vfs", "image", "inspect", "--format", "{{range .Config.Env}}{{println .}}{{end}}", try #require(name)])
        try #require(inspected.status == 0, "podman image inspect: \(inspected.output)")
        return Dictionary(inspected.output.split(separator: "\n").compactMap { line -> (String, String)? in
            guard let equals = line.firstIndex(of: "=") else { return nil }
            return (String(line[..<equals]), String(line[line.index(after: equals)...]))
        }, uniquingKeysWith: { $1 })
    }

    /// /proc and /dev, which the Swift runtime needs, mounted into `root`.
    static func mount(into root: String) throws {
        for point in ["proc", "dev"] { try FileManager.default.createDirectory(atPath: root + "/" + point, withIntermediateDirectories: true) }
        try #require(Glibc.mount("proc", root + "/proc", "proc", 0, nil) == 0, "mounting /proc: \(String(cString: strerror(errno)))")
        try #require(Glibc.mount("/dev", root + "/dev", nil, UInt(MS_BIND), nil) == 0, "binding /dev: \(String(cString: strerror(errno)))")
    }

    /// Unmounts both, by path, whatever happened.
    static func unmount(from root: String) {
        for point in ["proc", "dev"] { _ = umount2(root + "/" + point, Int32(MNT_DETACH)) }
    }

    /// `imagery-server health`'s exit code, run in `root` as the image's user.
    static func health(root: String, environment: [String: String]) async throws -> Int32 {
        try await run("/usr/sbin/chroot", ["--userspec=65534:65534", root, "/imagery-server", "health"], environment: environment).status
    }
}
