import Foundation
import Imagery
import ImageryHTTPClient
@testable import ImageryServer
import ImageryTestSupport
import Testing

/// imgproxy's `IMGPROXY_S3_USE_DECRYPTION_CLIENT` against moto's KMS and S3: objects sealed in
/// Python exactly as the AWS S3 Encryption Client's v2 format seals them (a KMS data key under
/// the material description as encryption context, AES-256-GCM with the tag after the body).
extension S3Tests {
    /// The material description, with a context of the writer's own beside the cipher's, so a
    /// Decrypt that drops or changes any of it fails in KMS.
    static let materialDescription = #"{"aws:x-amz-cek-alg":"AES/GCM/NoPadding","department":"photos"}"#

    @Test("With IMGPROXY_S3_USE_DECRYPTION_CLIENT a v2 object (kms+context) is served decrypted, its key from KMS Decrypt signed with S3's credentials (an assumed role's); tampered bodies and tags, v1 and raw-key objects are 422 by name; plain objects are served; without it, the ciphertext is 415")
    func clientSideDecryption() async throws {
        let moto = try await MotoServer.start(recording: true)
        defer { moto.process.kill() }
        let rocket = try MotoServer.file(Fixtures.rocket)
        defer { try? FileManager.default.removeItem(atPath: rocket) }
        let hasCipher = try await moto.python("""
            import importlib.util
            print(importlib.util.find_spec("cryptography") is not None)
            """)
        try #require(hasCipher == "True", Comment(rawValue: CIRun.missing("Python's cryptography (moto[server] brings it)")))
        // Given objects sealed as the v2 client seals them, and the same image in the clear
        _ = try await moto.python("""
            import base64, json, os
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM
            kms = boto3.client("kms", endpoint_url="\(moto.endpoint)", region_name="us-east-1",
                               aws_access_key_id="testing", aws_secret_access_key="testing")
            key_id = kms.create_key()["KeyMetadata"]["KeyId"]
            description = '\(Self.materialDescription)'
            context = json.loads(description)
            image = open("\(rocket)", "rb").read()
            data_key = kms.generate_data_key(KeyId=key_id, KeySpec="AES_256", EncryptionContext=context)
            iv = os.urandom(12)
            sealed = AESGCM(data_key["Plaintext"]).encrypt(iv, image, None)   # ciphertext, then the 16-byte tag
            v2 = {
                "x-amz-key-v2": base64.b64encode(data_key["CiphertextBlob"]).decode(), "x-amz-wrap-alg": "kms+context",
                "x-amz-cek-alg": "AES/GCM/NoPadding", "x-amz-iv": base64.b64encode(iv).decode(), "x-amz-matdesc": description,
                "x-amz-tag-len": "128", "x-amz-unencrypted-content-length": str(len(image)),
            }
            def altered(at):
                body = bytearray(sealed)
                body[at] ^= 0x01
                return bytes(body)
            v1 = {k: v for k, v in v2.items() if k != "x-amz-key-v2"}
            v1.update({"x-amz-key": v2["x-amz-key-v2"], "x-amz-wrap-alg": "kms", "x-amz-cek-alg": "AES/CBC/PKCS5Padding"})
            s3.create_bucket(Bucket="sealed")
            for key, body, metadata in [
                ("rocket.jpg", sealed, v2), ("tampered-body.jpg", altered(100), v2), ("tampered-tag.jpg", altered(len(sealed) - 1), v2),
                ("v1.jpg", sealed, v1), ("raw-key.jpg", sealed, dict(v2, **{"x-amz-wrap-alg": "AES/GCM"})), ("plain.jpg", image, {}),
            ]:
                s3.put_object(Bucket="sealed", Key=key, Body=body, Metadata=metadata, ContentType="image/jpeg")
            """)

        // When the server reads them with the setting on, as imgproxy's environment names it, S3
        // signed with an assumed role's credentials
        let environment = [
            "IMGPROXY_USE_S3": "true", "IMGPROXY_S3_ENDPOINT": moto.endpoint, "IMGPROXY_S3_USE_DECRYPTION_CLIENT": "true",
            "IMGPROXY_S3_ASSUME_ROLE_ARN": "arn:aws:iam::123456789012:role/images",
            "AWS_ACCESS_KEY_ID": "AKIAIMAGERYSOURCES", "AWS_SECRET_ACCESS_KEY": "imagery-s3cr3t",
            "AWS_ENDPOINT_URL_KMS": moto.endpoint, "AWS_ENDPOINT_URL_STS": moto.endpoint,
        ]
        let loaded = try await ServerSettings.load(arguments: ["imagery-server"], environment: environment).configuration
        #expect(loaded.s3UsesDecryptionClient)
        let server = try await ServerHarness.start {
            $0 = loaded
            $0.host = "127.0.0.1"
            $0.port = 0
        }
        defer { server.cancel() }
        func get(_ key: String) async throws -> ServerHarness.Reply {
            try await server.get("/unsafe/w:100/plain/s3://sealed/" + key)
        }

        // Then the sealed object is the rocket, and the plain one beside it too
        let served = try await get("rocket.jpg")
        #expect(served.status == 200, "\(served.text)")
        #expect(try ServerHarness.image(served).height == 67)
        let plain = try await get("plain.jpg")
        #expect(try plain.status == 200 && ServerHarness.image(plain).height == 67)
        // And an altered byte of the body or of the tag is an error, not an image
        for key in ["tampered-body.jpg", "tampered-tag.jpg"] {
            let tampered = try await get(key)
            #expect(tampered.status == 422, "\(key): \(tampered.status)")
            #expect(tampered.text.contains("cannot be decrypted") && tampered.text.contains("fails AES-GCM authentication"), "\(key): \(tampered.text)")
        }
        // And the formats not decrypted are refused, naming what was found
        let v1 = try await get("v1.jpg")
        #expect(v1.status == 422 && v1.text.contains("the v1 format (x-amz-key, x-amz-wrap-alg kms)"), "\(v1.text)")
        let rawKey = try await get("raw-key.jpg")
        #expect(rawKey.status == 422 && rawKey.text.contains("x-amz-wrap-alg AES/GCM"), "\(rawKey.text)")

        // And KMS was asked once per v2 object, with the whole context, signed for kms with the
        // role's temporary key, the one the object's GET was signed with
        let recorded = moto.recordedEntries()
        let get = try #require(recorded.last { $0.method == "GET" && $0.path == "/sealed/rocket.jpg" })
        let roleKey = try #require((get.header("Authorization") ?? "").firstMatch(of: /Credential=(ASIA[A-Z0-9]+)\//)?.1)
        let decrypts = recorded.filter { $0.header("X-Amz-Target") == "TrentService.Decrypt" }
        #expect(decrypts.count == 3, "\(decrypts.map(\.body))")
        for call in decrypts {
            let authorization = call.header("Authorization") ?? ""
            #expect(authorization.contains("Credential=\(roleKey)/") && authorization.contains("/us-east-1/kms/aws4_request"), "\(authorization)")
            #expect(call.header("X-Amz-Security-Token")?.isEmpty == false)
            let input = try JSONSerialization.jsonObject(with: Data(call.body.utf8)) as? [String: Any]
            #expect(input?["EncryptionContext"] as? [String: String] == ["aws:x-amz-cek-alg": "AES/GCM/NoPadding", "department": "photos"])
        }

        // And with S3's own key (no role), KMS's Decrypt is signed as botocore signs it with
        // that key's secret (the role's secret above is moto's, which the test never sees)
        let direct = try await ServerHarness.start {
            $0 = loaded
            $0.host = "127.0.0.1"
            $0.port = 0
            $0.s3AssumeRoleARN = nil
        }
        defer { direct.cancel() }
        let directReply = try await direct.get("/unsafe/w:100/plain/s3://sealed/rocket.jpg")
        #expect(directReply.status == 200, "\(directReply.text)")
        let directDecrypt = try #require(moto.recordedEntries().last { $0.header("X-Amz-Target") == "TrentService.Decrypt" })
        #expect(directDecrypt.header("Authorization")?.contains("Credential=AKIAIMAGERYSOURCES/") == true)
        #expect(try await moto.signatureVerifies(directDecrypt, secret: "imagery-s3cr3t"))
        #expect(try await !moto.signatureVerifies(directDecrypt, secret: "imagery-s3cr3u"))

        // And without the setting the ciphertext reaches the decoder, which reads no image in it
        let sealedOnly = try await ServerHarness.start {
            $0.useS3 = true
            $0.s3Endpoint = moto.endpoint
            $0.s3Credentials = AWSCredentials(accessKeyID: "testing", secretAccessKey: "testing")
        }
        defer { sealedOnly.cancel() }
        let undecrypted = try await sealedOnly.get("/unsafe/w:100/plain/s3://sealed/rocket.jpg")
        #expect(undecrypted.status == 415, "\(undecrypted.text)")
        await moto.stop()
    }
}
