import Imagery
import ImageryImgproxy

/// What the settings say once parsed and checked into typed values: made once at start, by
/// ``ServerConfiguration/resolve()``, and handed to every part of the server that reads them,
/// so that no setting is parsed twice and no file is read twice.
package struct ResolvedSettings: Sendable {
    /// `nil` without a key: signatures are not checked.
    let signer: ImgproxySigner?
    /// What processing URLs may say: presets, allow lists, separators.
    let rules: ImgproxyOptionRules
    /// What `/info` URLs may say.
    let infoRules: ImgproxyOptionRules
    /// `--format-quality`, by format.
    let formatQualities: [ImageFormat: Int]
    /// `--autoquality-*`.
    let autoQuality: ImgproxyAutoQuality.Defaults
    /// The presets, as read from `--presets` and `--presets-path`, for the settings digest.
    let presetsText: String
    /// The `/info` presets, as read from `--info-presets` and `--info-presets-path`.
    let infoPresetsText: String
    /// `--url-replacements` and `--base-url`.
    let sourceRewrite: SourceRewrite
    /// `/enc/` sources' cipher; `nil` refuses them.
    let sourceCipher: ImgproxySourceCipher?
    /// `--max-memory`, or the default this machine's control group gives.
    let memory: MemoryBudget
}

extension ServerConfiguration {
    /// Parses and checks every setting that needs more than its own value: the signer, the
    /// presets (a presets file is read here), the option rules and the format qualities. A
    /// server resolves once, at start (``ServerSettings/load(arguments:environment:)``), and
    /// hands the result to what reads it. Images the settings name (the watermark) are read by
    /// ``loadImages()``.
    ///
    /// ```swift
    /// let resolved = try configuration.resolve()
    /// let server = try ServerApplication(configuration: configuration, resolved: resolved)
    /// ```
    ///
    /// - Throws: ``ServerSetupError`` naming the setting.
    package func resolve() throws(ServerSetupError) -> ResolvedSettings {
        let entries = try presetEntries(presets, path: presetsPath, failure: ServerSetupError.presetsPath)
        var rules: ImgproxyOptionRules
        do throws(ImgproxyError) {
            rules = try ImgproxyOptionRules(presets: entries, argumentsSeparator: argumentsSeparator)
        } catch {
            throw .presets(error.message)
        }
        rules.onlyPresets = onlyPresets
        rules.allowedOptions = allowedProcessingOptions.isEmpty ? nil : Set(allowedProcessingOptions)
        rules.allowsSecurityOptions = allowSecurityOptions
        rules.base64SourcesIncludeFilename = sourceURLs.base64URLIncludesFilename
        rules.defaultSegments = serverDefaultSegments
        let infoEntries = try presetEntries(infoPresets, path: infoPresetsPath) { .setting("info-presets-path", $0) }
        var infoRules: ImgproxyOptionRules
        do throws(ImgproxyError) {
            infoRules = try ImgproxyOptionRules(infoPresets: infoEntries, argumentsSeparator: argumentsSeparator)
        } catch {
            throw .setting("info-presets", error.message)
        }
        infoRules.onlyPresets = infoOnlyPresets ?? onlyPresets
        infoRules.allowedOptions = allowedInfoOptions.isEmpty ? nil : Set(allowedInfoOptions)
        infoRules.allowsSecurityOptions = allowSecurityOptions
        infoRules.base64SourcesIncludeFilename = sourceURLs.base64URLIncludesFilename
        let presetsText = entries.joined(separator: "\n")
        let memory = MemoryBudget.onThisMachine(setting: maximumMemory)
        return ResolvedSettings(
            signer: try makeSigner(), rules: rules, infoRules: infoRules, formatQualities: try parseFormatQualities(), autoQuality: try autoQualityDefaults(), presetsText: presetsText,
            infoPresetsText: infoEntries.joined(separator: "\n"), sourceRewrite: try sourceRewrite(), sourceCipher: try sourceCipher(),
            memory: memory
        )
    }

    /// The server's answers to what URLs leave unsaid, as option segments before the URL's own.
    var serverDefaultSegments: [String] {
        let separator = String(argumentsSeparator)
        var segments: [String] = []
        if !autoRotate { segments.append("ar" + separator + "0") }
        if !stripMetadata { segments.append("sm" + separator + "0") }
        if !keepCopyright { segments.append("kcr" + separator + "0") }
        if !stripColorProfile { segments.append("scp" + separator + "0") }
        if enforceThumbnail { segments.append("eth" + separator + "1") }
        if returnAttachment { segments.append("att" + separator + "1") }
        return segments
    }

    /// The memory set aside from the budget before any request: the process at start
    /// (``processMemory``) and the memory tiers at their full size.
    var reservedMemory: Int {
        [processMemory, responseCacheBytes, imageCacheBytes].reduce(0) { $0.addingReportingOverflow($1).overflow ? .max : $0 + $1 }
    }
}
