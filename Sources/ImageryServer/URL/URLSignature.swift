import Crypto
import Foundation

/// imgproxy's URL signature: base64url, unpadded, of HMAC-SHA256(key, salt ‖ path), where
/// `path` is everything after the signature segment, leading `/` included. Key and salt are
/// given in hex.
struct URLSignature: Sendable {
    private let key: SymmetricKey
    private let salt: [UInt8]

    /// `nil` when either is not valid hex or the key is empty.
    init?(keyHex: String, saltHex: String) {
        guard let key = Self.bytes(hex: keyHex), !key.isEmpty, let salt = Self.bytes(hex: saltHex) else { return nil }
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

    static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
