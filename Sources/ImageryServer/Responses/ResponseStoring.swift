import ImageryImgproxy

/// A tier of encoded responses beyond this process's memory, shared with other instances: the
/// disk tier on one machine, result storage in a bucket across machines. Asked in order after
/// the memory tier and before any work; a hit in a later tier fills the earlier ones.
protocol ResponseStoring: Sendable {
    /// Which tier this is, for `/metrics`.
    var tier: ServerMetrics.Tier { get }
    /// The stored response for `key`, or `nil`: a miss, and also a store that failed, since a
    /// tier never fails a request it could process instead.
    func response(for key: ResponseVariantKey) async -> CachedResponse?
    /// Stores `response` under `key` in the background, tracked so a graceful shutdown waits.
    func store(_ response: CachedResponse, for key: ResponseVariantKey)
}
