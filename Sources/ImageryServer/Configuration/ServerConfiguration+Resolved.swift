import Imagery
import ImageryImgproxy

/// What the settings say once parsed and checked into typed values: made once at start, by
/// ``ServerConfiguration/resolve()``, and read by every part of the server, so that no setting
/// is parsed twice and no file is read twice.
package struct ResolvedSettings: Sendable {
    /// `nil` without a key: signatures are not checked.
    let signer: ImgproxySigner?
    /// What processing URLs may say: presets, allow lists, separators.
    let rules: ImgproxyOptionRules
    /// What `/info` URLs may say.
    let infoRules: ImgproxyOptionRules
    /// `--format-quality`, by format.
    let formatQualities: [ImageFormat: Int]
    /// The presets, as read from `--presets` and `--presets-path`, for the settings digest.
    let presetsText: String
}

extension ServerConfiguration {
    /// Parses and checks every setting that needs more than its own value into
    /// ``resolved``: the signer, the presets (a presets file is read here, once), the option
    /// rules and the format qualities. Images the settings name (the watermark) are read by
    /// ``loadImages()``.
    ///
    /// - Throws: ``ServerSetupError`` naming the setting.
    package mutating func resolve() throws(ServerSetupError) {
        let presetsText = try readPresets()
        var rules: ImgproxyOptionRules
        do throws(ImgproxyError) {
            rules = try ImgproxyOptionRules(presets: presetsText)
        } catch {
            throw .presets(error.message)
        }
        rules.onlyPresets = onlyPresets
        rules.allowedOptions = allowedProcessingOptions.isEmpty ? nil : Set(allowedProcessingOptions)
        rules.allowsSecurityOptions = allowSecurityOptions
        var infoRules = ImgproxyOptionRules()
        infoRules.allowsSecurityOptions = allowSecurityOptions
        resolved = ResolvedSettings(
            signer: try makeSigner(), rules: rules, infoRules: infoRules, formatQualities: try parseFormatQualities(), presetsText: presetsText
        )
    }

    /// ``resolved``, resolving a copy when this configuration was made without
    /// ``resolve()`` (a test's).
    func resolvedSettings() throws(ServerSetupError) -> ResolvedSettings {
        if let resolved { return resolved }
        var copy = self
        try copy.resolve()
        return copy.resolved!
    }
}
