import Imagery
import Observation

/// The state behind one image on screen: it shows a cached image in the very first frame,
/// otherwise loads through an `ImagePipeline` and reports progress; it cancels, retries and
/// changes priority.
///
/// `ImageModel` is platform-neutral and tested on Linux. ``AsyncPhoto`` and ``FetchedImage``
/// are thin SwiftUI shells over it, and a UIKit cell or another UI toolkit can use it the
/// same way.
///
/// ```swift
/// let model = ImageModel(pipeline: pipeline)
/// model.load(ImageRequest(url: url, resize: .fill(width: 300, height: 300)))
/// // observe model.phase (it is @Observable) …
/// model.priority = .high      // the user is looking at it
/// model.cancel()              // the cell was reused
/// ```
///
/// Only ``phase``, ``progress`` and ``currentFrame`` are observed. Everything the model keeps for its own bookkeeping is
/// `@ObservationIgnored`, so the methods meant for SwiftUI's update path
/// (``phase(for:in:)`` and ``scheduleLoad(_:in:)``) never change observed state while a view
/// is being evaluated.
@MainActor
@Observable
public final class ImageModel {
    /// Where the current request stands. While a new size of the image already shown loads
    /// (a view laid out larger), it stays ``ImagePhase/success(_:)`` with the image shown,
    /// so the view never falls back to a placeholder; ``progress`` tells how far the new one is.
    public private(set) var phase: ImagePhase = .empty

    /// The download progress of the load in flight, whatever ``phase`` shows meanwhile; `nil`
    /// with no load in flight or before bytes arrive.
    ///
    /// ```swift
    /// if let progress = model.progress { ProgressView(value: progress.fraction ?? 0) }
    /// ```
    public private(set) var progress: DataProgress?

    /// The frame of an animated image to draw now, while one plays (see
    /// <doc:PlayingAnimations>); `nil` otherwise: draw the phase's image, which for an
    /// animation is its first frame.
    ///
    /// ```swift
    /// let shown = model.currentFrame ?? model.phase.response?.image
    /// ```
    public internal(set) var currentFrame: Bitmap?

    /// The pipeline that loads. A change applies from the next load.
    @ObservationIgnored public var pipeline: ImagePipeline

    /// The request last loaded, or `nil`.
    @ObservationIgnored public private(set) var request: ImageRequest?

    /// The load in flight: the pipeline's task and the main-actor task applying its reports.
    @ObservationIgnored private var inFlight: InFlight?
    /// What ``phase`` is about, so a view asking about another request is not shown it.
    @ObservationIgnored private(set) var loadedIdentity: Identity?
    /// Bumped whenever a load stops, so late reports of the old load are dropped.
    @ObservationIgnored private var generation: UInt64 = 0
    /// What plays the animation of the response shown, made when it first plays.
    @ObservationIgnored var player: AnimationPlayer?
    @ObservationIgnored let playbackClock: PlaybackClock
    @ObservationIgnored var playback = Playback()
    /// Counts the frames shown, so a shell can tell one frame from the next without comparing pixels.
    @ObservationIgnored var framesShown = 0
    /// Counts the progressive previews shown, for the same reason.
    @ObservationIgnored var previewsShown = 0
    /// The request ``scheduleLoad(_:in:)`` last saw, which makes it idempotent.
    @ObservationIgnored var scheduledIdentity: Identity??
    /// Bumped by each ``bind(_:in:onDisappear:)``, so only the latest binding acts on disappearing.
    @ObservationIgnored var bindings: UInt64 = 0
    /// Whether the last binding lowered the priority when it ended, so the next one restores it
    /// (and leaves alone a priority the app set itself).
    @ObservationIgnored var loweredOnDisappear = false

    private struct InFlight {
        let task: ImageTask
        let listener: Task<Void, Never>
    }

    private enum Report: Sendable {
        /// New progress or a new preview: read ``Latest`` for both.
        case changed
        case finished(Result<ImageResponse, ImagePipelineError>)
    }

    /// The newest progress and preview of a load, kept apart from the report stream so that a
    /// burst of progress never pushes a preview out.
    private typealias Latest = Locked<(progress: DataProgress?, preview: Bitmap?, previews: Int)>

    /// A model that loads through `pipeline`.
    public init(pipeline: ImagePipeline = .shared) {
        self.pipeline = pipeline
        self.playbackClock = PlaybackClock(ContinuousClock())
    }

    /// A model that loads through `pipeline` and plays animations on `playbackClock`: a test
    /// passes a clock it advances by hand, so frame timing needs no real time.
    ///
    /// ```swift
    /// let model = ImageModel(pipeline: pipeline, playbackClock: ContinuousClock())
    /// ```
    public init<C: Clock>(pipeline: ImagePipeline = .shared, playbackClock: C) where C.Duration == Duration {
        self.pipeline = pipeline
        self.playbackClock = PlaybackClock(playbackClock)
    }

    isolated deinit {
        // The view is gone: nobody will look at this image.
        inFlight?.task.cancel()
        player?.stop()
    }

    /// The priority of the load in flight: raise it for the image the user looks at, lower it
    /// for one that scrolled away. Shared work runs at the highest priority among its viewers.
    public var priority: ImageRequest.Priority {
        get { inFlight?.task.priority ?? request?.priority ?? .normal }
        set { inFlight?.task.priority = newValue }
    }

    /// Whether a load is in flight.
    public var isLoading: Bool { inFlight != nil }

    /// Shows `request`'s image: at once, in this call, when the memory cache has it; otherwise
    /// ``ImagePhase/loading(_:preview:)`` (with the request's placeholder decoded, if it has
    /// one) until the pipeline delivers, or, when the model shows an image
    /// of the same source at another size, that image until the new one lands. A load already
    /// in flight for another request is cancelled. `nil` clears the model.
    public func load(_ request: ImageRequest?) {
        stop()
        stopPlayback()
        self.request = request
        progress = nil
        previewsShown = 0
        guard let request else {
            loadedIdentity = nil
            phase = .empty
            return
        }
        let pipeline = self.pipeline
        let identity = Identity(request, in: pipeline)
        let shown = loadedIdentity?.isSameSource(as: identity) == true ? phase.response : nil
        loadedIdentity = identity
        if let hit = pipeline.cachedImage(for: request, key: identity.key) {
            phase = .success(hit)
            updatePlayback()
            return
        }
        phase = shown.map(ImagePhase.success) ?? .loading(nil, preview: request.placeholder?.image)

        let generation = self.generation
        // Only the newest report matters: a burst of progress and previews collapses into one
        // update, and the outcome, always the last report, is never dropped.
        let (reports, continuation) = AsyncStream.makeStream(of: Report.self, bufferingPolicy: .bufferingNewest(1))
        let latest = Latest((nil, nil, 0))
        let task = pipeline.imageTask(
            with: request,
            onEvent: { event in
                switch event {
                case let .progress(progress): latest.withLock { $0.progress = progress }
                case let .preview(preview): latest.withLock { $0.preview = preview; $0.previews += 1 }
                case .finished: return
                }
                continuation.yield(.changed)
            },
            onFinish: { outcome in
                continuation.yield(.finished(outcome))
                continuation.finish()
            }
        )
        let listener = Task { [weak self] in
            for await report in reports {
                guard let self, self.generation == generation else { return }
                self.apply(report, latest: latest)
            }
        }
        inFlight = InFlight(task: task, listener: listener)
    }

    /// Stops this model's interest in its load; the shared download and decode stop too unless
    /// another viewer waits for them. A shown image stays; a load in flight goes back to
    /// ``ImagePhase/empty``.
    public func cancel() {
        guard inFlight != nil else { return }
        stop()
        phase = .empty
        progress = nil
    }

    /// Loads the current request again, typically after ``ImagePhase/failure(_:)``. Does
    /// nothing while a load is in flight.
    public func retry() {
        guard inFlight == nil, let request else { return }
        load(request)
    }

    /// What a view showing `request` should draw now, without changing any state: safe to call
    /// from `body` or `DynamicProperty.update()`.
    ///
    /// - The model's own phase, when it is about `request`.
    /// - Otherwise the memory-cached image, so a cached image is in the first frame with no
    ///   placeholder flash before the load has even started.
    /// - Otherwise the image shown for the same source at another size, until the new size
    ///   arrives (a resized cell keeps its picture).
    /// - Otherwise, when the request carries a `ImageRequest.placeholder`,
    ///   ``ImagePhase/loading(_:preview:)`` with it decoded: in the first frame, before any network.
    /// - Otherwise ``ImagePhase/empty``.
    ///
    /// `pipeline` defaults to the model's.
    public func phase(for request: ImageRequest?, in pipeline: ImagePipeline? = nil) -> ImagePhase {
        let pipeline = pipeline ?? self.pipeline
        guard let request else {
            _ = phase   // read even so, so a view observing this call is told of the next change
            return .empty
        }
        return phase(for: request, identity: Identity(request, in: pipeline), in: pipeline)
    }

    /// ``phase(for:in:)`` for a caller that already holds the request's identity in `pipeline`.
    func phase(for request: ImageRequest, identity: Identity, in pipeline: ImagePipeline) -> ImagePhase {
        let phase = self.phase   // read even when unused, so a view observing this call is told of the next change
        if identity == loadedIdentity, !phase.isEmpty { return phase }
        if let hit = pipeline.cachedImage(for: request, key: identity.key) { return .success(hit) }
        if case .success = phase, loadedIdentity?.isSameSource(as: identity) == true { return phase }
        if let placeholder = request.placeholder { return .loading(nil, preview: placeholder.image) }
        return .empty
    }

    // MARK: - Internals

    /// Loads `request` unless this model already shows it or is loading it; whether it did.
    @discardableResult
    func loadIfNeeded(_ request: ImageRequest?) -> Bool {
        let identity = request.map { Identity($0, in: pipeline) }
        if let identity, identity == loadedIdentity, inFlight != nil || phase.response != nil { return false }
        load(request)
        return true
    }

    private func stop() {
        guard let inFlight else { return }
        self.inFlight = nil
        generation &+= 1
        inFlight.listener.cancel()
        inFlight.task.cancel()
    }

    private func apply(_ report: Report, latest: Latest) {
        switch report {
        case .changed:
            // No throttle beyond the stream's: reports that pile up between two main-actor turns
            // collapse into the newest, and SwiftUI draws at most once a frame anyway. A
            // progressive preview replaces the placeholder; an image kept from another size stays.
            let (progress, newPreview, previews) = latest.withLock { $0 }
            self.progress = progress
            guard case let .loading(_, preview) = phase else { return }
            previewsShown = previews
            phase = .loading(progress, preview: newPreview ?? preview)
        case let .finished(outcome):
            inFlight = nil
            progress = nil
            switch outcome {
            case let .success(response):
                phase = .success(response)
                updatePlayback()
            case .failure(.cancelled): phase = .empty
            case let .failure(error): phase = .failure(error)
            }
        }
    }
}

extension ImageModel {
    /// What makes two requests the same image for a view: the pipeline and the cache key
    /// (source and processing). Requests that differ only in priority are the same image.
    public struct Identity: Hashable, Sendable {
        let pipeline: ObjectIdentifier
        let key: ImageCacheKey

        init(_ request: ImageRequest, in pipeline: ImagePipeline) {
            self.pipeline = ObjectIdentifier(pipeline)
            self.key = pipeline.cacheKey(for: request)
        }

        func isSameSource(as other: Identity) -> Bool {
            pipeline == other.pipeline && key.sourceKey == other.key.sourceKey
        }
    }

    /// The identity of `request` in `pipeline` (default: the model's), for SwiftUI's
    /// `task(id:)`: the task restarts exactly when the image to show changes.
    public func identity(of request: ImageRequest?, in pipeline: ImagePipeline? = nil) -> Identity? {
        request.map { Identity($0, in: pipeline ?? self.pipeline) }
    }
}

extension ImagePhase {
    var isEmpty: Bool {
        if case .empty = self { true } else { false }
    }
}
