import Foundation

extension ServerSettings {
    static let security: [ServerSetting] = [
        .text("key", "imgproxy signing keys, hex, comma-separated for key rotation (without one, signatures are not checked).", \.keyHex, secret: true, imgproxy: "IMGPROXY_KEY").changing(.nothingStored),
        .text("salt", "imgproxy signing salts, hex, one per key.", \.saltHex, secret: true, imgproxy: "IMGPROXY_SALT").changing(.nothingStored),
        .whole("signature-size", "Bytes of the HMAC a signature keeps.", \.signatureSize, in: 1...32, imgproxy: "IMGPROXY_SIGNATURE_SIZE").changing(.nothingStored),
        .list("trusted-signatures", "Signatures accepted without a check.", \.trustedSignatures, secret: true, imgproxy: "IMGPROXY_TRUSTED_SIGNATURES").changing(.nothingStored),
        .list("allowed-sources", "Source URL prefixes that may be fetched; * matches within a path segment (default: any).", \.allowedSourcePrefixes, imgproxy: "IMGPROXY_ALLOWED_SOURCES").changing(.nothingStored),
        .flag("allow-loopback-sources", "Fetch loopback origins too, for local use and tests.", \.allowLoopbackSources, imgproxy: "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES").changing(.nothingStored),
        .flag("allow-private-sources", "Fetch private (10/8, 172.16/12, 192.168/16, fc00::/7) and CGNAT (100.64/10) origins too; warned about at start.", \.allowPrivateSources, imgproxy: "IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES (default true)").changing(.nothingStored),
        .flag("allow-link-local-sources", "Fetch link-local origins too (169.254/16, fe80::/10: cloud metadata services live there); warned about at start.", \.allowLinkLocalSources, imgproxy: "IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES").changing(.nothingStored),
        .text("secret", "Every request but the health checks must carry Authorization: Bearer SECRET (else 403).", \.secret, secret: true, imgproxy: "IMGPROXY_SECRET") { secret in
            ServerSettings.headerValue(secret).map { _ in "must be visible ASCII (it travels in a header)" }
        }.changing(.nothingStored),
        .text("allow-origin", "CORS: the origin answers allow (Access-Control-Allow-Origin, * for any), with preflights for GET and HEAD (default: CORS off).", \.allowOrigin, imgproxy: "IMGPROXY_ALLOW_ORIGIN", check: headerValue).changing(.nothingStored),
        .text("local-root", "The directory local:///path sources are read from (default: off).", \.localRoot, imgproxy: "IMGPROXY_LOCAL_FILESYSTEM_ROOT") { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue ? nil : "not a directory"
        }.changing(.source),
        .flag("demo", "Serve the embedded gallery as local:// sources, and a page showing it at / (replaces --local-root).", \.demo).changing(.source),
    ]
}
