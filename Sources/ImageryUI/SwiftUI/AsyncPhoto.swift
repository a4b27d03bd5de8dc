import Foundation
import Imagery
#if canImport(SwiftUI)
import SwiftUI
#else
import SwiftUIStub
#endif

/// `AsyncImage` for any `ImageRequest`, through an `ImagePipeline`: shared downloads,
/// memory and disk caches, progress, and no placeholder flash for a cached image.
///
/// ```swift
/// AsyncPhoto(url: photo.url) { image in
///     image.resizable().aspectRatio(contentMode: .fill)
/// } placeholder: {
///     Color.gray.opacity(0.2)
/// } failure: { error in
///     Image(systemName: "exclamationmark.triangle")
/// }
/// .frame(width: 120, height: 120)
/// .clipped()
/// ```
///
/// - When the request has no `resize`, the image is downsampled to the size
///   the view is laid out at times the display scale (see ``layoutFit(_:)``).
/// - ``processors(_:)`` runs processors on it (a circle, a blur) once it is sized.
/// - When the view disappears its load is cancelled; ``disappearBehavior(_:)`` can lower its
///   priority instead. It reloads when the request's identity (source, size and processors) changes.
/// - ``animated(_:frameBudget:)`` plays an animated GIF or WebP.
/// - The pipeline comes from the environment (`.imagePipeline(_:)`).
///
/// Everything it does is in ``ImageModel``, which is tested on Linux; this view only reads
/// the model's phase and hands it the request from its `task(id:)`.
public struct AsyncPhoto<Content: View>: View {
    private var request: ImageRequest?
    private let scale: CGFloat
    private let content: (AsyncPhotoPhase) -> Content
    private var fit = ImageRequest.LayoutFit.fill
    private var disappearBehavior = ImageModel.DisappearBehavior.cancel
    private var frameBudget = ImageModel.defaultFrameBudget

    @State private var model = ImageModel()
    @Environment(\.imagePipeline) private var pipeline
    @Environment(\.displayScale) private var displayScale
    @Environment(\.accessibilityReduceMotion) private var reduceMotion

    /// Loads `request` and builds the view for each phase.
    ///
    /// - Parameters:
    ///   - request: The image to show; `nil` shows ``AsyncPhotoPhase/empty``.
    ///   - scale: Pixels a point for a request with an explicit resize (as `AsyncImage`'s
    ///     `scale`); an image sized to the layout always uses the display scale.
    ///   - content: The view for each phase.
    public init(request: ImageRequest?, scale: CGFloat = 1, @ViewBuilder content: @escaping (AsyncPhotoPhase) -> Content) {
        self.request = request
        self.scale = scale
        self.content = content
    }

    /// Loads `url` and builds the view for each phase.
    public init(url: URL?, scale: CGFloat = 1, @ViewBuilder content: @escaping (AsyncPhotoPhase) -> Content) {
        self.init(request: url.map { ImageRequest(url: $0) }, scale: scale, content: content)
    }

    public var body: some View {
        if let request, request.resize == nil {
            GeometryReader { proxy in
                photo(
                    request.sized(
                        toWidth: Double(proxy.size.width), height: Double(proxy.size.height),
                        scale: Double(displayScale), fit: fit
                    ),
                    scale: displayScale
                )
            }
        } else {
            photo(request, scale: scale)
        }
    }

    /// The content for `request`'s phase, read without mutation, and the task that loads it.
    private func photo(_ request: ImageRequest?, scale: CGFloat) -> some View {
        // The task captures these values, not the view (whose generic type is not Sendable).
        let model = model, pipeline = pipeline, behavior = disappearBehavior
        let reducesMotion = reduceMotion, frameBudget = frameBudget
        let identity = model.identity(of: request, in: pipeline)   // one cache key per body, for both uses
        let phase = if let request, let identity {
            model.phase(for: request, identity: identity, in: pipeline)
        } else {
            model.phase(for: nil)
        }
        // The playing frame, read (and so observed) only when the model's phase is this view's.
        let frame = identity != nil && identity == model.loadedIdentity ? model.currentFrame : nil
        return content(AsyncPhotoPhase(phase, frame: frame, scale: scale))
            .task(id: TaskID(identity: identity, reducesMotion: reducesMotion)) {
                model.reducesMotion = reducesMotion
                model.frameBudget = frameBudget
                await model.bind(request, in: pipeline, onDisappear: behavior)
            }
    }

    /// What restarts the view's task: another image, or the Reduce Motion setting.
    private struct TaskID: Hashable {
        let identity: ImageModel.Identity?
        let reducesMotion: Bool
    }

    /// Plays an animated GIF or WebP: its frames are decoded at the view's size as playback
    /// reaches them, at most `frameBudget` held at once; it loops as the file says, pauses when
    /// the view disappears, and stays on its first frame when Reduce Motion is on. Without
    /// this, an animation shows its first frame.
    ///
    /// ```swift
    /// AsyncPhoto(url: stickerURL)
    ///     .animated()
    ///     .frame(width: 160, height: 160)
    /// ```
    ///
    /// It asks the request for `AnimationLimits(delivery: .stream)` unless the request already
    /// set `ImageRequest.animation` (with `.frames`, every frame is decoded up front and kept in
    /// the memory cache, whatever the budget).
    public func animated(_ animates: Bool = true, frameBudget: Int = ImageModel.defaultFrameBudget) -> Self {
        var copy = self
        copy.frameBudget = frameBudget
        if animates, copy.request?.animation == nil {
            copy.request?.animation = AnimationLimits(delivery: .stream)
        } else if !animates {
            copy.request?.animation = nil
        }
        return copy
    }

    /// What happens to the load when the view disappears. Default: ``ImageModel/DisappearBehavior/cancel``.
    ///
    /// ```swift
    /// AsyncPhoto(url: url).disappearBehavior(.lowerPriority(.veryLow))
    /// ```
    public func disappearBehavior(_ behavior: ImageModel.DisappearBehavior) -> Self {
        var copy = self
        copy.disappearBehavior = behavior
        return copy
    }

    /// Runs `processors` on the image after it is sized, as `ImageRequest.processors`
    /// (replacing any the request had): a round avatar, a blurred backdrop.
    ///
    /// ```swift
    /// AsyncPhoto(url: user.avatarURL)
    ///     .processors([.circle])
    ///     .frame(width: 48, height: 48)
    /// ```
    public func processors(_ processors: [any ImageProcessing]) -> Self {
        var copy = self
        copy.request?.processors = processors
        return copy
    }

    /// How an image sized to the layout covers the view's box. Default: ``Imagery/ImageRequest/LayoutFit/fill``.
    public func layoutFit(_ fit: ImageRequest.LayoutFit) -> Self {
        var copy = self
        copy.fit = fit
        return copy
    }
}

// In the initializers below, a request's placeholder hash, decoded, goes through `content` as
// the image does, until the image replaces it: it is a blurred picture of the same image.
extension AsyncPhoto {
    /// Loads `request` and shows the image resizable, or a grey placeholder: `AsyncImage(url:)`'s
    /// behaviour.
    public init(request: ImageRequest?, scale: CGFloat = 1) where Content == _ConditionalContent<Image, Color> {
        self.init(request: request, scale: scale) { phase in
            if let image = phase.image ?? phase.preview { image.resizable() } else { Color.gray.opacity(0.2) }
        }
    }

    /// Loads `url` and shows the image resizable, or a grey placeholder.
    public init(url: URL?, scale: CGFloat = 1) where Content == _ConditionalContent<Image, Color> {
        self.init(request: url.map { ImageRequest(url: $0) }, scale: scale)
    }

    /// Loads `request`, showing its placeholder hash through `content`, or else `placeholder`,
    /// until the image is ready (and `placeholder` if it fails).
    public init<I: View, P: View>(
        request: ImageRequest?,
        scale: CGFloat = 1,
        @ViewBuilder content: @escaping (Image) -> I,
        @ViewBuilder placeholder: @escaping () -> P
    ) where Content == _ConditionalContent<I, P> {
        self.init(request: request, scale: scale) { phase in
            if let image = phase.image ?? phase.preview { content(image) } else { placeholder() }
        }
    }

    /// Loads `url`, showing `placeholder` until the image is ready (and if it fails).
    public init<I: View, P: View>(
        url: URL?,
        scale: CGFloat = 1,
        @ViewBuilder content: @escaping (Image) -> I,
        @ViewBuilder placeholder: @escaping () -> P
    ) where Content == _ConditionalContent<I, P> {
        self.init(request: url.map { ImageRequest(url: $0) }, scale: scale, content: content, placeholder: placeholder)
    }

    /// Loads `request`, showing its placeholder hash through `content`, or else `placeholder`,
    /// while it loads, and `failure` if it fails.
    public init<I: View, P: View, F: View>(
        request: ImageRequest?,
        scale: CGFloat = 1,
        @ViewBuilder content: @escaping (Image) -> I,
        @ViewBuilder placeholder: @escaping () -> P,
        @ViewBuilder failure: @escaping (ImagePipelineError) -> F
    ) where Content == _ConditionalContent<_ConditionalContent<I, F>, P> {
        self.init(request: request, scale: scale) { phase in
            if let image = phase.image ?? phase.preview {
                content(image)
            } else if let error = phase.error {
                failure(error)
            } else {
                placeholder()
            }
        }
    }

    /// Loads `url`, showing `placeholder` while it loads and `failure` if it fails.
    public init<I: View, P: View, F: View>(
        url: URL?,
        scale: CGFloat = 1,
        @ViewBuilder content: @escaping (Image) -> I,
        @ViewBuilder placeholder: @escaping () -> P,
        @ViewBuilder failure: @escaping (ImagePipelineError) -> F
    ) where Content == _ConditionalContent<_ConditionalContent<I, F>, P> {
        self.init(
            request: url.map { ImageRequest(url: $0) }, scale: scale,
            content: content, placeholder: placeholder, failure: failure
        )
    }
}
