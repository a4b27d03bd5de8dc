extension DataResponse {
    /// A response whose body `load` produces in a task of its own: `load` tells the ``Sink``
    /// what the source answered (``Sink/begin(expectedLength:headers:)``), which returns the
    /// response to the caller, then hands over the body chunk by chunk. Throwing before
    /// `begin` fails the call; throwing after it fails the body once its earlier chunks are read.
    ///
    /// The task is cancelled when the body's reader leaves early or is cancelled, and when the
    /// caller is cancelled before the head arrives; `load` then stops at its next
    /// ``Sink/send(_:)``. It inherits the caller's priority and task-local values.
    ///
    /// ```swift
    /// func response(for source: ImageSource) async throws(DataLoadingError) -> DataResponse {
    ///     try await DataResponse.streaming { sink throws(DataLoadingError) in
    ///         let stream = try await camera.open(source)
    ///         sink.begin(expectedLength: stream.length)
    ///         while let chunk = try await stream.read() { try await sink.send(chunk) }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameter bufferedChunks: how many chunks may wait unread before ``Sink/send(_:)``
    ///   waits for the reader.
    public static func streaming(
        bufferedChunks: Int = 4,
        _ load: @escaping @Sendable (Sink) async throws(DataLoadingError) -> Void
    ) async throws(DataLoadingError) -> DataResponse {
        let channel = ChunkChannel(capacity: bufferedChunks)
        let sink = Sink(channel: channel)
        let producer = Task {
            do throws(DataLoadingError) {
                try await load(sink)
                sink.end(nil)
            } catch {
                sink.end(error)
            }
        }
        channel.onReaderGone { producer.cancel() }
        let head = await withTaskCancellationHandler {
            await sink.head()
        } onCancel: {
            producer.cancel()
            sink.end(.cancelled)   // no waiting for a `load` that does not watch for cancellation
        }
        switch head {
        case let .success((expectedLength, headers)):
            return DataResponse(body: Body(channel: channel), expectedLength: expectedLength, headers: headers)
        case let .failure(error):
            channel.readerLeft()
            throw Task.isCancelled ? .cancelled : error
        }
    }

    /// Where a streaming loader puts what its source answers: the head once, then the body.
    ///
    /// ```swift
    /// sink.begin(expectedLength: 1_024, headers: SourceHeaders(contentType: "image/png"))
    /// try await sink.send(firstChunk)
    /// ```
    public final class Sink: Sendable {
        typealias Head = Result<(Int64?, SourceHeaders), DataLoadingError>

        private struct State {
            var head: Head?
            var waiter: CheckedContinuation<Head, Never>?
        }

        private let channel: ChunkChannel
        private let state = Locked(State())

        init(channel: ChunkChannel) {
            self.channel = channel
        }

        /// The source has answered: the caller of ``DataResponse/streaming(bufferedChunks:_:)``
        /// gets its response now. Only the first call counts.
        public func begin(expectedLength: Int64? = nil, headers: SourceHeaders = SourceHeaders()) {
            resolve(.success((expectedLength, headers)))
        }

        /// Hands `chunk` to the body, waiting while the reader is behind.
        ///
        /// - Throws: ``DataLoadingError/cancelled`` when the reader has left or this task is
        ///   cancelled: stop producing.
        public func send(_ chunk: [UInt8]) async throws(DataLoadingError) {
            guard !chunk.isEmpty else { return }
            try await channel.send(chunk)
        }

        /// Hands `chunk` to the body without waiting, for transports that push their bytes and
        /// cannot be paused; the loader must bound what it hands over. Returns `false` when the
        /// reader has left: stop producing.
        @discardableResult
        public func yield(_ chunk: [UInt8]) -> Bool {
            chunk.isEmpty || channel.yield(chunk)
        }

        /// The end of `load`: an answer with no head yet is an empty one (or the error).
        func end(_ error: DataLoadingError?) {
            if let error {
                resolve(.failure(error))
            } else {
                begin()
            }
            channel.finish(error)
        }

        func head() async -> Head {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Head? in
                    if let head = state.head { return head }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }

        private func resolve(_ head: Head) {
            let waiter = state.withLock { state -> CheckedContinuation<Head, Never>? in
                guard state.head == nil else { return nil }
                state.head = head
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: head)
        }
    }
}
