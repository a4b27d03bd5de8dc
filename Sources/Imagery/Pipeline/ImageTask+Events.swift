extension ImageTask {
    /// A task's progress, then its image, as an async sequence whose failure is typed:
    /// iterating it throws ``ImagePipelineError``, as ``ImagePipeline/image(for:)-(ImageRequest)``
    /// does. Made by ``ImagePipeline/events(for:)``; ending the iteration early (a `break`, or
    /// the iterating task being cancelled) cancels this caller's interest.
    ///
    /// ```swift
    /// do {
    ///     for try await event in pipeline.events(for: request) {
    ///         if case let .progress(progress) = event { bar.fraction = progress.fraction ?? 0 }
    ///     }
    /// } catch .loadingFailed(.notFound) {
    ///     showPlaceholder()
    /// }
    /// ```
    public struct Events: AsyncSequence, Sendable {
        public typealias Element = Event
        public typealias Failure = ImagePipelineError

        /// What the task delivers: events, then at most one failure.
        enum Item: Sendable {
            case event(Event)
            case failure(ImagePipelineError)
        }

        let stream: AsyncStream<Item>

        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(base: stream.makeAsyncIterator())
        }

        /// Yields events and throws the task's error, if any, after the last one.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncStream<Item>.AsyncIterator

            public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws(ImagePipelineError) -> Event? {
                switch await base.next(isolation: actor) {
                case let .event(event)?: return event
                case let .failure(error)?: throw error
                case nil: return nil
                }
            }

            public mutating func next() async throws(ImagePipelineError) -> Event? {
                try await next(isolation: nil)
            }
        }
    }
}
