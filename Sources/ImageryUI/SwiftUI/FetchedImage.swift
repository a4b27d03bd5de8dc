import Foundation
import Imagery
#if canImport(SwiftUI)
import SwiftUI
#else
import SwiftUIStub
#endif

/// A view property that loads an image and exposes its ``ImagePhase``.
///
/// ```swift
/// struct Avatar: View {
///     @FetchedImage var photo: ImagePhase
///
///     init(user: User) {
///         _photo = FetchedImage(ImageRequest(url: user.avatarURL, resize: .fill(width: 96, height: 96)))
///     }
///
///     var body: some View {
///         if let response = photo.response, let cgImage = response.image.makeCGImage() {
///             Image(decorative: cgImage, scale: 2)
///         } else if photo.error != nil {
///             Button("Retry") { $photo.retry() }
///         } else {
///             ProgressView()
///         }
///     }
/// }
/// ```
///
/// The pipeline comes from the environment unless one is passed. SwiftUI calls ``update()``
/// before every `body`; it only notes the request, so re-rendering never starts a second load
/// for the same image, and the load itself begins on the next main-actor turn, outside the
/// update. A cached image is in the first frame all the same: ``wrappedValue`` answers from
/// the memory cache until the load has started. The load lives as long as the view; the
/// projected value (`$photo`) is the ``ImageModel``, for ``ImageModel/cancel()``,
/// ``ImageModel/retry()`` and ``ImageModel/priority``.
@MainActor
@propertyWrapper
public struct FetchedImage: @preconcurrency DynamicProperty {
    @State private var model = ImageModel()
    @Environment(\.imagePipeline) private var environmentPipeline
    private let request: ImageRequest?
    private let pipeline: ImagePipeline?

    /// Loads `request` through `pipeline`, or through the environment's pipeline when `nil`.
    public init(_ request: ImageRequest?, pipeline: ImagePipeline? = nil) {
        self.request = request
        self.pipeline = pipeline
    }

    /// Loads `url` at `resize`, runs `processors` on it, through `pipeline` (or the
    /// environment's pipeline when `nil`).
    ///
    /// ```swift
    /// @FetchedImage(url: user.avatarURL, resize: .fill(width: 96, height: 96), processors: [.circle])
    /// var avatar: ImagePhase
    /// ```
    public init(url: URL?, resize: Resize? = nil, processors: [any ImageProcessing] = [], pipeline: ImagePipeline? = nil) {
        self.init(url.map { url in
            var request = ImageRequest(url: url, resize: resize)
            request.processors = processors
            return request
        }, pipeline: pipeline)
    }

    /// The phase to draw now.
    public var wrappedValue: ImagePhase {
        model.phase(for: request, in: resolvedPipeline)
    }

    /// The model, to cancel, retry or change priority.
    public var projectedValue: ImageModel { model }

    /// Notes the request; see the type's discussion.
    public mutating func update() {
        model.scheduleLoad(request, in: resolvedPipeline)
    }

    private var resolvedPipeline: ImagePipeline { pipeline ?? environmentPipeline }
}
