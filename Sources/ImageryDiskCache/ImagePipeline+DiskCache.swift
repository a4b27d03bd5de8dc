import Foundation
import Imagery
import Logging

extension ImagePipeline.Configuration {
    /// Adds a ``DiskCache`` in `directory` as the pipeline's disk tier. If it cannot be opened
    /// (an unusable directory, a file that is not a cache, a newer schema), logs one warning on
    /// the configuration's `logger` and leaves the pipeline working from memory and the source.
    ///
    /// ```swift
    /// var configuration = ImagePipeline.Configuration.standard
    /// configuration.useDiskCache(directory: cachesDirectory + "/images")
    /// let pipeline = ImagePipeline(configuration: configuration)
    /// ```
    ///
    /// - Returns: the error, when the cache could not be opened.
    @discardableResult
    public mutating func useDiskCache(
        directory: String, configuration: DiskCache.Configuration = DiskCache.Configuration()
    ) -> DiskCacheError? {
        do throws(DiskCacheError) {
            dataCache = try DiskCache(directory: directory, configuration: configuration)
            return nil
        } catch {
            logger.warning("disk cache disabled: \(error)")
            dataCache = nil
            return error
        }
    }

    /// ``useDiskCache(directory:configuration:)`` for a file URL, such as the caches
    /// directory `FileManager` gives.
    ///
    /// ```swift
    /// let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]
    /// configuration.useDiskCache(directory: caches.appendingPathComponent("images"))
    /// ```
    @discardableResult
    public mutating func useDiskCache(
        directory: URL, configuration: DiskCache.Configuration = DiskCache.Configuration()
    ) -> DiskCacheError? {
        useDiskCache(directory: directory.path, configuration: configuration)
    }
}
