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
    func keepsProcessed(for request: ImageRequest) -> Bool {
        encoder != nil && policy.storesProcessed(isProcessed: request.isProcessed)
    }

    func writesOriginal(for request: ImageRequest) -> Bool {
        policy.storesOriginal(isProcessed: request.isProcessed) && !request.options.contains(.skipDiskCacheWrite)
    }

    /// Whether the fetch for `request` may use the stored original.
    func readsOriginal(for request: ImageRequest) -> Bool {
        policy.storesOriginal(isProcessed: request.isProcessed) && !request.options.contains(.skipDiskCacheRead)
    }

    /// For `data(for:)`: whether its fetch may use the stored original.
    func readsOriginal(forData request: ImageRequest) -> Bool {
        policy.storesOriginal(isProcessed: false) && !request.options.contains(.skipDiskCacheRead)
    }

    /// For `data(for:)`, which asks for the original whatever the request's `resize`.
    func writesOriginal(forData request: ImageRequest) -> Bool {
        policy.storesOriginal(isProcessed: false) && !request.options.contains(.skipDiskCacheWrite)
    }
}

extension ImageRequest {
    /// Whether the result differs from the full-size decoded original.
    var isProcessed: Bool { resize != nil || !processors.isEmpty }
}
