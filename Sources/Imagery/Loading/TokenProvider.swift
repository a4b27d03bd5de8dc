/// Hands out a valid bearer token, refreshing it before it expires, with at most one refresh
/// in flight however many requests need one.
///
/// Every caller that arrives during a refresh awaits that same refresh. After an HTTP 401,
/// ``refreshedToken(replacing:)`` refreshes only if nobody has replaced the rejected token
/// yet, so fifty requests rejected together cause one refresh, not fifty.
///
/// ```swift
/// let tokens = TokenProvider(account: "user-42") {
///     let reply = try await authService.refresh()
///     return TokenProvider.Token(reply.accessToken, expiresIn: .seconds(reply.expiresIn))
/// }
/// let loader = AuthorizingDataLoader(wrapping: DataLoader(), tokens: tokens)
/// ```
public actor TokenProvider {
    /// A bearer token and how long it stays valid.
    public struct Token: Sendable, Hashable {
        /// The token, without the `Bearer ` prefix.
        public var value: String
        /// How long the token is valid from when the refresh returned it; `nil` if it does not expire.
        public var expiresIn: Duration?

        /// A token valid for `expiresIn` (or forever, when `nil`).
        public init(_ value: String, expiresIn: Duration? = nil) {
            self.value = value
            self.expiresIn = expiresIn
        }
    }

    /// Whose token this is. It becomes part of every cache key of the requests it authorizes,
    /// so two accounts never share a cached private image.
    public nonisolated let account: String
    /// A token is refreshed when less than this remains of its life. Default: 60 s.
    public nonisolated let refreshMargin: Duration

    private let refresh: @Sendable () async throws -> Token
    private let now: @Sendable () -> ContinuousClock.Instant
    private var current: (value: String, expiry: ContinuousClock.Instant?)?
    private var inFlight: Task<Result<String, DataLoadingError>, Never>?
    private var refreshCount = 0

    /// A provider that obtains tokens from `refresh`.
    ///
    /// - Parameters:
    ///   - account: whose token this is (a user id); part of cache keys.
    ///   - refreshMargin: how early before expiry a token is replaced.
    ///   - now: the clock; tests inject one they control. Default: `ContinuousClock.now`.
    ///   - refresh: fetches a new token.
    public init(
        account: String,
        refreshMargin: Duration = .seconds(60),
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
        refresh: @escaping @Sendable () async throws -> Token
    ) {
        self.account = account
        self.refreshMargin = refreshMargin
        self.now = now
        self.refresh = refresh
    }

    /// How many refreshes have run.
    public var refreshes: Int { refreshCount }

    /// A token that will stay valid for at least ``refreshMargin``, refreshing first if needed.
    public func token() async throws(DataLoadingError) -> String {
        if let current, !isExpiring(current.expiry) { return current.value }
        return try await sharedRefresh()
    }

    /// A token other than `rejected`, which a server just answered with 401: refreshes unless
    /// another caller already did.
    public func refreshedToken(replacing rejected: String) async throws(DataLoadingError) -> String {
        if let current, current.value != rejected, !isExpiring(current.expiry) { return current.value }
        return try await sharedRefresh()
    }

    private func isExpiring(_ expiry: ContinuousClock.Instant?) -> Bool {
        guard let expiry else { return false }
        return now() + refreshMargin >= expiry
    }

    private func sharedRefresh() async throws(DataLoadingError) -> String {
        if let inFlight { return try await inFlight.value.get() }
        refreshCount += 1
        let refresh = self.refresh
        let task = Task<Result<String, DataLoadingError>, Never> { [weak self] in
            let result: Result<Token, DataLoadingError>
            do {
                result = .success(try await refresh())
            } catch {
                result = .failure(.authorizationFailed(source: "token refresh", detail: String(describing: error)))
            }
            await self?.finish(result)
            return result.map(\.value)
        }
        inFlight = task
        return try await task.value.get()
    }

    /// Stores the token and ends the refresh in one step on the actor. Were the refresh ended
    /// later, by its starter resuming, a caller rejected with the new token could meanwhile
    /// join the finished refresh and be handed the token it reports as rejected.
    private func finish(_ result: Result<Token, DataLoadingError>) {
        if case let .success(token) = result { store(token) }
        inFlight = nil
    }

    /// The expiry is counted from when the refresh returned, on this provider's clock.
    private func store(_ token: Token) {
        current = (token.value, token.expiresIn.map { now() + $0 })
    }
}
