import Foundation

/// The memory limit the kernel holds this process to, read from its control group as a
/// container runtime sets it: cgroup v2's `memory.max`, or v1's `memory.limit_in_bytes`, for
/// the group `/proc/self/cgroup` names and each group above it (a parent's limit holds its
/// children too), the smallest found.
///
/// A pure function of the files under `root`, so that tests lay out each version in a
/// directory of their own; the server reads `/`.
///
/// ```swift
/// let limit = ControlGroup.memoryLimit(root: URL(fileURLWithPath: "/"), physicalMemory: ProcessInfo.processInfo.physicalMemory)
/// ```
package enum ControlGroup {
    /// A limit and the file that set it.
    package struct Limit: Sendable, Equatable {
        package let bytes: Int
        package let file: String
    }

    /// The smallest limit set for this process's group or a group above it; `nil` when none is
    /// set (`max`, a missing file, or a value at or above `physicalMemory`, as v1 writes "no
    /// limit": `Int64.max` rounded down to a page).
    package static func memoryLimit(root: URL, physicalMemory: UInt64) -> Limit? {
        guard let membership = try? String(contentsOf: root.appendingPathComponent("proc/self/cgroup"), encoding: .utf8) else { return nil }
        var candidates: [String] = []
        for line in membership.split(separator: "\n") {
            // hierarchy-ID:controllers:path; v2's line is "0::/path".
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let controllers = fields[1].split(separator: ",")
            if fields[0] == "0", fields[1].isEmpty {
                candidates += groups(from: String(fields[2])).map { "sys/fs/cgroup\($0)/memory.max" }
            } else if controllers.contains("memory") {
                candidates += groups(from: String(fields[2])).map { "sys/fs/cgroup/memory\($0)/memory.limit_in_bytes" }
            }
        }
        return candidates.compactMap { file -> Limit? in
            guard let text = try? String(contentsOf: root.appendingPathComponent(file), encoding: .utf8),
                  let bytes = limit(text, physicalMemory: physicalMemory)
            else { return nil }
            return Limit(bytes: bytes, file: "/" + file)
        }.min { $0.bytes < $1.bytes }
    }

    /// `path` and every group above it, the root's as "" (`/a/b` → `/a/b`, `/a`, ``).
    private static func groups(from path: String) -> [String] {
        var parts = path.split(separator: "/").map(String.init)
        var groups: [String] = []
        while true {
            groups.append(parts.isEmpty ? "" : "/" + parts.joined(separator: "/"))
            guard !parts.isEmpty else { return groups }
            parts.removeLast()
        }
    }

    /// A limit file's bytes; `nil` for `max`, anything but digits, or a value at or above the
    /// machine's memory.
    static func limit(_ text: String, physicalMemory: UInt64) -> Int? {
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !value.isEmpty, value.utf8.allSatisfy({ (48...57).contains($0) }), let bytes = UInt64(value), bytes > 0, bytes < physicalMemory else {
            return nil
        }
        return Int(clamping: bytes)
    }
}
