import Foundation

extension ImagePipeline {
    /// Loads the image at `url` at full size: ``image(for:)-(ImageRequest)`` for the common case.
    ///
    /// ```swift
    /// let image = try await pipeline.image(for: URL(string: "https://example.com/a.jpg")!)
    /// ```
    nonisolated(nonsending)
    public func image(for url: URL) async throws(ImagePipelineError) -> Bitmap {
        try await response(for: ImageRequest(url: url)).image
    }

    /// The whole response for the image at `url` at full size, as
    /// ``response(for:)-(ImageRequest)`` answers it.
    ///
    /// ```swift
    /// let response = try await pipeline.response(for: URL(string: "https://example.com/a.jpg")!)
    /// ```
    nonisolated(nonsending)
    public func response(for url: URL) async throws(ImagePipelineError) -> ImageResponse {
        try await response(for: ImageRequest(url: url))
    }

    /// The original bytes of `request`'s source, undecoded: to save, share or hash a photo.
    /// They come through the pipeline's fetch stage, so a download of the same source already
    /// under way for an image (at any size) is shared, not repeated; from the disk cache when
    /// its policy keeps original data; otherwise from the source, through the pipeline's loader
    /// (with its retries and authorization), and then stored on disk under the same rule in
    /// the background. `resize` and the decoding options do not apply.
    ///
    /// Cancelling the calling task detaches only this caller, as with ``image(for:)-(ImageRequest)``.
    ///
    /// ```swift
    /// let original = try await pipeline.data(for: ImageRequest(url: photoURL))
    /// try original.write(to: exportURL)
    /// ```
    nonisolated(nonsending)
    public func data(for request: ImageRequest) async throws(ImagePipelineError) -> Data {
        Data(try await original(for: request).bytes)
    }

    /// ``data(for:)``'s bytes, with what the source said about them (``SourceHeaders``; empty
    /// when they came from the disk cache), for a server that passes the source's freshness on.
    nonisolated(nonsending)
    package func original(for request: ImageRequest) async throws(ImagePipelineError) -> (bytes: [UInt8], headers: SourceHeaders) {
        let task = start(data: request)
        let graph = self.graph
        let outcome = await withTaskCancellationHandler {
            await task.outcome()
        } onCancel: {
            task.finish(.failure(.cancelled))
            Task { @PipelineActor in graph.cancelData(task) }
        }
        let fetched = try outcome.get()
        return (fetched.bytes, fetched.headers)
    }
}
