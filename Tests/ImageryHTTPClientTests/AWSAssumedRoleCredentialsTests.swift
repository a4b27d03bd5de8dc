import Foundation
import Imagery
import ImageryHTTPClient
import Testing

/// STS's answer read strictly, and the assumed role's credentials renewed before they expire,
/// once however many requests need them: a double in place of STS and a clock the test moves.
@Suite("AWSAssumedRoleCredentials: STS AssumeRole, renewed before expiry, one call in flight", .timeLimit(.minutes(10)))
struct AWSAssumedRoleCredentialsTests {
    static let answer = """
        <AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
          <AssumeRoleResult>
            <AssumedRoleUser><Arn>arn:aws:sts::123456789012:assumed-role/images/imagery-server</Arn></AssumedRoleUser>
            <Credentials>
              <AccessKeyId>ASIAEXAMPLE</AccessKeyId>
              <SecretAccessKey>wJalr/K7MDENG+bPxRfi&amp;CYEXAMPLEKEY</SecretAccessKey>
              <SessionToken><![CDATA[FwoGZXIvYXdzE<token>]]></SessionToken>
              <Expiration>2026-05-01T12:00:00Z</Expiration>
            </Credentials>
          </AssumeRoleResult>
          <!-- a comment -->
          <ResponseMetadata><RequestId>c6104cbe</RequestId></ResponseMetadata>
        </AssumeRoleResponse>
        """

    @Test("An AssumeRoleResponse gives the key, the secret (entities decoded), the token and the expiry; anything else gives nothing")
    func parsesTheAnswer() throws {
        let temporary = try #require(AWSSecurityTokenService.credentials(inAnswer: Self.answer))
        #expect(temporary.credentials == AWSCredentials(accessKeyID: "ASIAEXAMPLE", secretAccessKey: "wJalr/K7MDENG+bPxRfi&CYEXAMPLEKEY", sessionToken: "FwoGZXIvYXdzE<token>"))
        #expect(temporary.expiration == Date(timeIntervalSince1970: 1_777_636_800))
        #expect(!temporary.description.contains("wJalr") && !temporary.description.contains("FwoG"))
        let fractional = Self.answer.replacingOccurrences(of: "12:00:00Z", with: "12:00:00.250Z")
        #expect(AWSSecurityTokenService.credentials(inAnswer: fractional)?.expiration == Date(timeIntervalSince1970: 1_777_636_800.25))

        for broken in [
            Self.answer.replacingOccurrences(of: "</SessionToken>", with: ""),                        // not well formed
            Self.answer.replacingOccurrences(of: "<SessionToken><![CDATA[FwoGZXIvYXdzE<token>]]></SessionToken>", with: ""),   // no token
            Self.answer.replacingOccurrences(of: "2026-05-01T12:00:00Z", with: "tomorrow"),
            Self.answer.replacingOccurrences(of: "AssumeRoleResponse", with: "GetSessionTokenResponse"),
            "<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>" + Self.answer,
            Self.answer + "<extra/>",
            "",
        ] {
            #expect(AWSSecurityTokenService.credentials(inAnswer: broken) == nil, "\(broken.prefix(60))")
        }
    }

    @Test("The XML reader: nesting, entities, character references and self-closing tags; mismatched tags and deep nesting are refused")
    func xml() throws {
        let root = try #require(AWSXML.parse("<?xml version=\"1.0\"?><A b='>'><B>x &lt;&#65;&#x42;&gt; y</B><C/></A>"))
        #expect(root.name == "A" && root.children.map(\.name) == ["B", "C"])
        #expect(root.path("B")?.text == "x <AB> y")
        #expect(AWSXML.parse("<A><B></A></B>") == nil)
        #expect(AWSXML.parse("<A>&bogus;</A>") == nil)
        #expect(AWSXML.parse(String(repeating: "<A>", count: 40) + String(repeating: "</A>", count: 40)) == nil)
    }

    @Test("A role's ARN is checked before STS is asked", arguments: [
        ("arn:aws:iam::123456789012:role/images", true), ("arn:aws-cn:iam::123456789012:role/path/to/images", true),
        ("arn:aws:iam::12345:role/images", false), ("arn:aws:s3:::bucket", false), ("arn:aws:iam::123456789012:user/bob", false),
        ("images", false), ("arn:aws:iam::123456789012:role/", false), ("arn:aws:iam:eu-west-1:123456789012:role/images", false),
    ])
    func roleARNs(arn: String, valid: Bool) {
        #expect(AWSSecurityTokenService.Role.isRoleARN(arn) == valid)
    }

    /// A stand-in for STS: counts its calls, hands out keys `ASIA1`, `ASIA2` …, each valid for
    /// an hour from the test's clock, and holds every call until the test opens its gate.
    final class DoubleSTS: Sendable {
        let clock = Locked(Date(timeIntervalSince1970: 1_800_000_000))
        private let state = Locked((calls: 0, failing: false, gate: [CheckedContinuation<Void, Never>](), gated: false))

        var calls: Int { state.withLock { $0.calls } }
        func fail(_ failing: Bool) { state.withLock { $0.failing = failing } }
        func hold() { state.withLock { $0.gated = true } }
        /// Lets held calls finish, and later ones pass.
        func open() {
            let waiting = state.withLock { state in
                state.gated = false
                defer { state.gate = [] }
                return state.gate
            }
            for continuation in waiting { continuation.resume() }
        }
        /// Waits until `count` calls have started.
        func untilCalled(_ count: Int) async {
            while calls < count { await Task.yield() }
        }

        func assume() async throws(AWSServiceCall.Failure) -> AWSSecurityTokenService.TemporaryCredentials {
            await withCheckedContinuation { continuation in
                let pass = state.withLock { state in
                    state.calls += 1
                    if state.gated { state.gate.append(continuation) }
                    return !state.gated
                }
                if pass { continuation.resume() }
            }
            let (number, failing) = state.withLock { ($0.calls, $0.failing) }
            if failing { throw .refused(status: 403, type: "AccessDenied", message: "not authorized to perform sts:AssumeRole") }
            let now = clock.withLock { $0 }
            return .init(
                credentials: AWSCredentials(accessKeyID: "ASIA\(number)", secretAccessKey: "secret\(number)", sessionToken: "token\(number)"),
                expiration: now.addingTimeInterval(3600)
            )
        }

        func role() -> AWSAssumedRoleCredentials {
            AWSAssumedRoleCredentials(role: .init(arn: "arn:aws:iam::123456789012:role/images", sessionName: "test"), now: { self.clock.withLock { $0 } }) {
                () async throws(AWSServiceCall.Failure) in try await self.assume()
            }
        }

        func advance(by seconds: TimeInterval) { clock.withLock { $0.addTimeInterval(seconds) } }
    }

    @Test("Credentials are reused until 5 minutes before they expire, then assumed again once")
    func refreshesOnceNearExpiry() async throws {
        // Given a role assumed once
        let sts = DoubleSTS()
        let role = sts.role()
        #expect(try await role.credentials().accessKeyID == "ASIA1")
        // When its credentials are 54 minutes old, then 56
        sts.advance(by: 54 * 60)
        #expect(try await role.credentials().accessKeyID == "ASIA1")
        #expect(sts.calls == 1, "still more than 5 minutes left: no STS call")
        sts.advance(by: 2 * 60)
        // Then the next callers get new ones, from one more STS call
        #expect(try await role.credentials().accessKeyID == "ASIA2")
        #expect(try await role.credentials().accessKeyID == "ASIA2")
        #expect(sts.calls == 2 && role.refreshes == 2)
    }

    @Test("Fifty callers that find the credentials due share one STS call")
    func concurrentCallersShareOneRefresh() async throws {
        let sts = DoubleSTS()
        let role = sts.role()
        _ = try await role.credentials()
        sts.advance(by: 3500)   // inside the 5-minute margin
        sts.hold()
        // When fifty requests need credentials while STS has not answered
        let keys = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 { group.addTask { try await role.credentials().accessKeyID } }
            await sts.untilCalled(2)
            sts.open()
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        // Then STS was asked once more, and every one of them got its answer
        #expect(sts.calls == 2)
        #expect(keys == Array(repeating: "ASIA2", count: 50))
    }

    @Test("A failed renewal keeps credentials that still work (retried after 30 s); once they expire it fails naming the role, never a key")
    func failedRefresh() async throws {
        let sts = DoubleSTS()
        let role = sts.role()
        _ = try await role.credentials()
        sts.fail(true)
        sts.advance(by: 3400)
        #expect(try await role.credentials().accessKeyID == "ASIA1", "55 minutes old: STS failed, the old ones still work")
        #expect(try await role.credentials().accessKeyID == "ASIA1")
        #expect(sts.calls == 2, "not asked again within 30 s")
        sts.advance(by: 300)   // past the expiry
        do {
            _ = try await role.credentials()
            Issue.record("expired credentials were handed out")
        } catch {
            #expect(error.description.contains("arn:aws:iam::123456789012:role/images") && error.description.contains("AccessDenied"))
            #expect(!error.description.contains("secret1") && !error.description.contains("token1"))
        }
        sts.fail(false)
        #expect(try await role.credentials().accessKeyID.hasPrefix("ASIA"))
    }
}
