import Crypto
import Foundation
import Imagery
import _CryptoExtras

/// imgproxy's encrypted source URLs (`/{signature}/{options}/enc/{encrypted}`): the source
/// URL padded with PKCS #7, encrypted with AES-CBC under a 16-, 24- or 32-byte key (AES-128,
/// -192 or -256), the 16-byte IV written before the ciphertext, and the whole in base64url
/// without padding. The server decrypts with the same key (`IMGPROXY_SOURCE_URL_ENCRYPTION_KEY`),
/// so a URL reveals neither the origin nor the path it reads.
///
/// ```swift
/// let cipher = try ImgproxySourceCipher(keyHex: "1eb5b0e971ad7f45324c1bb15c947cb207c43152fa5c6c7f35c4f36e0c18e0f1")
/// let encrypted = cipher.encrypt("http://example.com/images/curiosity.jpg")
/// try cipher.decrypt(encrypted)   // "http://example.com/images/curiosity.jpg"
/// ```
///
/// ``encrypt(_:)`` derives the IV from the URL (an HMAC under a key derived from yours), so one
/// source always gives the same URL and caches stay warm, while two sources never share an IV;
/// ``encrypt(_:iv:)`` takes one you chose. Sign encrypted URLs too (``ImgproxySigner``):
/// `imagery-server` checks the signature before it decrypts anything, so nobody can probe the
/// padding with forged URLs; without a key, every decryption failure gets the same answer.
public struct ImgproxySourceCipher: Sendable {
    private let key: SymmetricKey
    /// Keys the IVs ``encrypt(_:)`` derives: a key of its own, so that the encryption key is
    /// never also used as an HMAC key.
    private let ivKey: SymmetricKey

    /// A cipher with `key`: 16, 24 or 32 bytes.
    ///
    /// - Throws: ``ImgproxyError/Kind/invalidPath`` for any other length.
    public init(key: [UInt8]) throws(ImgproxyError) {
        guard [16, 24, 32].contains(key.count) else {
            throw ImgproxyError(.invalidPath, "the source URL encryption key must be 16, 24 or 32 bytes (32, 48 or 64 hex digits)")
        }
        self.key = SymmetricKey(data: key)
        var derivation = HMAC<SHA256>(key: SymmetricKey(data: key))
        derivation.update(data: Array("imgproxy source URL IV".utf8))
        self.ivKey = SymmetricKey(data: Array(derivation.finalize()))
    }

    /// A cipher with a key in hex, as `IMGPROXY_SOURCE_URL_ENCRYPTION_KEY` is written.
    ///
    /// - Throws: ``ImgproxyError/Kind/invalidPath`` when it is not hex of 16, 24 or 32 bytes.
    public init(keyHex: String) throws(ImgproxyError) {
        guard let key = Hex.decode(keyHex) else { throw ImgproxyError(.invalidPath, "the source URL encryption key is not hex") }
        try self.init(key: key)
    }

    /// `source` encrypted with an IV derived from it: the same source always gives the same
    /// text, which keeps its URLs cacheable.
    ///
    /// ```swift
    /// let path = "/_/w:300/enc/" + cipher.encrypt("https://example.com/a.jpg")
    /// ```
    public func encrypt(_ source: String) -> String {
        encrypt(source, iv: Array(HMAC<SHA256>.authenticationCode(for: Array(source.utf8), using: ivKey).prefix(16)))
    }

    /// `source` encrypted with `iv` (16 bytes), written as imgproxy reads it: base64url
    /// without padding of the IV and the ciphertext.
    ///
    /// ```swift
    /// let iv = (0..<16).map { _ in UInt8.random(in: 0...255) }
    /// let encrypted = cipher.encrypt("https://example.com/a.jpg", iv: iv)
    /// ```
    ///
    /// - Precondition: `iv` is 16 bytes.
    public func encrypt(_ source: String, iv: [UInt8]) -> String {
        precondition(iv.count == 16, "ImgproxySourceCipher.encrypt(_:iv:): an AES-CBC IV is 16 bytes, not \(iv.count)")
        do {
            let ciphertext = try AES._CBC.encrypt(Array(source.utf8), using: key, iv: AES._CBC.IV(ivBytes: iv))
            return Base64URL.encode(iv + Array(ciphertext))
        } catch {
            // The key's length is checked at init and the IV's above: nothing else can fail.
            preconditionFailure("AES-CBC encryption failed: \(error)")
        }
    }

    /// The source URL in `encrypted` (base64url, with or without padding, of the IV and the
    /// ciphertext).
    ///
    /// - Throws: ``ImgproxyError/Kind/invalidPath``, with one line whatever went wrong (not
    ///   base64url, too short, bad padding, not UTF-8), so that the answer says nothing about
    ///   the padding.
    public func decrypt(_ encrypted: some StringProtocol) throws(ImgproxyError) -> String {
        let failure = ImgproxyError(.invalidPath, "source: cannot be decrypted")
        guard let bytes = Base64URL.decode(encrypted), bytes.count >= 32, bytes.count % 16 == 0,
              let iv = try? AES._CBC.IV(ivBytes: bytes.prefix(16)),
              let plain = try? AES._CBC.decrypt(bytes.dropFirst(16), using: key, iv: iv),
              let source = String(validating: Array(plain), as: UTF8.self), !source.isEmpty
        else { throw failure }
        return source
    }
}
