import Imagery

extension ImgproxyOptions {
    /// How the response is cached, named and limited.
    static let deliveryOptions: [ImgproxyOption<ImgproxyOptions>] = [
        ImgproxyOption(names: ["cachebuster", "cb"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(exactly: 1)
            guard arguments.values[0].count <= ImgproxyLimits.maximumCacheBusterLength else {
                throw arguments.invalid("longer than \(ImgproxyLimits.maximumCacheBusterLength) characters")
            }
            options.cacheBuster = arguments.values[0].isEmpty ? nil : arguments.values[0]
        } write: { options in
            options.cacheBuster.map { [$0] }
        },
        flag(["strip_metadata", "sm"], \.metadata.strips, default: true),
        flag(["keep_copyright", "kcr"], \.metadata.keepsCopyright, default: true),
        flag(["strip_color_profile", "scp"], \.metadata.stripsColorProfile, default: true),
        // HDR sources come out 8-bit whatever the value: accepted, so that URLs that send it
        // are served; never written.
        ImgproxyOption(names: ["preserve_hdr", "ph"], parse: acceptedBoolean),
        flag(["auto_rotate", "ar"], \.autoRotate, default: true),
        flag(["enforce_thumbnail", "eth"], \.enforcesThumbnail, default: false),
        expires(\.expires),
        ImgproxyOption(names: ["filename", "fn"]) { options, arguments throws(ImgproxyError) in
            // The name, then whether it is base64url-encoded (for names a URL cannot carry).
            try arguments.expect(atLeast: 1)
            try arguments.expect(atMost: 2)
            var name = arguments.values[0]
            if try arguments.bool(at: 1) ?? false {
                guard let bytes = Base64URL.decode(name), let decoded = String(validating: bytes, as: UTF8.self) else {
                    throw arguments.invalid("not valid base64url")
                }
                name = decoded
            }
            guard name.utf8.count <= ImgproxyLimits.maximumFilenameLength else {
                throw arguments.invalid("longer than \(ImgproxyLimits.maximumFilenameLength) bytes")
            }
            options.filename = name.isEmpty ? nil : name
        } write: { options in
            options.filename.map { [Base64URL.encode(Array($0.utf8)), "1"] }
        },
        ImgproxyOption(names: ["return_attachment", "att"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(exactly: 1)
            options.returnsAttachment = try arguments.bool(at: 0) ?? false
        } write: { options in
            options.returnsAttachment ? ["1"] : nil
        },
    ]
}
