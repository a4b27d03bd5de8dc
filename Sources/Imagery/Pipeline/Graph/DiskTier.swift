/// The pipeline's view of its ``DataCaching`` tier: the cache, what to keep, and how to encode
/// processed images.
struct DiskTier: Sendable {
    let cache: any DataCaching
    let policy: DataCachePolicy
    let encoder: (any ImageEncoding)?

    func readsProcessed(for request: ImageRequest) -> Bool {
        keepsProcessed(for: request) && !request.options.contains(.skipDiskCacheRead)
    }

    func writesProcessed(for request: ImageRequest) -> Bool {
        keepsProcessed(for: request) && !request.options.contains(.skipDiskCacheWrite)
    }

    /// Processed images need an encoder to be stored, and the policy to want them.
    private func keepsProcessed(for request: ImageRequest) -> Bool {
        encoder != nil && policy.storesProcessed(resize: request.resize)
    }

    func writesOriginal(for request: ImageRequest) -> Bool {
        policy.storesOriginal(resize: request.resize) && !request.options.contains(.skipDiskCacheWrite)
    }

    /// For `data(for:)`, which asks for the original whatever the request's `resize`.
    func writesOriginal(forData request: ImageRequest) -> Bool {
        policy.storesOriginal(resize: nil) && !request.options.contains(.skipDiskCacheWrite)
    }
}
