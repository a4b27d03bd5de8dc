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
        // What Imagery always does, whatever the value: its encoders write no metadata and no
        // ICC profile (every image is converted to sRGB), and HDR sources come out 8-bit.
        // Accepted, so that URLs that send them are served; never written.
        ImgproxyOption(names: ["strip_metadata", "sm"], parse: acceptedBoolean),
        ImgproxyOption(names: ["keep_copyright", "kcr"], parse: acceptedBoolean),
        ImgproxyOption(names: ["strip_color_profile", "scp"], parse: acceptedBoolean),
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
