/// Stores encoded bytes by key across launches: the pluggable second cache tier, behind the
/// memory cache and in front of the data source.
///
/// Every method may do I/O, so every method is `async`; implementations run it off the
/// caller's executor and never make a read wait for a write.
///
/// ```swift
/// let disk = try DiskCache(directory: cachesURL.appendingPathComponent("images").path)
/// await disk.storeData(bytes, for: "https://example.com/a.jpg")
/// let again = await disk.cachedData(for: "https://example.com/a.jpg")
/// ```
public protocol DataCaching: Sendable {
    /// The bytes stored for `key`, or `nil` when there are none, they expired, or they failed
    /// their integrity check (in which case they are also removed).
    func cachedData(for key: String) async -> [UInt8]?
    /// Stores `data` for `key`, replacing what was there. Returns once the entry is durable.
    func storeData(_ data: [UInt8], for key: String) async
    /// Removes the entry for `key`, if any.
    func removeData(for key: String) async
    /// Removes every entry.
    func removeAll() async
}
