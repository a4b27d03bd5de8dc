/// The pipeline's view of its ``DataCaching`` tier: the cache, what to keep, and how to encode
/// processed images.
struct DiskTier: Sendable {
    let cache: any DataCaching
    let policy: DataCachePolicy
    let encoder: (any ImageEncoding)?

    func readsProcessed(for request: ImageRequest) -> Bool {
        encoder != nil && policy.storesProcessed(resize: request.resize) && !request.options.contains(.skipDiskCacheRead)
    }

    func writesProcessed(for request: ImageRequest) -> Bool {
        encoder != nil && policy.storesProcessed(resize: request.resize) && !request.options.contains(.skipDiskCacheWrite)
    }

    func writesOriginal(for request: ImageRequest) -> Bool {
        policy.storesOriginal(resize: request.resize) && !request.options.contains(.skipDiskCacheWrite)
    }
}
