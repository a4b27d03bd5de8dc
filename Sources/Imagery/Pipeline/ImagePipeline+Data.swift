import Foundation
import Logging

extension ImagePipeline {
    /// Loads the image at `url` at full size: ``image(for:)-(ImageRequest)`` for the common case.
    ///
    /// ```swift
    /// let response = try await pipeline.image(for: URL(string: "https://example.com/a.jpg")!)
    /// ```
    nonisolated(nonsending)
    public func image(for url: URL) async throws(ImagePipelineError) -> ImageResponse {
        try await image(for: ImageRequest(url: url))
    }

    /// The original bytes of `request`'s source, undecoded: to save, share or hash a photo.
    /// They come from the disk cache when its policy keeps original data, and otherwise from
    /// the source, through the pipeline's loader (with its retries and authorization); they are
    /// then stored on disk under the same rule before this returns. `resize` and the decoding
    /// options do not apply.
    ///
    /// It does not join an image download of the same source already in flight: each call
    /// that misses the disk cache loads once.
    ///
    /// ```swift
    /// let original = try await pipeline.data(for: ImageRequest(url: photoURL))
    /// try original.write(to: exportURL)
    /// ```
    nonisolated(nonsending)
    public func data(for request: ImageRequest) async throws(ImagePipelineError) -> Data {
        stats.recordRequest()
        let key = cacheKey(for: request).sourceKey
        let disk = configuration.dataCache.flatMap { configuration.dataCachePolicy.storesOriginal(resize: nil) ? $0 : nil }
        if let disk, !request.options.contains(.skipDiskCacheRead), let bytes = await disk.cachedData(for: key) {
            stats.recordDiskHit()
            return Data(bytes)
        }
        stats.recordDownload()
        let bytes: [UInt8]
        do {
            bytes = try await loader.loadData(for: request.source) { _ in }
        } catch {
            let failure: ImagePipelineError = error == .cancelled ? .cancelled : .loadingFailed(error)
            stats.recordFailure(kind: failure.kind)
            configuration.logger.debug("download failed", metadata: ["source": "\(request.source)", "error": "\(error)"])
            throw failure
        }
        stats.recordBytes(bytes.count)
        if let disk, !request.options.contains(.skipDiskCacheWrite) {
            stats.recordDiskWrite()
            await disk.storeData(bytes, for: key)
        }
        return Data(bytes)
    }
}
