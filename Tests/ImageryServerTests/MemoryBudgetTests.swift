import Foundation
import Imagery
@testable import ImageryServer
import Logging
import Testing

/// `--max-memory`'s default, read from a control group laid out in a directory of the test's
/// own: no test reads or changes the machine's cgroups.
@Suite("The memory budget and the control group's limit", .timeLimit(.minutes(10)))
struct MemoryBudgetTests {
    let root: URL
    let physicalMemory: UInt64 = 24 << 30

    /// Made by the first file written, removed by ``limit()``.
    init() {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-cgroup-\(UUID().uuidString)")
    }

    func write(_ text: String, to path: String) throws {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    func limit() -> ControlGroup.Limit? {
        defer { try? FileManager.default.removeItem(at: root) }
        return ControlGroup.memoryLimit(root: root, physicalMemory: physicalMemory)
    }

    @Test("cgroup v2: the group's memory.max, or the smallest of a group above it; max is no limit")
    func version2() throws {
        try write("0::/kubepods/pod1/app\n", to: "proc/self/cgroup")
        try write("max\n", to: "sys/fs/cgroup/kubepods/pod1/app/memory.max")
        try write("671088640\n", to: "sys/fs/cgroup/kubepods/pod1/memory.max")
        try write("max\n", to: "sys/fs/cgroup/memory.max")
        #expect(limit() == ControlGroup.Limit(bytes: 671_088_640, file: "/sys/fs/cgroup/kubepods/pod1/memory.max"))
    }

    @Test("cgroup v1: memory.limit_in_bytes of the memory controller's group; Int64.max rounded to a page is no limit")
    func version1() throws {
        try write("12:cpu,cpuacct:/docker/abc\n11:memory:/docker/abc\n0::/\n", to: "proc/self/cgroup")
        try write("9223372036854771712\n", to: "sys/fs/cgroup/memory/memory.limit_in_bytes")
        try write("536870912\n", to: "sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes")
        #expect(limit() == ControlGroup.Limit(bytes: 536_870_912, file: "/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes"))
    }

    @Test("No limit: max, v1's page-rounded Int64.max, a figure past the machine's memory, a missing or unreadable file", arguments: [
        "max", "9223372036854771712", "25769803776", "30000000000", "", "-1", "1e9", "99999999999999999999999",
    ])
    func noLimit(_ value: String) throws {
        try write("0::/\n", to: "proc/self/cgroup")
        try write(value, to: "sys/fs/cgroup/memory.max")
        #expect(limit() == nil)
    }

    @Test("No membership file, or no memory group in it: no limit")
    func noMembership() throws {
        #expect(ControlGroup.memoryLimit(root: root, physicalMemory: physicalMemory) == nil)
        try write("5:cpu:/a\n", to: "proc/self/cgroup")
        try write("1000\n", to: "sys/fs/cgroup/cpu/a/memory.limit_in_bytes")
        #expect(limit() == nil)
    }

    @Test("The default is 80% of the limit, computed without overflow, or 512 MiB; the setting wins")
    func defaults() {
        let pod = ControlGroup.Limit(bytes: 640 << 20, file: "/sys/fs/cgroup/memory.max")
        #expect(MemoryBudget.resolve(setting: nil, limit: pod) == MemoryBudget(bytes: 512 << 20, source: .controlGroup(pod.file)))
        let huge = ControlGroup.Limit(bytes: .max, file: "/x")
        #expect(MemoryBudget.resolve(setting: nil, limit: huge).bytes == Int.max / 5 * 4 + Int.max % 5 * 4 / 5)
        #expect(MemoryBudget.resolve(setting: nil, limit: nil) == MemoryBudget(bytes: 512 << 20, source: .fallback))
        #expect(MemoryBudget.resolve(setting: 384 << 20, limit: pod) == MemoryBudget(bytes: 384 << 20, source: .setting))
    }

    @Test("--max-memory takes bytes, KiB, MiB or GiB; anything else, or more than Int holds, is unreadable")
    func parsing() {
        #expect(MemoryBudget.bytes("536870912") == 536_870_912)
        #expect(MemoryBudget.bytes("512MiB") == 512 << 20 && MemoryBudget.bytes("1GiB") == 1 << 30 && MemoryBudget.bytes("64KiB") == 64 << 10)
        for text in ["", "MiB", "-1", "1.5GiB", "512MB", "512 mib", "9223372036854775807GiB", "99999999999999999999"] {
            #expect(MemoryBudget.bytes(text) == nil, "\(text)")
        }
    }
}

extension MemoryBudgetTests {
    @Test("The room for images is the budget less the process and its caches; too little is refused naming the least it takes")
    func room() throws {
        var configuration = ServerConfiguration()
        configuration.maximumMemory = 512 << 20
        configuration.processMemory = 100 << 20
        configuration.responseCacheBytes = 32 << 20
        configuration.imageCacheBytes = 16 << 20
        #expect(configuration.reservedMemory == 148 << 20)
        let room = try configuration.imageRoom(in: configuration.resolve().memory)
        #expect(room == 364 << 20)
        let pipeline = configuration.pipeline(loader: DataLoader(), room: room, logger: Logger(label: "test"))
        #expect(pipeline.decodingPixelBudget == (364 << 20) / 8 && pipeline.decodingPixelCeiling == (364 << 20) / 40 * 9)
        configuration.decodingPixelBudget = 1_000
        #expect(configuration.pipeline(loader: DataLoader(), room: room, logger: Logger(label: "test")).decodingPixelBudget == 1_000)

        configuration.maximumMemory = 160 << 20
        let smaller = try configuration.resolve().memory
        #expect(throws: ServerSetupError.self) { try configuration.imageRoom(in: smaller) }
        do {
            _ = try configuration.imageRoom(in: smaller)
        } catch {
            #expect(error.setting == "max-memory")
            #expect("\(error)".contains("at least 180MiB"), "\(error)")
        }
        configuration.processMemory = .max
        #expect(configuration.reservedMemory == .max)
        #expect(throws: ServerSetupError.self) { try configuration.imageRoom(in: smaller) }
    }

    @Test("The resident set is read from a status text in kB")
    func resident() {
        #expect(ResidentMemory.residentBytes(inStatus: "Name:\timagery-server\nVmHWM:\t  90000 kB\nVmRSS:\t   51234 kB\n") == 51_234 * 1024)
        #expect(ResidentMemory.residentBytes(inStatus: "Name:\tx\n") == nil)
        #expect(ResidentMemory.residentBytes(inStatus: "VmRSS:\t99999999999999999999 kB\n") == nil)
        #expect(ResidentMemory.current().map { $0 > 0 } ?? true)
    }
}
