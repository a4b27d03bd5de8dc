import Foundation

/// The memory the whole server may use (`--max-memory`, `IMAGERY_MAX_MEMORY`), and where the
/// figure came from: the setting, 80% of the control group's limit (the rest left to what the
/// kernel counts and the server cannot: its page cache, a burst between two checks), or 512 MiB.
///
/// What the process holds before its first request and its caches are set aside; what is
/// left is the room for images (``room(reserved:)``), from which the pipeline's pixel budget
/// is derived (``pixelLimit(room:)``), and the most one piece of work may take even alone
/// (``pixelCeiling(room:)``).
///
/// ```swift
/// let budget = MemoryBudget.resolve(setting: nil, limit: ControlGroup.memoryLimit(root: URL(fileURLWithPath: "/"), physicalMemory: ProcessInfo.processInfo.physicalMemory))
/// budget.bytes    // 80% of the pod's limit, or 512 MiB without one
/// ```
package struct MemoryBudget: Sendable, Equatable, CustomStringConvertible {
    /// Where ``bytes`` came from.
    package enum Source: Sendable, Equatable {
        case setting
        /// 80% of the limit in this file.
        case controlGroup(String)
        /// No setting and no limit.
        case fallback
    }

    package var bytes: Int
    package var source: Source

    package init(bytes: Int, source: Source) {
        self.bytes = bytes
        self.source = source
    }

    /// The budget without a setting or a control group's limit: enough for one of the largest
    /// outputs a URL may ask for (an 8192-pixel side, its blur and its PNG) at a time.
    package static let fallbackBytes = 512 << 20
    /// The least `--max-memory` takes: below it, the server alone does not fit.
    package static let minimumBytes = 64 << 20
    /// The least room for images: one 2 MP decode, its resize and its encode.
    package static let minimumRoom = 32 << 20

    /// The setting's value when given, else 80% of `limit`, else ``fallbackBytes``.
    package static func resolve(setting: Int?, limit: ControlGroup.Limit?) -> MemoryBudget {
        if let setting { return MemoryBudget(bytes: setting, source: .setting) }
        if let limit {
            // Four fifths, without forming 4 × limit.
            let bytes = limit.bytes / 5 * 4 + limit.bytes % 5 * 4 / 5
            return MemoryBudget(bytes: bytes, source: .controlGroup(limit.file))
        }
        return MemoryBudget(bytes: fallbackBytes, source: .fallback)
    }

    /// The budget on this machine: `setting` when given, else from its control group, read now.
    package static func onThisMachine(setting: Int?) -> MemoryBudget {
        let limit = setting == nil ? ControlGroup.memoryLimit(root: URL(fileURLWithPath: "/"), physicalMemory: ProcessInfo.processInfo.physicalMemory) : nil
        return resolve(setting: setting, limit: limit)
    }

    /// Bytes as `--max-memory` takes them: a whole number, with an optional `KiB`, `MiB` or
    /// `GiB` suffix (`512MiB`); `nil` for anything else, or more than `Int` holds.
    package static func bytes(_ text: String) -> Int? {
        let units: [(suffix: String, shift: Int)] = [("GiB", 30), ("MiB", 20), ("KiB", 10), ("", 0)]
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        for (suffix, shift) in units where trimmed.hasSuffix(suffix) {
            let digits = trimmed.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)
            guard !digits.isEmpty, digits.utf8.allSatisfy({ (48...57).contains($0) }), let count = Int(digits) else { return nil }
            let (bytes, overflow) = count.multipliedReportingOverflow(by: 1 << shift)
            return overflow ? nil : bytes
        }
        return nil
    }

    /// The room for images once `reserved` bytes (the process at start, its memory caches) are
    /// set aside; 0 when nothing is left.
    package func room(reserved: Int) -> Int {
        max(0, bytes - reserved)
    }

    /// The pixels that work may be charged at once: half the room, at 4 bytes a pixel. The
    /// other half is for what comes with the pixels and is not charged as pixels: the encoded
    /// answers being written, the encoders' and codecs' own buffers, sources in flight.
    package static func pixelLimit(room: Int) -> Int {
        max(1, room / 8)
    }

    /// The most pixels one decode, processing run or encode may be charged, even alone: 90% of
    /// the room at 4 bytes a pixel, the rest for what is not charged beside it (its encoded
    /// answer, its source). Larger work is refused at once rather than run past the budget.
    package static func pixelCeiling(room: Int) -> Int {
        max(1, room / 40 * 9)
    }

    package var description: String {
        let figure = bytes % (1 << 20) == 0 ? "\(bytes >> 20)MiB" : "\(bytes)"
        switch source {
        case .setting: return figure
        case let .controlGroup(file): return "\(figure) (80% of the limit in \(file))"
        case .fallback: return "\(figure) (no control group limit)"
        }
    }
}
