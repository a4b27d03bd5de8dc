import Crypto
import Foundation
import Imagery
@testable import ImageryHTTPClient
import Testing

/// The S3 Encryption Client's v2 envelope, read from metadata, and the body opened with its
/// data key. Pure: no KMS and no store (S3Tests runs the whole path against moto). Kept here,
/// beside those, since this target has swift-crypto to seal with.
@Suite("S3ClientSideDecryption: the v2 envelope and AES-GCM open")
struct S3ClientSideDecryptionTests {
    static let iv = [UInt8](repeating: 7, count: 12)
    static let v2: [String: String] = [
        "x-amz-key-v2": Data("encrypted data key".utf8).base64EncodedString(), "x-amz-wrap-alg": "kms+context",
        "x-amz-cek-alg": "AES/GCM/NoPadding", "x-amz-iv": Data(iv).base64EncodedString(),
        "x-amz-matdesc": #"{"aws:x-amz-cek-alg":"AES/GCM/NoPadding","team":"photos"}"#, "x-amz-tag-len": "128",
    ]

    @Test("A v2 envelope gives the encrypted key, the IV and the whole context; an object without one is nil")
    func envelope() throws {
        let envelope = try #require(try S3ClientSideDecryption.Envelope.read(from: Self.v2))
        #expect(envelope.encryptedKey == Data("encrypted data key".utf8) && envelope.iv == Self.iv)
        #expect(envelope.context == ["aws:x-amz-cek-alg": "AES/GCM/NoPadding", "team": "photos"])
        #expect(try S3ClientSideDecryption.Envelope.read(from: ["imagery-sha256": "ab"]) == nil)
    }

    @Test("Other formats are refused naming what was found; a broken part is malformed, naming it", arguments: [
        (["x-amz-key-v2": nil, "x-amz-key": "a2V5", "x-amz-wrap-alg": "kms"], "the v1 format (x-amz-key, x-amz-wrap-alg kms)"),
        (["x-amz-key-v2": nil, "x-amz-key": "a2V5", "x-amz-wrap-alg": nil], "the v1 format (x-amz-key)"),
        (["x-amz-wrap-alg": "kms"], "x-amz-wrap-alg kms (KMS without an encryption context"),
        (["x-amz-wrap-alg": "AES/GCM"], "x-amz-wrap-alg AES/GCM is not decrypted"),
        (["x-amz-wrap-alg": "RSA-OAEP-SHA1"], "x-amz-wrap-alg RSA-OAEP-SHA1 is not decrypted"),
        (["x-amz-cek-alg": "AES/CBC/PKCS5Padding"], "x-amz-cek-alg AES/CBC/PKCS5Padding is not decrypted"),
        (["x-amz-tag-len": "96"], "x-amz-tag-len 96"),
        (["x-amz-iv": "AAAA"], "malformed: x-amz-iv is not 12 bytes"),
        (["x-amz-matdesc": "{}"], "malformed: x-amz-matdesc's aws:x-amz-cek-alg"),
        (["x-amz-matdesc": "kms"], "malformed: x-amz-matdesc is not a JSON object"),
        (["x-amz-wrap-alg": nil], "malformed: no x-amz-wrap-alg"),
    ] as [([String: String?], String)])
    func refused(changes: [String: String?], expected: String) {
        var metadata = Self.v2
        for (name, value) in changes { metadata[name] = value }
        #expect(throws: S3ClientSideDecryption.Failure.self) { try S3ClientSideDecryption.Envelope.read(from: metadata) }
        do {
            _ = try S3ClientSideDecryption.Envelope.read(from: metadata)
        } catch {
            #expect(error.description.contains(expected), "\(error)")
            #expect(error.loadingError(source: "s3://b/k") == .decryptionFailed(source: "s3://b/k", detail: error.description))
        }
    }

    @Test("A sealed body opens with its key; a flipped bit of the body or the tag, or another key, is notAuthentic")
    func open() throws {
        let key = SymmetricKey(size: .bits256), plaintext = Array("an image, say".utf8)
        let box = try AES.GCM.seal(plaintext, using: key, nonce: AES.GCM.Nonce(data: Self.iv))
        let sealed = Array(box.ciphertext) + Array(box.tag)
        #expect(try S3ClientSideDecryption.open(sealed, iv: Self.iv, key: key) == plaintext)
        for index in [0, sealed.count - 1] {
            var altered = sealed
            altered[index] ^= 1
            #expect(throws: S3ClientSideDecryption.Failure.notAuthentic) { try S3ClientSideDecryption.open(altered, iv: Self.iv, key: key) }
        }
        #expect(throws: S3ClientSideDecryption.Failure.notAuthentic) {
            try S3ClientSideDecryption.open(sealed, iv: Self.iv, key: SymmetricKey(size: .bits256))
        }
    }

    @Test("KMS's timeouts and unreachability are the source's own (retried where a connection is); its refusal a credential not had")
    func keyServiceFailures() {
        let source = "s3://b/k"
        #expect(S3ClientSideDecryption.Failure.keyService(.timedOut).loadingError(source: source) == .timedOut(source: source))
        #expect(S3ClientSideDecryption.Failure.keyService(.connection("refused")).loadingError(source: source).isTransient)
        let refused = S3ClientSideDecryption.Failure.keyService(.refused(status: 400, type: "InvalidCiphertextException", message: ""))
        #expect(refused.loadingError(source: source) == .authorizationFailed(source: source, detail: "KMS Decrypt of its data key answered 400 InvalidCiphertextException"))
    }
}
