import Crypto
import Imagery

/// imgproxy's URL signature: HMAC-SHA256(key, salt ‖ path), where `path` is everything after
/// the signature segment (its leading `/` included), truncated to ``signatureSize`` bytes and
/// written in base64url without padding. Several key/salt pairs verify a URL if any of them
/// matches, as imgproxy allows for key rotation; URLs are signed with the first.
///
/// ```swift
/// let signer = try ImgproxySigner(keysHex: "736563726574", saltsHex: "68656C6C6F")
/// let path = "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"
/// signer.sign(path)   // "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8", imgproxy's documented example
/// ```
public struct ImgproxySigner: Sendable {
    /// One key and its salt.
    public struct KeyPair: Sendable, Hashable {
        /// The HMAC key; never empty.
        public var key: [UInt8]
        /// Prepended to the signed path; may be empty.
        public var salt: [UInt8]

        /// A pair from raw bytes.
        public init(key: [UInt8], salt: [UInt8]) {
            self.key = key
            self.salt = salt
        }
    }

    /// The pairs, in order: the first signs, any verifies.
    public let pairs: [KeyPair]
    /// How many bytes of the HMAC the signature keeps, 1–32. Default: 32.
    public let signatureSize: Int
    /// Signatures accepted without a check, as imgproxy's `TRUSTED_SIGNATURES`.
    public let trusted: Set<String>
    private let keys: [(key: SymmetricKey, salt: [UInt8])]

    /// A signer from raw pairs.
    ///
    /// - Throws: ``ImgproxyError`` when there is no pair, a key is empty, or `signatureSize`
    ///   is outside 1–32.
    public init(pairs: [KeyPair], signatureSize: Int = 32, trusted: Set<String> = []) throws(ImgproxyError) {
        guard !pairs.isEmpty, pairs.allSatisfy({ !$0.key.isEmpty }) else {
            throw ImgproxyError(.invalidSignature, "a key must not be empty")
        }
        guard (1...32).contains(signatureSize) else { throw ImgproxyError(.invalidSignature, "the signature size must be 1 to 32 bytes") }
        self.pairs = pairs
        self.signatureSize = signatureSize
        self.trusted = trusted
        self.keys = pairs.map { (SymmetricKey(data: $0.key), $0.salt) }
    }

    /// A signer from hex keys and salts, comma-separated for several pairs (`"k1,k2"`,
    /// `"s1,s2"`), as imgproxy's `IMGPROXY_KEY` and `IMGPROXY_SALT` are written.
    ///
    /// - Throws: ``ImgproxyError`` when a part is not hex, a key is empty, or the numbers of
    ///   keys and salts differ.
    public init(keysHex: String, saltsHex: String, signatureSize: Int = 32, trusted: Set<String> = []) throws(ImgproxyError) {
        let keys = keysHex.split(separator: ",", omittingEmptySubsequences: false)
        let salts = saltsHex.split(separator: ",", omittingEmptySubsequences: false)
        guard keys.count == salts.count else {
            throw ImgproxyError(.invalidSignature, "\(keys.count) keys and \(salts.count) salts: give one salt per key")
        }
        var pairs: [KeyPair] = []
        for (key, salt) in zip(keys, salts) {
            guard let keyBytes = Hex.decode(key), let saltBytes = Hex.decode(salt) else {
                throw ImgproxyError(.invalidSignature, "keys and salts must be hex")
            }
            pairs.append(KeyPair(key: keyBytes, salt: saltBytes))
        }
        try self.init(pairs: pairs, signatureSize: signatureSize, trusted: trusted)
    }

    /// The signature of `path` (`/rs:fit:300:300/plain/…`) with the first pair.
    public func sign(_ path: String) -> String {
        Base64URL.encode(mac(path, with: keys[0]).prefix(signatureSize))
    }

    /// Whether `signature` signs `path` with any pair (or is trusted). The comparison takes the
    /// same time however much of a guess is right.
    public func isValid(_ signature: String, for path: String) -> Bool {
        if trusted.contains(signature) { return true }
        guard let given = Base64URL.decode(signature), given.count == signatureSize else { return false }
        var matched = false
        for pair in keys {
            let expected = mac(path, with: pair).prefix(signatureSize)
            var difference: UInt8 = 0
            for (a, b) in zip(given, expected) { difference |= a ^ b }
            matched = matched || difference == 0
        }
        return matched
    }

    private func mac(_ path: String, with pair: (key: SymmetricKey, salt: [UInt8])) -> [UInt8] {
        var hmac = HMAC<SHA256>(key: pair.key)
        hmac.update(data: pair.salt)
        hmac.update(data: Array(path.utf8))
        return Array(hmac.finalize())
    }
}
