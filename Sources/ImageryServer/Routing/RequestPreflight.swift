import HTTPTypes
import Imagery
import ImageryCodecs
import ImageryImgproxy

/// Everything an image path passes before any work: its shape, the signature, the options,
/// the source policy and the plan. A path that fails any of them is refused here, so a bad
/// signature or option costs nothing.
package struct RequestPreflight: Sendable {
    /// `nil` when signatures are not checked.
    let signer: ImgproxySigner?
    let sources: SourcePolicy
    let defaults: ImgproxyPlan.Defaults
    /// Presets, and which options URLs may use.
    let rules: ImgproxyOptionRules
    /// Which `/info` options URLs may use.
    let infoRules: ImgproxyOptionRules
    /// What a URL's source is read as: replacements and the base URL.
    let rewrite: SourceRewrite
    /// Decrypts `/enc/` sources; `nil` refuses them.
    let cipher: ImgproxySourceCipher?
    /// Which sources get a client's cookies.
    var cookiePassthrough = CookiePassthrough()

    init(
        signer: ImgproxySigner?, sources: SourcePolicy, defaults: ImgproxyPlan.Defaults, rules: ImgproxyOptionRules = ImgproxyOptionRules(),
        infoRules: ImgproxyOptionRules = ImgproxyOptionRules(), rewrite: SourceRewrite = SourceRewrite(), cipher: ImgproxySourceCipher? = nil
    ) {
        self.signer = signer
        self.sources = sources
        self.defaults = defaults
        self.rules = rules
        self.infoRules = infoRules
        self.rewrite = rewrite
        self.cipher = cipher
    }

    /// The checks a server with `configuration` makes (the URL fuzz target drives them too),
    /// from its settings as `resolved` (``ServerConfiguration/resolve()``).
    package init(configuration: ServerConfiguration, resolved: ResolvedSettings) throws(ServerSetupError) {
        var watermark = configuration.watermark
        if watermark == nil { watermark = try configuration.localWatermark() }
        var defaults = ImgproxyPlan.Defaults(
            quality: configuration.defaultQuality, maximumPixelCount: configuration.maximumSourcePixels,
            // SVG only from an SVG source, passed through (``SVGSettings``).
            writableFormats: Set(ImageEncoder.supportedFormats).union([.svg]),
            animation: configuration.animationLimits, animatedFormats: ImageEncoder.animatedFormats,
            watermark: watermark, formatQuality: resolved.formatQualities
        )
        defaults.maximumResultDimension = configuration.maximumResultDimension
        defaults.autoQuality = resolved.autoQuality
        defaults.skipProcessingFormats = Set(configuration.skipProcessingFormats)
        self.init(
            signer: resolved.signer,
            sources: configuration.sources,
            defaults: defaults,
            rules: resolved.rules, infoRules: resolved.infoRules, rewrite: resolved.sourceRewrite, cipher: resolved.sourceCipher
        )
        cookiePassthrough = configuration.cookiePassthrough
    }

    /// What a server answers `path` before loading anything: `nil` when it would go on to
    /// serve it, else the refusal's status code and line.
    package func refusal(of path: String) -> (status: Int, message: String)? {
        do throws(ServerError) {
            _ = try plan(for: path)
            return nil
        } catch {
            return (error.status.code, error.message)
        }
    }

    /// `path` split into its parts under `rules`, its signature checked over what follows it.
    func signedPath(_ path: String, rules: ImgproxyOptionRules) throws(ImgproxyError) -> ImgproxyPath {
        let parsed = try ImgproxyPath(parsing: path, rules: rules)
        if let signer, !signer.isValid(parsed.signature, for: parsed.signedPart) {
            throw ImgproxyError(.invalidSignature, "invalid signature")
        }
        return parsed
    }

    /// The pipeline source a signed path reads: decrypted once the signature has been checked,
    /// rewritten, then judged by the source policy.
    func source(of parsed: ImgproxyPath) throws(ServerError) -> ImageSource {
        var url = parsed.source
        if parsed.sourceEncoding == .encrypted {
            guard let cipher else { throw .badRequest("source: encrypted sources are off (no --source-url-encryption-key)") }
            do throws(ImgproxyError) {
                url = try cipher.decrypt(url)
            } catch {
                throw ServerError(error)
            }
        }
        return try sources.source(for: rewrite.apply(url))
    }

    /// The plan for `path`, with the client's `hints` filling in what it leaves unsaid and its
    /// `cookies` sent to a source in their scope.
    func plan(for path: String, hints: ClientHints? = nil, cookies: CookiePassthrough.Cookies? = nil) throws(ServerError) -> ImgproxyPlan {
        let parsed: ImgproxyPath
        var options: ImgproxyOptions
        do throws(ImgproxyError) {
            parsed = try signedPath(path, rules: rules)
            options = try ImgproxyOptions(segments: parsed.options, rules: rules)
        } catch {
            throw ServerError(error)
        }
        hints?.apply(to: &options)
        var source = try source(of: parsed)
        if let cookied = cookiePassthrough.source(source, with: cookies) { source = cookied }
        do throws(ImgproxyError) {
            return try ImgproxyPlan(options: options, source: source, fileExtension: parsed.fileExtension, defaults: defaults)
        } catch {
            throw ServerError(error)
        }
    }
}
