import Crypto
import Foundation
import Imagery

/// imgproxy's URL signature: base64url, unpadded, of HMAC-SHA256(key, salt ‖ path), where
/// `path` is everything after the signature segment, leading `/` included. Key and salt are
/// given in hex.
struct URLSignature: Sendable {
    private let key: SymmetricKey
    private let salt: [UInt8]

    /// `nil` when either is not valid hex or the key is empty.
    init?(keyHex: String, saltHex: String) {
        guard let key = Base64URL.bytes(hex: keyHex), !key.isEmpty, let salt = Base64URL.bytes(hex: saltHex) else { return nil }
        self.key = SymmetricKey(data: key)
        self.salt = salt
    }

    /// The signature of `path` (`/rs:fit:300:300/plain/…`).
    func sign(_ path: String) -> String {
        var hmac = HMAC<SHA256>(key: key)
        hmac.update(data: salt)
        hmac.update(data: Array(path.utf8))
        return Base64URL.encode(hmac.finalize())
    }

    /// Compares in constant time, so response timing does not leak how much of a guess was right.
    func isValid(_ signature: String, for path: String) -> Bool {
        guard let given = Base64URL.decode(signature) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(given, authenticating: salt + Array(path.utf8), using: key)
    }
}
