import Synchronization
import Tracing

/// The id that names one request in logs, traces and its answer's `X-Request-ID`: the caller's,
/// when it follows imgproxy's rule (letters, digits, `_` and `-`, here at most 128 of them),
/// else Hummingbird's own (up to 32 hex digits: a random prefix of the process and a counter, made
/// with no system call on the hot path).
///
/// It travels in the request's `ServiceContext`, beside its trace, so every line logged about
/// the request carries it as `hb.request.id` (``ServerLogHandler``'s metadata provider),
/// whichever logger wrote it, without a logger passed down; the pipeline's jobs run in the
/// context of the request that started them, and so log its id.
enum RequestID: ServiceContextKey {
    typealias Value = String
    static let nameOverride: String? = "imagery.request_id"

    /// The current request's id.
    static var current: String? { ServiceContext.current?[RequestID.self] }

    /// Runs `operation` as the request `id`.
    static func withValue<Result>(_ id: String, _ operation: () async throws -> Result) async rethrows -> Result {
        var context = ServiceContext.current ?? .topLevel
        context[RequestID.self] = id
        return try await ServiceContext.withValue(context) { try await operation() }
    }

    static let header = "X-Request-ID"
    static let maximumLength = 128

    /// `given`, when it is a valid id.
    static func accepted(_ given: String?) -> String? {
        guard let given, !given.isEmpty, given.utf8.count <= maximumLength,
              given.utf8.allSatisfy({ isIDByte($0) }) else { return nil }
        return given
    }

    /// A new id where Hummingbird made none: this process's random prefix and a counter.
    static func next() -> String {
        prefix + String(counter.add(1, ordering: .relaxed).newValue, radix: 16)
    }

    private static let prefix = String(UInt64.random(in: .min ... .max), radix: 16) + "-"
    private static let counter = Atomic<UInt64>(0)

    private static func isIDByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "_"), UInt8(ascii: "-"): true
        default: false
        }
    }
}
