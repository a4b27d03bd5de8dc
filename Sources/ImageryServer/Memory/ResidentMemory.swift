import Foundation

/// The memory this process holds now, as the kernel counts it against a control group's
/// limit: its resident set (`VmRSS` in `/proc/self/status`).
///
/// `imagery-server` reads it once it has started, before its first request, and sets it aside
/// from the memory budget (``ServerConfiguration/processMemory``): the runtime, the libraries
/// and the event loops' buffers, which no request charges.
///
/// ```swift
/// configuration.processMemory = ResidentMemory.current() ?? configuration.processMemory
/// ```
package enum ResidentMemory {
    /// The resident set in bytes; `nil` where `/proc` does not say (not Linux).
    package static func current() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        return residentBytes(inStatus: status)
    }

    /// `VmRSS` of a `/proc/PID/status` text, in bytes.
    static func residentBytes(inStatus status: String) -> Int? {
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let kilobytes = Int(fields[1]) else { return nil }
            return kilobytes.multipliedReportingOverflow(by: 1024).overflow ? nil : kilobytes * 1024
        }
        return nil
    }
}
