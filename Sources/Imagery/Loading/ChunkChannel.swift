/// Hands the chunks of one response body from the task that produces them to the one reader of
/// ``DataResponse/Body``: the producer waits while `capacity` chunks are unread (backpressure,
/// for loaders that can pause their transport) or hands over without waiting (for transports
/// that push, such as a URLSession delegate, whose loader bounds the bytes instead). A reader
/// that leaves (cancelled, or done with the body early) ends the producer through
/// ``onReaderGone``, and every wait on either side ends on cancellation.
final class ChunkChannel: Sendable {
    private struct State {
        var chunks: [[UInt8]] = []
        /// Where the unread chunks start in ``chunks``: reading never shifts the array.
        var head = 0
        /// `nil` while open; then `.some(nil)` for a body that ended whole, or its error.
        var end: DataLoadingError??
        var readerGone = false
        var reader: CheckedContinuation<Void, Never>?
        var writer: CheckedContinuation<Void, Never>?
        var onReaderGone: (@Sendable () -> Void)?

        var unread: Int { chunks.count - head }

        mutating func take() -> [UInt8] {
            let chunk = chunks[head]
            chunks[head] = []
            head += 1
            if head == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                head = 0
            }
            return chunk
        }
    }

    let capacity: Int
    private let state = Locked(State())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Called once when the reader leaves before the end, to stop the producer. Set before the
    /// body is handed out; if the reader has already left, it runs at once.
    func onReaderGone(_ action: @escaping @Sendable () -> Void) {
        let gone = state.withLock { state -> Bool in
            if state.readerGone { return true }
            state.onReaderGone = action
            return false
        }
        if gone { action() }
    }

    // MARK: Producer

    /// Hands `chunk` over, waiting while ``capacity`` chunks are unread.
    ///
    /// - Throws: ``DataLoadingError/cancelled`` when the reader has left or the producing task
    ///   is cancelled: the producer should stop.
    func send(_ chunk: [UInt8]) async throws(DataLoadingError) {
        while true {
            let (handed, reader) = state.withLock { state -> (Bool?, CheckedContinuation<Void, Never>?) in
                if state.readerGone || state.end != nil { return (false, nil) }
                guard state.unread < capacity else { return (nil, nil) }
                state.chunks.append(chunk)
                defer { state.reader = nil }
                return (true, state.reader)
            }
            reader?.resume()
            switch handed {
            case true?: return
            case false?: throw .cancelled
            case nil:
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let now = state.withLock { state -> Bool in
                            if Task.isCancelled || state.readerGone || state.unread < capacity { return true }
                            state.writer = continuation
                            return false
                        }
                        if now { continuation.resume() }
                    }
                } onCancel: {
                    state.withLock { state in defer { state.writer = nil }; return state.writer }?.resume()
                }
                if Task.isCancelled { throw .cancelled }
            }
        }
    }

    /// Hands `chunk` over without waiting, whatever is unread. Returns `false` when the reader
    /// has left, and the producer should stop.
    @discardableResult
    func yield(_ chunk: [UInt8]) -> Bool {
        let (handed, reader) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
            if state.readerGone || state.end != nil { return (false, nil) }
            state.chunks.append(chunk)
            defer { state.reader = nil }
            return (true, state.reader)
        }
        reader?.resume()
        return handed
    }

    /// Ends the body: whole with `nil`, else with `error` once the unread chunks are read. Only
    /// the first call counts.
    func finish(_ error: DataLoadingError?) {
        let reader = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.end == nil else { return nil }
            state.end = .some(error)
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume()
    }

    // MARK: Reader

    /// The next chunk, `nil` at the end of a whole body.
    ///
    /// - Throws: the producer's error once the chunks before it are read, or
    ///   ``DataLoadingError/cancelled`` when the reading task is cancelled (which also stops the
    ///   producer).
    func next() async throws(DataLoadingError) -> [UInt8]? {
        while true {
            enum Step { case chunk([UInt8], CheckedContinuation<Void, Never>?), end(DataLoadingError?), wait }
            let step = state.withLock { state -> Step in
                if state.unread > 0 {
                    defer { state.writer = nil }
                    return .chunk(state.take(), state.writer)
                }
                if let end = state.end { return .end(end) }
                return .wait
            }
            switch step {
            case let .chunk(chunk, writer):
                writer?.resume()
                return chunk
            case let .end(error):
                if let error { throw error }
                return nil
            case .wait:
                if Task.isCancelled { break }
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let now = state.withLock { state -> Bool in
                            if Task.isCancelled || state.unread > 0 || state.end != nil { return true }
                            state.reader = continuation
                            return false
                        }
                        if now { continuation.resume() }
                    }
                } onCancel: {
                    state.withLock { state in defer { state.reader = nil }; return state.reader }?.resume()
                }
                guard Task.isCancelled else { continue }
            }
            readerLeft()
            throw .cancelled
        }
    }

    /// The reader will read no more: drops what is unread and stops the producer. Called when
    /// the reading task is cancelled, and when the body and its readers are let go early.
    func readerLeft() {
        let (writer, action) = state.withLock { state -> (CheckedContinuation<Void, Never>?, (@Sendable () -> Void)?) in
            guard !state.readerGone else { return (nil, nil) }
            state.readerGone = true
            state.chunks = []
            state.head = 0
            defer {
                state.writer = nil
                state.onReaderGone = nil
            }
            // A body read to its end needs no stopping.
            return (state.writer, state.end == nil ? state.onReaderGone : nil)
        }
        writer?.resume()
        action?()
    }
}
