import Foundation
import Imagery

/// A one-line progress counter on standard error, shown only when it is a terminal.
final class Progress: Sendable {
    private struct Counts { var done = 0, failed = 0 }

    private let total: Int
    private let state = Locked(Counts())
    private let isTerminal = isatty(STDERR_FILENO) != 0

    init(total: Int) { self.total = total }

    func advance(failed: Bool) {
        let (done, failures) = state.withLock { state in
            state.done += 1
            if failed { state.failed += 1 }
            return (state.done, state.failed)
        }
        guard isTerminal else { return }
        let width = 30
        let filled = total > 0 ? width * done / total : width
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        FileHandle.standardError.write(Data("\r[\(bar)] \(done)/\(total) \(failures > 0 ? "(\(failures) failed)" : "")".utf8))
    }

    func finish() {
        if isTerminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}
