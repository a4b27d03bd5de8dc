import Imagery
#if canImport(SwiftUI)
import SwiftUI
#else
import SwiftUIStub
#endif

/// Written out as an `EnvironmentKey` rather than with the `@Entry` macro, so building Imagery
/// needs no macro plugin (and no swift-syntax).
private struct ImagePipelineKey: EnvironmentKey {
    /// Read each time, not once: an app may set `ImagePipeline.shared` after a view first asked.
    static var defaultValue: ImagePipeline { ImagePipeline.shared }
}

extension EnvironmentValues {
    /// The pipeline ``AsyncPhoto`` and ``FetchedImage`` load through. Default:
    /// `ImagePipeline.shared`.
    public var imagePipeline: ImagePipeline {
        get { self[ImagePipelineKey.self] }
        set { self[ImagePipelineKey.self] = newValue }
    }
}

extension View {
    /// Makes the views below load through `pipeline`.
    ///
    /// ```swift
    /// GalleryView()
    ///     .imagePipeline(ImagePipeline(configuration: .standard.with { $0.maximumConcurrentDownloads = 8 }))
    /// ```
    nonisolated public func imagePipeline(_ pipeline: ImagePipeline) -> some View {
        environment(\.imagePipeline, pipeline)
    }
}
