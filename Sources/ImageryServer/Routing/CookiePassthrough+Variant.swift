import Hummingbird
import ImageryImgproxy

extension CookiePassthrough {
    /// The key `request`'s answer is stored under, from its path as sent, the format class and
    /// hints it asks for, and the server's settings digest; with the client's cookies, when
    /// passed through, which also partition the key: an answer made with them is theirs alone.
    func variant(
        of request: Request, accepted: AcceptedFormats, clientHints: ClientHints? = nil, settings: String
    ) -> (key: ResponseVariantKey, cookies: Cookies?) {
        let cookies = cookies(in: request.headers, authority: request.head.authority)
        var key = ResponseVariantKey(path: request.uri.path, accepted: accepted, clientHints: clientHints?.key ?? "", settings: settings)
        key.partition = cookies?.partition ?? ""
        return (key, cookies)
    }
}
