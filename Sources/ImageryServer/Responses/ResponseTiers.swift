import HTTPTypes
import Hummingbird
import ImageryImgproxy
import Tracing

/// The one way every stored answer is given, images and `/info` alike: the memory tier by the
/// path as sent, before it is parsed; then, once the path has passed its checks, each shared
/// tier in order (a later tier's hit fills the earlier ones); then the work, within the
/// admission limit, stored in every tier. Hits and misses are counted by tier; each shared
/// tier's lookup is a span of the request's trace (`imagery.cache disk`, `… bucket`), and the
/// tier that answered is noted on the request's span (``TierNote``).
///
/// A memory hit is looked up before parsing: the same path always parses, checks and plans
/// the same (one configuration per process, whose output-changing settings are in the key), so
/// only a path that passed every check once is stored.
struct ResponseTiers: Sendable {
    let memory: ResponseCache
    /// The disk tier and result storage, in the order they are asked.
    let shared: [any ResponseStoring]
    let admission: Admission
    let metrics: ServerMetrics
    /// Seconds since 1970, for URLs that expire: injectable so tests need no waiting.
    let now: @Sendable () -> Int
    /// `--enable-debug-headers`: every answer says which tier gave it (`X-Imagery-Tier`:
    /// `memory`, `disk`, `bucket`, or `none` for one made now). Added to the answer as it
    /// leaves, never to what a tier stores.
    var namesTier = false

    static let tierField = HTTPField.Name("X-Imagery-Tier")!

    /// What a checked path adds to every answer it gets, stored or new: when its URL expires
    /// (Unix seconds), its `Content-Disposition` and canonical `Link`, and whether it is made
    /// with the client's cookies. None of these is kept by a shared tier.
    struct Checked: Sendable {
        var expires: Int?
        var disposition: @Sendable (CachedResponse) -> String? = { _ in nil }
        /// `Link: <source>; rel="canonical"`, with `--set-canonical-header`.
        var canonical: String?
        /// The source gets the client's cookies: the answer is that client's alone, so no shared
        /// tier is asked or written, and memory keeps it under the key's cookie partition.
        var isPrivate = false
    }

    /// The answer for `key`: from a tier, or from `work` once `check` has passed.
    ///
    /// - Parameters:
    ///   - conditions: what the request asks conditionally (`If-None-Match`, `If-Modified-Since`).
    ///   - check: parses and checks the path into what `work` needs; it runs only on a memory
    ///     miss.
    ///   - work: makes the answer; it runs within the admission limit, on a miss in every tier.
    ///     What it makes is stored as its ``CachedResponse/storage`` allows.
    func answer<Plan: Sendable>(
        _ key: ResponseVariantKey, conditions: CachedResponse.Conditions,
        check: () throws(ServerError) -> (Plan, Checked),
        work: (Plan) async throws(ServerError) -> CachedResponse
    ) async throws(ServerError) -> Response {
        if let hit = memory[key], hit.isFresh(at: now()) {
            metrics.responseHit(.memory)
            return named(try hit.response(conditions, expires: hit.expires, now: now()), "memory")
        }
        let (plan, checked) = try check()
        // Before any work: an expired URL is 404 whatever is stored for it.
        if let expires = checked.expires, expires <= now() { throw ServerError(status: .notFound, message: "the URL has expired") }
        // The shared tiers see no cookie partition: only answers made without cookies go there.
        var sharedKey = key
        sharedKey.partition = ""
        if !checked.isPrivate {
            for (index, tier) in shared.enumerated() {
                let found = await withSpan("imagery.cache \(tier.tier.rawValue)") { span in
                    let found = await tier.response(for: sharedKey)
                    span.attributes["imagery.cache.hit"] = found != nil
                    return found
                }
                guard let stored = found, stored.isFresh(at: now()) else { continue }
                metrics.responseHit(tier.tier)
                for nearer in shared[..<index] { nearer.store(stored, for: sharedKey) }
                return named(try keep(stored, checked, for: key).response(conditions, expires: checked.expires, now: now()), tier.tier.rawValue)
            }
        }
        metrics.responseMiss()
        let made = try await admission.run { () throws(ServerError) in try await work(plan) }
        if made.storage == .everywhere, !checked.isPrivate {
            for tier in shared { tier.store(made, for: sharedKey) }
        }
        return named(try keep(made, checked, for: key).response(conditions, expires: checked.expires, now: now()), "none")
    }

    private func named(_ response: Response, _ tier: String) -> Response {
        TierNote.record(tier)
        guard namesTier else { return response }
        var response = response
        response.headers[Self.tierField] = tier
        return response
    }

    /// `response` as this path gets it, kept in memory with what the path added when it may be.
    private func keep(_ response: CachedResponse, _ checked: Checked, for key: ResponseVariantKey) -> CachedResponse {
        var response = response
        response.expires = checked.expires
        response.disposition = checked.disposition(response)
        response.canonical = checked.canonical
        response.isPrivate = checked.isPrivate
        if response.storage == .everywhere { memory.store(response, for: key) }
        return response
    }
}
