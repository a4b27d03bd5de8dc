import Foundation

/// When and how soon ``RetryingDataLoader`` tries again: exponential backoff with jitter, for
/// transient failures only (connection failures and HTTP 5xx; never 4xx, never a timeout), and
/// all of it within one total ``deadline``.
///
/// ```swift
/// var policy = RetryPolicy()
/// policy.maximumAttempts = 4                // the first try and up to three retries
/// policy.initialDelay = .milliseconds(250)  // then about 0.5 s, 1 s, capped at maximumDelay
/// policy.deadline = .seconds(20)            // attempts and waits together
/// ```
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts in all, including the first. Default: 3.
    public var maximumAttempts: Int = 3
    /// The delay before the first retry, before jitter. Default: 200 ms.
    public var initialDelay: Duration = .milliseconds(200)
    /// How much each delay grows over the previous one. Default: 2.
    public var multiplier: Double = 2
    /// The longest delay, before jitter. Default: 10 s.
    public var maximumDelay: Duration = .seconds(10)
    /// The fraction of each delay that is randomised: 0.5 draws from 50–100% of it ("equal
    /// jitter"), so that clients that failed together do not retry together. Default: 0.5.
    public var jitter: Double = 0.5

    /// How long one source may take in all, every attempt and every wait included: past it the
    /// load fails with ``DataLoadingError/timedOut(source:)``, and no retry starts whose wait
    /// would end past it. Default: 60 s.
    public var deadline: Duration = .seconds(60)

    /// The defaults: 3 attempts, 200 ms doubling to at most 10 s, 50% jitter, 60 s in all.
    public init() {}

    /// The delay before retry number `retry` (1 for the first retry), with jitter drawn from `random`.
    public func delay(beforeRetry retry: Int, using random: inout some RandomNumberGenerator) -> Duration {
        let exponent = Double(max(0, retry - 1))
        let base = min(initialDelay.seconds * pow(multiplier, exponent), maximumDelay.seconds)
        let spread = min(max(jitter, 0), 1)
        let factor = spread > 0 ? Double.random(in: (1 - spread)...1, using: &random) : 1
        return .seconds(base * factor)
    }

    /// Whether `error` after `attempt` attempts deserves another.
    public func shouldRetry(_ error: DataLoadingError, afterAttempt attempt: Int) -> Bool {
        attempt < maximumAttempts && error.isTransient
    }
}
