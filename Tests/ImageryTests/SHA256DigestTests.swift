import Crypto
import Foundation
@testable import Imagery
import Testing

/// The core's SHA-256 against FIPS 180-4's examples and against swift-crypto (BoringSSL's), an
/// independent implementation, over every length around the padding's block boundaries.
@Suite("SHA256Digest")
struct SHA256DigestTests {
    @Test("The standard's examples: empty, abc, two blocks, a million a's")
    func standardVectors() {
        let vectors: [(String, String)] = [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
            (String(repeating: "a", count: 1_000_000), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
        ]
        for (message, digest) in vectors {
            #expect(Hex.encode(SHA256Digest.hash(message.utf8)) == digest, "\(message.prefix(16))… (\(message.utf8.count) bytes)")
        }
    }

    @Test("swift-crypto's digest, for every length from 0 to 300 bytes and for credential headers")
    func matchesSwiftCrypto() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...300 {
            let bytes = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            #expect(SHA256Digest.hash(bytes) == Array(SHA256.hash(data: bytes)), "\(length) bytes")
        }
        let headers = "authorization=Bearer eyJhbGciOiJIUzI1NiJ9.e30.ZRrHA1JJJW8opsbCGfG_HACGpVUMN_a9IV7pAx_Zmeo\ncookie=session=ü✓"
        #expect(SHA256Digest.hash(headers.utf8) == Array(SHA256.hash(data: Data(headers.utf8))))
    }
}
