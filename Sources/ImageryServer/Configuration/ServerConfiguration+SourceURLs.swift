import Crypto
import Imagery
import ImageryImgproxy

extension ServerConfiguration {
    /// How a URL's source is read: imgproxy's source URL settings.
    package struct SourceURLs: Sendable {
        /// `--base-url`: put in front of every source that does not start with it, after the
        /// replacements. Default: none.
        package var baseURL: String?
        /// `--url-replacements`: `pattern=replacement` pairs separated by `;`. Default: none.
        package var urlReplacements: String?
        /// `--base64-url-includes-filename`: the last segment of a base64 or encrypted source is
        /// a file name, dropped. Default: `false`.
        package var base64URLIncludesFilename = false
        /// `--source-url-encryption-key`: the AES key of `/enc/` sources, hex (16, 24 or 32
        /// bytes). A secret. Default: none, `/enc/` URLs refused.
        package var encryptionKeyHex: String?

        package init() {}
    }

    /// `--url-replacements` and `--base-url`, parsed.
    func sourceRewrite() throws(ServerSetupError) -> SourceRewrite {
        do throws(SettingError.Reason) {
            return try SourceRewrite(replacements: sourceURLs.urlReplacements, baseURL: sourceURLs.baseURL)
        } catch {
            throw .setting("url-replacements", error.description)
        }
    }

    /// The cipher of `/enc/` sources; `nil` without a key.
    func sourceCipher() throws(ServerSetupError) -> ImgproxySourceCipher? {
        guard let key = sourceURLs.encryptionKeyHex else { return nil }
        do throws(ImgproxyError) {
            return try ImgproxySourceCipher(keyHex: key)
        } catch {
            throw .setting("source-url-encryption-key", error.message)
        }
    }

    /// Why `key` cannot be a source URL encryption key, or `nil`; never repeats the key.
    static func encryptionKeyProblem(_ key: String) -> String? {
        guard !key.isEmpty else { return nil }
        guard let bytes = Hex.decode(key) else { return "must be hex (32, 48 or 64 hex digits)" }
        return [16, 24, 32].contains(bytes.count) ? nil : "must be 16, 24 or 32 bytes (32, 48 or 64 hex digits), not \(bytes.count)"
    }

    /// What the settings digest takes of the encryption key: a digest of it, which changes with
    /// the key (a key change changes which source an `/enc/` URL reads) and reveals nothing.
    var encryptionKeyIdentity: String {
        guard let key = sourceURLs.encryptionKeyHex else { return "none" }
        return Hex.encode(SHA256.hash(data: Array(("imagery-server source key " + key).utf8)).prefix(8))
    }
}
