import Foundation
@testable import ImageryServer
import ImageryTestSupport
import Testing

/// The deployment files in `deploy/` (the Compose file, the Kubernetes manifest, the image's
/// defaults) hold settings an operator copies as they are: each environment they set must load
/// as the image's server would load it, with no warning, on the image's address, and every
/// probe must call the image's own entry point. No container runtime or cluster runs here, so
/// this is what keeps those files true to the server.
@Suite("The deployment files load as the server reads them")
struct DeploymentFileTests {
    static let deploy = NginxFront.repository.appendingPathComponent("deploy")

    static func text(_ name: String) throws -> String {
        try String(contentsOf: deploy.appendingPathComponent(name), encoding: .utf8)
    }

    /// A value an operator supplies (a secret, a pod's name), stood in for by one of its kind.
    static func stand(in name: String) -> String {
        name.hasSuffix("_KEY") || name.hasSuffix("_SALT") ? String(repeating: "ab", count: 32) : "imagery-0"
    }

    /// The Compose file's `environment:` map: `NAME: value` lines, `${…}` values supplied.
    static func composeEnvironment() throws -> [String: String] {
        var environment: [String: String] = [:], inside = false
        for line in try text("compose.yaml").split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingCharacters(in: .whitespaces) == "environment:" { inside = true; continue }
            guard inside else { continue }
            guard line.hasPrefix("      "), let colon = line.firstIndex(of: ":") else { inside = false; continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            var value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            value = value.hasPrefix("${") ? stand(in: name) : value.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            environment[name] = value
        }
        return environment
    }

    /// The Kubernetes container's `env:` list: `- name:` with a `value:` or a `valueFrom:`.
    static func kubernetesEnvironment() throws -> [String: String] {
        var environment: [String: String] = [:], name: String?
        for line in try text("kubernetes.yaml").split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("- name: IMGPROXY_") || line.hasPrefix("- name: IMAGERY_") {
                name = String(line.dropFirst("- name: ".count))
            } else if let current = name, line.hasPrefix("value:") {
                environment[current] = line.dropFirst("value:".count).trimmingCharacters(in: CharacterSet(charactersIn: " \""))
                name = nil
            } else if let current = name, line.hasPrefix("valueFrom:") {
                environment[current] = stand(in: current)
                name = nil
            }
        }
        return environment
    }

    @Test("The Compose file's and the Kubernetes manifest's environments, over the image's defaults, start a signed server on 0.0.0.0:8080 with no warning", arguments: ["compose.yaml", "kubernetes.yaml"])
    func environmentsLoad(_ file: String) async throws {
        let given = try file == "compose.yaml" ? Self.composeEnvironment() : Self.kubernetesEnvironment()
        #expect(given.count >= 5, "\(file): \(given.keys.sorted())")
        let environment = given.merging(["IMAGERY_CONFIG": Self.deploy.appendingPathComponent("image.json").path]) { $1 }

        let loaded = try await ServerSettingsTests.load(environment: environment)
        #expect(loaded.warnings.isEmpty, "\(file): \(loaded.warnings)")
        #expect(loaded.configuration.resolvedHost == "0.0.0.0" && loaded.configuration.port == 8080)
        #expect(loaded.configuration.keyHex != nil && loaded.configuration.saltHex != nil, "\(file) must sign URLs")
        #expect(loaded.configuration.cacheDirectory == "/var/cache/imagery-server")
        for name in given.keys {
            #expect(loaded.origins.values.contains { $0.contains(name) }, "\(file): \(name) set nothing")
        }

        // What the probes run: the same settings, asking the image's address on loopback.
        let probe = try await ServerSettings.load(arguments: ["imagery-server", "health"], environment: environment)
        #expect(probe.action == .health)
        #expect(HealthCheck.url(for: probe.configuration) == "http://127.0.0.1:8080/health")
    }

    @Test("Every health check and probe runs the image's entry point's `health`")
    func probesRunTheEntryPoint() throws {
        let containerfile = try Self.text("Containerfile")
        #expect(containerfile.contains("ENTRYPOINT [\"/imagery-server\"]"))
        #expect(containerfile.contains("CMD [\"/imagery-server\", \"health\"]"))
        #expect(containerfile.contains("ENV IMAGERY_CONFIG=/etc/imagery-server/image.json"))
        #expect(try Self.text("compose.yaml").contains("test: [\"CMD\", \"/imagery-server\", \"health\"]"))
        let probes = try Self.text("kubernetes.yaml").components(separatedBy: "command: [\"/imagery-server\", \"health\"]").count - 1
        #expect(probes == 2, "the liveness and readiness probes")
        #expect(try String(contentsOf: NginxFront.repository.appendingPathComponent("scripts/build-image.sh"), encoding: .utf8)
            .contains("deploy/image.json"), "the image's defaults are the file tested here")
    }

    @Test("The edge's configuration renders for Kubernetes: every interface, logs in nginx's directory, upstreams that follow their names")
    func edgeRendersForKubernetes() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-k8s-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let rendered = try await ChildProcess.run(
            "/usr/bin/env",
            ["IMAGERY_RENDER_LISTEN=8080", "IMAGERY_RENDER_LOGS=/var/log/nginx", "IMAGERY_UPSTREAM_PARAMS=max_fails=2 fail_timeout=5s resolve",
             "/bin/bash", NginxFront.repository.appendingPathComponent("scripts/cluster.sh").path, "render", directory.path, "8080",
             "/var/cache/nginx/imagery", "imagery-0.imagery:8080", "imagery-1.imagery:8080", "imagery-2.imagery:8080"]
        )
        try #require(rendered.exitCode == 0)
        let configuration = try String(contentsOf: directory.appendingPathComponent("imagery.conf"), encoding: .utf8)
        let lines = configuration.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains { $0.hasPrefix("listen 8080;") })
        #expect(lines.contains { $0.hasPrefix("access_log /var/log/nginx/imagery-access.log") })
        #expect(lines.contains { $0.hasPrefix("zone ") }, "resolve needs the upstream in shared memory")
        let servers = lines.filter { $0.hasPrefix("server imagery-") }
        #expect(servers.count == 3 && servers.allSatisfy { $0.hasSuffix("resolve;") }, "\(servers)")
        // The manifest's own instructions render the same way.
        let manifest = try Self.text("kubernetes.yaml")
        for needle in ["IMAGERY_RENDER_LISTEN=8080", "IMAGERY_RENDER_LOGS=/var/log/nginx", "fail_timeout=5s resolve", "imagery-2.imagery:8080"] {
            #expect(manifest.contains(needle), "\(needle)")
        }
    }

    /// A Kubernetes quantity (`640Mi`) or a Compose byte value (`640m`), in bytes.
    static func bytes(_ text: some StringProtocol) -> Int? {
        let text = text.trimmingCharacters(in: .whitespaces)
        let units: [(String, Int)] = [("Gi", 30), ("Mi", 20), ("Ki", 10), ("g", 30), ("m", 20), ("k", 10)]
        for (suffix, shift) in units where text.hasSuffix(suffix) {
            return Int(text.dropLast(suffix.count)).map { $0 << shift }
        }
        return Int(text)
    }

    @Test("The manifest's and the Compose file's memory limits make the server's budget 512 MiB, room for a 42 MP output beside the caches, and the request or reservation is that budget")
    func memoryLimits() throws {
        let manifest = try Self.text("kubernetes.yaml").split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        func memory(under heading: String) throws -> Int {
            let start = try #require(manifest.firstIndex(of: heading), "no \(heading) in kubernetes.yaml")
            let line = try #require(manifest[start...].first { $0.hasPrefix("memory:") })
            return try #require(Self.bytes(line.dropFirst("memory:".count)), "\(line)")
        }
        let compose = try Self.text("compose.yaml").split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        func composeValue(_ key: String) throws -> Int {
            let line = try #require(compose.first { $0.hasPrefix(key + ":") }, "no \(key) in compose.yaml")
            return try #require(Self.bytes(line.dropFirst(key.count + 1)), "\(line)")
        }
        for (file, limit, requested) in [
            ("kubernetes.yaml", try memory(under: "limits:"), try memory(under: "requests:")),
            ("compose.yaml", try composeValue("mem_limit"), try composeValue("mem_reservation")),
        ] {
            let budget = MemoryBudget.resolve(setting: nil, limit: ControlGroup.Limit(bytes: limit, file: "/sys/fs/cgroup/memory.max"))
            #expect(budget.bytes == 512 << 20, "\(file): \(budget)")
            #expect(requested == budget.bytes, "\(file): asks for \(requested >> 20) MiB, the budget is \(budget.bytes >> 20) MiB")
            // Beside the process's own memory and the memory tiers at their defaults.
            let room = budget.room(reserved: ServerConfiguration().reservedMemory)
            #expect(MemoryBudget.pixelCeiling(room: room) >= 5120 * 8192, "\(file): \(room >> 20) MiB of room")
        }
    }
}
