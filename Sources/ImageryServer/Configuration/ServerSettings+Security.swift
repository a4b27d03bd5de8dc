import Foundation

extension ServerSettings {
    static let security: [ServerSetting] = [
        .text("key", "imgproxy signing keys, hex, comma-separated for key rotation (without one, signatures are not checked).", \.keyHex, secret: true, imgproxy: .same("KEY")).changing(.nothingStored),
        .text("salt", "imgproxy signing salts, hex, one per key.", \.saltHex, secret: true, imgproxy: .same("SALT")).changing(.nothingStored),
        .whole("signature-size", "Bytes of the HMAC a signature keeps.", \.signatureSize, in: 1...32, imgproxy: .same("SIGNATURE_SIZE")).changing(.nothingStored),
        .list("trusted-signatures", "Signatures accepted without a check.", \.trustedSignatures, secret: true, imgproxy: .same("TRUSTED_SIGNATURES")).changing(.nothingStored),
        .list("allowed-sources", "Source URL prefixes that may be fetched; * matches within a path segment (default: any).", \.allowedSourcePrefixes, imgproxy: .same("ALLOWED_SOURCES")).changing(.nothingStored),
        .flag("allow-loopback-sources", "Fetch loopback origins too, for local use and tests.", \.allowLoopbackSources, imgproxy: .same("ALLOW_LOOPBACK_SOURCE_ADDRESSES")).changing(.nothingStored),
        .flag("allow-private-sources", "Fetch private (10/8, 172.16/12, 192.168/16, fc00::/7) and CGNAT (100.64/10) origins too; warned about at start.", \.allowPrivateSources, imgproxy: .same("ALLOW_PRIVATE_SOURCE_ADDRESSES", note: "default true")).changing(.nothingStored),
        .flag("allow-link-local-sources", "Fetch link-local origins too (169.254/16, fe80::/10: cloud metadata services live there); warned about at start.", \.allowLinkLocalSources, imgproxy: .same("ALLOW_LINK_LOCAL_SOURCE_ADDRESSES")).changing(.nothingStored),
        .text("secret", "Every request but the health checks must carry Authorization: Bearer SECRET (else 403).", \.secret, secret: true, imgproxy: .same("SECRET")) { secret in
            ServerSettings.headerValue(secret).map { _ in "must be visible ASCII (it travels in a header)" }
        }.changing(.nothingStored),
        .text("allow-origin", "CORS: the origin answers allow (Access-Control-Allow-Origin, * for any), with preflights for GET and HEAD (default: CORS off).", \.allowOrigin, imgproxy: .same("ALLOW_ORIGIN"), check: headerValue).changing(.nothingStored),
        .text("local-root", "The directory local:///path sources are read from (default: off).", \.localRoot, imgproxy: .same("LOCAL_FILESYSTEM_ROOT")) { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue ? nil : "not a directory"
        }.changing(.source),
        .flag("demo", "Serve the embedded gallery as local:// sources, and a page showing it at / (replaces --local-root).", \.demo).changing(.source),
    ]
}
