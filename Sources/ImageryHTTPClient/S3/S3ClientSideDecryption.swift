import AsyncHTTPClient
import Crypto
import Foundation
import Imagery
import NIOCore

/// Reads objects the AWS S3 Encryption Client wrote in its v2 format with KMS (imgproxy's
/// `IMGPROXY_S3_USE_DECRYPTION_CLIENT`), the format the current AWS SDKs write:
///
/// ```
/// x-amz-meta-x-amz-key-v2    base64(KMS-encrypted data key)
/// x-amz-meta-x-amz-wrap-alg  kms+context
/// x-amz-meta-x-amz-cek-alg   AES/GCM/NoPadding
/// x-amz-meta-x-amz-iv        base64(12-byte IV)
/// x-amz-meta-x-amz-matdesc   {"aws:x-amz-cek-alg":"AES/GCM/NoPadding", …}   (KMS's encryption context)
/// x-amz-meta-x-amz-tag-len   128
/// body                       AES-256-GCM ciphertext ‖ 16-byte tag
/// ```
///
/// The data key comes from KMS `Decrypt` once per object, with the credentials S3 is signed
/// with; the body is opened only whole, so a tampered body or tag is an error and never part of
/// an image. The v1 formats (`x-amz-key`, AES/CBC, `kms` without context) and the other wrap
/// algorithms (a raw AES key, RSA) are refused by name: they need keys this server does not hold
/// or a cipher that cannot tell a tampered body. An object without `x-amz-key-v2` or
/// `x-amz-key` is not client-side encrypted, and is read as stored, as the SDK reads it.
///
/// ```swift
/// var s3 = S3Configuration(credentials: credentials, region: "eu-west-1")
/// s3.decryption = S3ClientSideDecryption(keyService: URL(string: "https://kms.eu-west-1.amazonaws.com")!, region: "eu-west-1")
/// ```
package struct S3ClientSideDecryption: Sendable {
    /// KMS's endpoint (``AWSJSONService/keyManagement``'s, as the environment names it).
    package var keyService: URL
    /// The region KMS calls are signed for.
    package var region: String
    /// How long one KMS `Decrypt` may take. Default: 30 seconds, as the other AWS calls.
    package var timeout: Duration

    package init(keyService: URL, region: String, timeout: Duration = .seconds(30)) {
        self.keyService = keyService
        self.region = region
        self.timeout = timeout
    }

    /// Why an object could not be decrypted. None names the data key or a credential.
    package enum Failure: Error, Equatable, CustomStringConvertible {
        /// A client-side format or algorithm this server does not decrypt: what was found.
        case unsupported(String)
        /// Encryption metadata that is missing a part or does not parse: which.
        case malformed(String)
        /// KMS would not decrypt the data key, or could not be asked.
        case keyService(AWSServiceCall.Failure)
        /// The body or its tag was altered, or the data key is not the one it was sealed with.
        case notAuthentic

        package var description: String {
            switch self {
            case let .unsupported(found): "\(found) is not decrypted (only the v2 format, kms+context with AES/GCM/NoPadding, is)"
            case let .malformed(detail): "its encryption metadata is malformed: \(detail)"
            case let .keyService(failure): "KMS Decrypt of its data key \(failure)"
            case .notAuthentic: "its body fails AES-GCM authentication (altered, or sealed with another key)"
            }
        }

        /// The loading error the pipeline reports: KMS's timeouts and unreachability as the
        /// source's own (504, 502 and retried), its refusal as a credential not had, and
        /// everything about the object itself as ``DataLoadingError/decryptionFailed(source:detail:)``.
        package func loadingError(source: String) -> DataLoadingError {
            switch self {
            case .keyService(.timedOut): .timedOut(source: source)
            case let .keyService(.connection(detail)): .connectionFailed(source: source, detail: "KMS could not be reached: \(detail)")
            case .keyService: .authorizationFailed(source: source, detail: description)
            case .unsupported, .malformed, .notAuthentic: .decryptionFailed(source: source, detail: description)
            }
        }
    }

    /// What the encryption client stored beside an object's body to open it.
    package struct Envelope: Sendable, Equatable {
        /// The data key as KMS encrypted it.
        package var encryptedKey: Data
        package var iv: [UInt8]
        /// The material description, which is KMS's encryption context for the data key.
        package var context: [String: String]

        /// The envelope in `metadata` (`x-amz-meta-*` names without the prefix, lowercased);
        /// `nil` for an object that is not client-side encrypted.
        ///
        /// - Throws: ``Failure/unsupported(_:)`` naming the format or algorithm found, or
        ///   ``Failure/malformed(_:)`` naming the part that is wrong.
        package static func read(from metadata: [String: String]) throws(Failure) -> Envelope? {
            // Whoever can write to the bucket writes these values: an error repeats 40 characters
            // of one at most.
            let full = metadata
            let metadata = metadata.mapValues { String($0.prefix(40)) }
            guard let key = full["x-amz-key-v2"] else {
                if metadata["x-amz-key"] != nil {
                    throw .unsupported("the v1 format (x-amz-key" + (metadata["x-amz-wrap-alg"].map { ", x-amz-wrap-alg \($0)" } ?? "") + ")")
                }
                return nil
            }
            let wrap = metadata["x-amz-wrap-alg"] ?? ""
            guard wrap == "kms+context" else {
                if wrap.isEmpty { throw .malformed("no x-amz-wrap-alg") }
                throw .unsupported("x-amz-wrap-alg \(wrap)" + (wrap == "kms" ? " (KMS without an encryption context, as v1 wrote)" : ""))
            }
            let cipher = metadata["x-amz-cek-alg"] ?? ""
            guard cipher == contentCipher else {
                throw cipher.isEmpty ? .malformed("no x-amz-cek-alg") : .unsupported("x-amz-cek-alg \(cipher)")
            }
            if let tagLength = metadata["x-amz-tag-len"], tagLength != "128" { throw .unsupported("x-amz-tag-len \(tagLength)") }
            guard let encryptedKey = Data(base64Encoded: key), !encryptedKey.isEmpty else { throw .malformed("x-amz-key-v2 is not base64") }
            guard let iv = full["x-amz-iv"].flatMap({ Data(base64Encoded: $0) }), iv.count == 12 else {
                throw .malformed("x-amz-iv is not 12 bytes in base64")
            }
            guard let description = full["x-amz-matdesc"],
                  let context = try? JSONDecoder().decode([String: String].self, from: Data(description.utf8))
            else { throw .malformed("x-amz-matdesc is not a JSON object of strings") }
            // As the SDK checks: the context KMS binds the key to names the cipher the metadata names.
            guard context["aws:x-amz-cek-alg"] == cipher else { throw .malformed("x-amz-matdesc's aws:x-amz-cek-alg is not \(cipher)") }
            return Envelope(encryptedKey: encryptedKey, iv: Array(iv), context: context)
        }
    }

    /// The content cipher of the v2 format.
    static let contentCipher = "AES/GCM/NoPadding"

    /// `body` (ciphertext and tag) opened with the data key KMS decrypts from `envelope`, asked
    /// on `pooled` and signed with `credentials`. The key lives only in this call.
    package func decrypt(
        _ body: ByteBuffer, envelope: Envelope, credentials: AWSCredentials, on pooled: HTTPClient?
    ) async throws(Failure) -> [UInt8] {
        guard body.readableBytes >= 16 else { throw .notAuthentic }   // shorter than its tag
        let dataKey: Data
        do {
            dataKey = try await AWSJSONService.keyManagement.decrypt(
                envelope.encryptedKey, context: envelope.context, region: region, endpoint: keyService, credentials: credentials,
                within: timeout, on: pooled
            )
        } catch {
            throw .keyService(error)
        }
        guard [16, 24, 32].contains(dataKey.count) else { throw .malformed("KMS answered a data key of \(dataKey.count) bytes") }
        return try Self.open(body.readableBytesView, iv: envelope.iv, key: SymmetricKey(data: dataKey))
    }

    /// AES-GCM's open of `sealed` (ciphertext, then the 16-byte tag), with no associated data,
    /// as the v2 format seals.
    static func open(_ sealed: some Collection<UInt8>, iv: [UInt8], key: SymmetricKey) throws(Failure) -> [UInt8] {
        let ciphertext = sealed.dropLast(16), tag = sealed.suffix(16)
        do {
            let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: iv), ciphertext: Array(ciphertext), tag: Array(tag))
            return Array(try AES.GCM.open(box, using: key))
        } catch {
            throw .notAuthentic
        }
    }
}
