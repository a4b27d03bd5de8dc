import Imagery
import ImageryImgproxy

extension RequestPreflight {
    /// What an `/info` path asks, after the checks an image path passes (its shape, the
    /// signature over what follows it, the options and the source policy). `path` starts after
    /// `/info`.
    func info(for path: String, cookies: CookiePassthrough.Cookies? = nil) throws(ServerError) -> (options: ImgproxyInfoOptions, source: ImageSource) {
        let parsed: ImgproxyPath, options: ImgproxyInfoOptions
        do throws(ImgproxyError) {
            parsed = try signedPath(path, rules: infoRules)
            options = try ImgproxyInfoOptions(segments: parsed.options, rules: infoRules)
        } catch {
            throw ServerError(error)
        }
        let source = try source(of: parsed)
        return (options, cookiePassthrough.source(source, with: cookies) ?? source)
    }
}
