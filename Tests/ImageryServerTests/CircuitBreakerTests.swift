import Imagery
@testable import ImageryServer
import Testing

@Suite("Result storage's circuit breaker and setting")
struct CircuitBreakerTests {
    /// A breaker on a clock the test moves.
    static func breaker() -> (CircuitBreaker, Locked<Duration>) {
        let start = ContinuousClock.now
        let offset = Locked(Duration.zero)
        return (CircuitBreaker(failureThreshold: 3, cooldown: .seconds(30), now: { start + offset.withLock { $0 } }), offset)
    }

    @Test("Failures in a row open it; a success between them resets the count")
    func opens() {
        let (breaker, _) = Self.breaker()
        #expect(!breaker.recordFailure() && !breaker.recordFailure())
        breaker.recordSuccess()
        #expect(!breaker.recordFailure() && !breaker.recordFailure())
        #expect(breaker.allowsCall() && !breaker.isOpen)
        #expect(breaker.recordFailure())   // the third in a row opens it, and says so once
        #expect(!breaker.allowsCall() && breaker.isOpen)
        #expect(!breaker.recordFailure())  // a call begun before it opened
    }

    @Test("After the cooldown one probe goes through: its success closes the breaker, its failure reopens it")
    func probes() {
        let (breaker, clock) = Self.breaker()
        for _ in 0..<3 { breaker.recordFailure() }
        clock.withLock { $0 = .seconds(29) }
        #expect(!breaker.allowsCall())
        clock.withLock { $0 = .seconds(30) }
        #expect(breaker.allowsCall())      // the probe
        #expect(!breaker.allowsCall())     // and only one at a time
        #expect(breaker.recordFailure())   // the probe failed: open for another cooldown
        clock.withLock { $0 = .seconds(59) }
        #expect(!breaker.allowsCall())
        clock.withLock { $0 = .seconds(60) }
        #expect(breaker.allowsCall())
        breaker.recordSuccess()
        #expect(breaker.allowsCall() && breaker.allowsCall() && !breaker.isOpen)
    }

    @Test("A probe that never reports is replaced after a cooldown")
    func lostProbe() {
        let (breaker, clock) = Self.breaker()
        for _ in 0..<3 { breaker.recordFailure() }
        clock.withLock { $0 = .seconds(30) }
        #expect(breaker.allowsCall())      // a probe whose caller was cancelled
        clock.withLock { $0 = .seconds(59) }
        #expect(!breaker.allowsCall())
        clock.withLock { $0 = .seconds(60) }
        #expect(breaker.allowsCall())
    }

    @Test("--s3-result-storage is bucket or bucket/prefix", arguments: [
        ("results", "results", ""), ("results/imagery", "results", "imagery/"), ("results/a/b/", "results", "a/b/"),
        ("results//x", "results", "x/"),
    ])
    func parts(value: String, bucket: String, prefix: String) {
        let parts = ServerConfiguration.resultStorageParts(value)
        #expect(parts?.bucket == bucket && parts?.prefix == prefix)
    }

    @Test("A bucket name S3 does not allow, or a prefix with a . or .. segment, is refused at start, naming the setting", arguments: [
        "Results", "r", "/prefix", "bad_bucket/x", "results/..", "results/../other", "results/a/./b", "results/%2e%2E/x", "results/a/%2E/",
    ])
    func refused(value: String) async {
        #expect(ServerConfiguration.resultStorageParts(value) == nil)
        let refusal = await ServerSettingsTests.refusal(["--s3-result-storage", value])
        #expect(refusal?.setting == "--s3-result-storage")
    }

    @Test("Result storage needs credentials: without them the server does not start")
    func needsCredentials() {
        var configuration = ServerConfiguration()
        configuration.s3ResultStorage = "results"
        #expect(throws: ServerSetupError.self) { try ServerApplication(configuration: configuration) }
    }
}
