import Foundation
import Imagery

/// An IAM role's temporary credentials, assumed through STS and assumed again before they
/// expire, with one STS call in flight however many requests need one: every caller that
/// arrives while a refresh runs awaits that refresh (as ``TokenProvider`` does for tokens).
///
/// A lock rather than an actor: the common case, credentials still fresh, is a synchronous
/// read on every S3 request, with no hop.
///
/// ```swift
/// let role = AWSAssumedRoleCredentials(
///     role: .init(arn: "arn:aws:iam::123456789012:role/images", externalID: "imagery"),
///     service: AWSSecurityTokenService(region: "eu-west-1", endpoint: stsEndpoint), base: base
/// )
/// try await role.credentials()   // at start: a wrong ARN stops the server here
/// // S3Configuration.credentialsProvider = role: every request signed with the role's keys.
/// ```
package final class AWSAssumedRoleCredentials: Sendable {
    /// Why the role's credentials could not be had; never names a credential.
    package struct Failure: Error, Equatable, CustomStringConvertible {
        package var role: String
        package var reason: AWSServiceCall.Failure

        package var description: String { "assuming the role \(role): AWS STS \(reason)" }
    }

    /// What STS is asked for.
    package let role: AWSSecurityTokenService.Role
    /// Credentials are assumed again when less than this remains of them. Default: 5 minutes,
    /// so a request signed just before never reaches S3 with expired ones.
    package let refreshMargin: Duration
    /// How long a failed refresh is not retried while the credentials held still work, so a
    /// failing STS is not asked once per request. Default: 30 seconds.
    package let retryDelay: Duration
    private let assume: @Sendable () async throws(AWSServiceCall.Failure) -> AWSSecurityTokenService.TemporaryCredentials
    private let now: @Sendable () -> Date
    private let state = Locked(State())

    private struct State: Sendable {
        var current: AWSSecurityTokenService.TemporaryCredentials?
        var refreshing: Task<Result<AWSSecurityTokenService.TemporaryCredentials, Failure>, Never>?
        /// After a failed refresh, the credentials held are used until this time.
        var retryAfter: Date?
        var refreshes = 0
    }

    /// `role` assumed through `service`, signed with the long-lived `base` credentials.
    package convenience init(role: AWSSecurityTokenService.Role, service: AWSSecurityTokenService, base: AWSCredentials) {
        self.init(role: role) { () async throws(AWSServiceCall.Failure) in
            try await service.assumeRole(role, credentials: base)
        }
    }

    /// `role` assumed by `assume` (STS, or a test's double), on the clock `now`.
    package init(
        role: AWSSecurityTokenService.Role, refreshMargin: Duration = .seconds(300), retryDelay: Duration = .seconds(30),
        now: @escaping @Sendable () -> Date = { Date() },
        assume: @escaping @Sendable () async throws(AWSServiceCall.Failure) -> AWSSecurityTokenService.TemporaryCredentials
    ) {
        self.role = role
        self.refreshMargin = refreshMargin
        self.retryDelay = retryDelay
        self.now = now
        self.assume = assume
    }

    /// How many times STS has been asked.
    package var refreshes: Int { state.withLock { $0.refreshes } }

    /// Credentials valid for at least ``refreshMargin`` (or, while STS fails, until they
    /// expire), assuming the role first if needed.
    package func credentials() async throws(Failure) -> AWSCredentials {
        let now = now()
        let margin = TimeInterval(refreshMargin.components.seconds)
        enum Next { case ready(AWSCredentials), wait(Task<Result<AWSSecurityTokenService.TemporaryCredentials, Failure>, Never>) }
        let next: Next = state.withLock { state in
            if let current = state.current {
                if now < current.expiration.addingTimeInterval(-margin) { return .ready(current.credentials) }
                if let retryAfter = state.retryAfter, now < retryAfter, now < current.expiration { return .ready(current.credentials) }
            }
            if let refreshing = state.refreshing { return .wait(refreshing) }
            state.refreshes += 1
            let task = Task { await self.refresh() }
            state.refreshing = task
            return .wait(task)
        }
        switch next {
        case let .ready(credentials): return credentials
        case let .wait(task): return try await task.value.get().credentials
        }
    }

    /// One STS call. Its result is stored and the refresh ended in one step under the lock, so
    /// no caller can join a refresh that has already finished.
    private func refresh() async -> Result<AWSSecurityTokenService.TemporaryCredentials, Failure> {
        let result: Result<AWSSecurityTokenService.TemporaryCredentials, Failure>
        do {
            result = .success(try await assume())
        } catch {
            result = .failure(Failure(role: role.arn, reason: error))
        }
        let now = now(), retryDelay = TimeInterval(retryDelay.components.seconds)
        return state.withLock { state in
            state.refreshing = nil
            switch result {
            case let .success(fresh):
                state.current = fresh
                state.retryAfter = nil
                return result
            case .failure:
                // Credentials that still work beat an error: S3 accepts them until they expire.
                if let current = state.current, now < current.expiration {
                    state.retryAfter = now.addingTimeInterval(retryDelay)
                    return .success(current)
                }
                return result
            }
        }
    }
}
