import Foundation

/// Wraps any loader and sends a bearer token from a ``TokenProvider`` with every HTTP(S)
/// request. On HTTP 401 it asks for a refreshed token once and retries once.
///
/// The provider's ``TokenProvider/account`` becomes part of every cache key, so one
/// account's private images are never served to another.
///
/// ```swift
/// let tokens = TokenProvider(account: session.userID) { try await session.refreshToken() }
/// var configuration = ImagePipeline.Configuration.standard
/// configuration.dataLoader = AuthorizingDataLoader(wrapping: DataLoader(), tokens: tokens)
/// ```
public struct AuthorizingDataLoader: DataLoading {
    /// The loader that does the real work.
    public let base: any DataLoading
    /// Where tokens come from.
    public let tokens: TokenProvider

    /// Authorizes every HTTP(S) load of `base` with tokens from `tokens`.
    public init(wrapping base: any DataLoading, tokens: TokenProvider) {
        self.base = base
        self.tokens = tokens
    }

    public func response(for source: ImageSource) async throws(DataLoadingError) -> DataResponse {
        guard case let .url(url, headers) = source.kind, ["http", "https"].contains(url.scheme?.lowercased()) else {
            return try await base.response(for: source)
        }
        let token = try await tokens.token()
        do {
            // A refused attempt hands over no bytes: an error status throws before any body.
            return try await base.response(for: Self.authorized(url, headers, token))
        } catch .httpStatus(401, _) {
            let fresh = try await tokens.refreshedToken(replacing: token)
            return try await base.response(for: Self.authorized(url, headers, fresh))
        }
    }

    public func cachePartition(for source: ImageSource) -> String? {
        let own = "account=" + tokens.account
        return base.cachePartition(for: source).map { $0 + "," + own } ?? own
    }

    private static func authorized(_ url: URL, _ headers: [String: String], _ token: String) -> ImageSource {
        var headers = headers
        headers["Authorization"] = "Bearer " + token
        return .url(url, headers: headers)
    }
}
