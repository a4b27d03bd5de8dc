import Imagery
import Tracing

/// Which response tier answered a traced request (`memory`, `disk`, `bucket`, or `none` for an
/// answer made now), noted by ``ResponseTiers`` and recorded by ``RequestSpanMiddleware`` on the
/// request's span as `imagery.cache.tier`. An attribute rather than a span of its own for the
/// memory tier's lookup, which takes microseconds: a span there would double the spans of the
/// hot path, which is most requests.
///
/// Carried in the request's `ServiceContext` only while the request is traced, so an untraced
/// request makes none.
final class TierNote: ServiceContextKey, Sendable {
    typealias Value = TierNote

    private let tier = Locked<String?>(nil)

    var value: String? { tier.withLock { $0 } }

    /// Notes `tier` for the current request, if it is traced.
    static func record(_ tier: String) {
        ServiceContext.current?[TierNote.self]?.tier.withLock { $0 = tier }
    }
}
