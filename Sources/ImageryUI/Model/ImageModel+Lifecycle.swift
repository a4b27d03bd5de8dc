import Imagery

// How views drive the model. SwiftUI evaluates `body` and calls `DynamicProperty.update()`
// while it renders, and mutating observed state there is undefined behaviour ("Modifying state
// during view update"). So those paths only read (`phase(for:in:)`) or note a request in
// unobserved storage (`scheduleLoad`); the load itself starts on a later main-actor turn, or
// in the view's `task`, where mutation is allowed.
extension ImageModel {
    /// Notes that a view shows `request` and starts loading it on the next main-actor turn.
    /// Meant for `DynamicProperty.update()`, which SwiftUI calls before every `body`:
    ///
    /// - It changes no observed state synchronously.
    /// - It is idempotent: calling it again with the same image (same pipeline and cache key)
    ///   does nothing, so a view that re-renders never starts a second load.
    /// - Until the load starts, ``phase(for:in:)`` already answers from the memory cache, so a
    ///   cached image is in the first frame.
    ///
    /// ```swift
    /// public mutating func update() {
    ///     model.scheduleLoad(request, in: environmentPipeline)
    /// }
    /// ```
    public func scheduleLoad(_ request: ImageRequest?, in pipeline: ImagePipeline? = nil) {
        let pipeline = pipeline ?? self.pipeline
        let identity = identity(of: request, in: pipeline)
        if let scheduled = scheduledIdentity, scheduled == identity { return }
        scheduledIdentity = .some(identity)
        Task { [weak self] in
            // A later call for another image supersedes this one.
            guard let self, self.scheduledIdentity == .some(identity) else { return }
            self.pipeline = pipeline
            self.loadIfNeeded(request)
        }
    }

    /// Shows `request` for as long as the calling task runs, and applies `behavior` when it is
    /// cancelled. Meant for SwiftUI's `task(id:)`, which starts the task before the view appears,
    /// cancels it when the view disappears, and restarts it when the id changes:
    ///
    /// ```swift
    /// content
    ///     .task(id: model.identity(of: request, in: pipeline)) {
    ///         await model.bind(request, in: pipeline, onDisappear: .cancel)
    ///     }
    /// ```
    ///
    /// Binding the image this model already shows or loads keeps it, and restores the
    /// request's priority if a disappearance lowered it. An animation plays while the view is
    /// bound and pauses when it disappears (``isVisible``). Only the latest binding acts when it
    /// ends, so a view that disappears and quickly reappears keeps its load.
    public func bind(
        _ request: ImageRequest?,
        in pipeline: ImagePipeline? = nil,
        onDisappear behavior: DisappearBehavior = .cancel
    ) async {
        if let pipeline { self.pipeline = pipeline }
        bindings &+= 1
        let binding = bindings
        loadIfNeeded(request)
        isVisible = true
        if loweredOnDisappear, let request {
            priority = request.priority
        }
        loweredOnDisappear = false

        await Self.untilCancelled()

        guard binding == bindings else { return }
        isVisible = false
        switch behavior {
        case .cancel: cancel()
        case let .lowerPriority(priority):
            self.priority = priority
            loweredOnDisappear = isLoading
        case .keepLoading: break
        }
    }

    /// Returns when the calling task is cancelled, without polling or sleeping.
    private static func untilCancelled() async {
        let (stream, continuation) = AsyncStream.makeStream(of: Never.self)
        for await _ in stream {}   // an AsyncStream iteration ends when its task is cancelled
        continuation.finish()      // also keeps the continuation alive until then
    }
}
