extension DataResponse {
    /// The bytes of a response, in order, as they arrive: an async sequence of chunks that
    /// throws ``DataLoadingError``, read once.
    ///
    /// ```swift
    /// var total = 0
    /// for try await chunk in response.body { total += chunk.count }
    /// ```
    ///
    /// Leaving the loop early, or cancelling the task that reads, stops the loader's work on
    /// it (a streaming loader closes its connection).
    public struct Body: AsyncSequence, Sendable {
        public typealias Element = [UInt8]
        public typealias Failure = DataLoadingError

        private enum Storage: Sendable {
            case bytes([UInt8])
            case channel(ChunkChannel, Reader)
            case chunks(@Sendable () -> AsyncIterator)
        }

        /// Lets the producer go when the body and every iterator over it are gone unread.
        final class Reader: Sendable {
            let channel: ChunkChannel
            init(_ channel: ChunkChannel) { self.channel = channel }
            deinit { channel.readerLeft() }
        }

        private let storage: Storage

        /// A body of `bytes`, in one chunk (none when empty).
        public init(_ bytes: [UInt8]) {
            storage = .bytes(bytes)
        }

        /// A body read from `chunks`, for a loader that wraps another sequence.
        ///
        /// ```swift
        /// let body = DataResponse.Body(otherResponse.body.map { decrypt($0) })
        /// ```
        public init<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks) where Chunks.Element == [UInt8], Chunks.Failure == DataLoadingError {
            storage = .chunks {
                var iterator = chunks.makeAsyncIterator()
                return AsyncIterator(next: { () async throws(DataLoadingError) -> [UInt8]? in try await iterator.next(isolation: nil) })
            }
        }

        init(channel: ChunkChannel) {
            storage = .channel(channel, Reader(channel))
        }

        public func makeAsyncIterator() -> AsyncIterator {
            switch storage {
            case let .bytes(bytes):
                var pending: [UInt8]? = bytes.isEmpty ? nil : bytes
                return AsyncIterator(next: { () async throws(DataLoadingError) -> [UInt8]? in
                    defer { pending = nil }
                    return pending
                })
            case let .channel(channel, reader):
                // The iterator's closure holds `reader`: the producer runs while an iterator lives.
                return AsyncIterator(next: { [reader] () async throws(DataLoadingError) -> [UInt8]? in
                    _ = reader
                    return try await channel.next()
                })
            case let .chunks(make):
                return make()
            }
        }

        /// Reads the chunks of a ``Body``.
        public struct AsyncIterator: AsyncIteratorProtocol {
            public typealias Element = [UInt8]
            public typealias Failure = DataLoadingError

            fileprivate let nextChunk: () async throws(DataLoadingError) -> [UInt8]?

            fileprivate init(next: @escaping () async throws(DataLoadingError) -> [UInt8]?) {
                self.nextChunk = next
            }

            /// The next chunk, or `nil` after the last.
            public mutating func next() async throws(DataLoadingError) -> [UInt8]? {
                try await nextChunk()
            }

            public mutating func next(isolation actor: isolated (any Actor)?) async throws(DataLoadingError) -> [UInt8]? {
                try await nextChunk()
            }
        }
    }
}
