import Imagery

extension ImgproxyInfoOptions: ImgproxyOptionSet {
    /// Every `/info` option, in the order ``segments`` writes them.
    static let table = ImgproxyOptionTable(fieldOptions + pixelOptions + sourceOptions + refusedOptions)

    /// The fields read from the header.
    static let fieldOptions: [ImgproxyOption<ImgproxyInfoOptions>] = [
        flag(["size", "s"], \.size, default: true),
        flag(["format", "f"], \.format, default: true),
        flag(["dimensions", "d"], \.dimensions, default: true),
        ImgproxyOption(names: ["exif"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(atMost: 2)
            options.exif = try arguments.bool(at: 0) ?? true
        } write: { options in
            options.exif ? nil : ["0"]
        },
        // No IPTC, XMP or video here: accepted, and their fields are absent.
        accepted(["iptc"]), accepted(["xmp"]), accepted(["video_meta", "vm"]), accepted(["cachebuster", "cb"]),
        flag(["pages_number", "pn"], \.pagesNumber, default: false),
        ImgproxyOption(names: ["alpha", "a"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(atMost: 2)
            options.alpha = try arguments.bool(at: 0) ?? false
            options.checksTransparency = try arguments.bool(at: 1) ?? false
        } write: { options in
            guard options.alpha || options.checksTransparency else { return nil }
            return [options.alpha ? "1" : "0"] + (options.checksTransparency ? ["1"] : [])
        },
        flag(["colorspace", "cs"], \.colorspace, default: false),
        flag(["bands", "b"], \.bands, default: false),
        flag(["sample_format", "sf"], \.sampleFormat, default: false),
    ]

    /// The fields computed from a decoded draft.
    static let pixelOptions: [ImgproxyOption<ImgproxyInfoOptions>] = [
        ImgproxyOption(names: ["average", "avg"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(atLeast: 1)
            try arguments.expect(atMost: 2)
            options.average = try arguments.bool(at: 0) ?? false
            options.averageIgnoresTransparent = try arguments.bool(at: 1) ?? true
        } write: { options in
            guard options.average || !options.averageIgnoresTransparent else { return nil }
            return [options.average ? "1" : "0"] + (options.averageIgnoresTransparent ? [] : ["0"])
        },
        ImgproxyOption(names: ["dominant_colors", "dc"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(atLeast: 1)
            try arguments.expect(atMost: 2)
            options.dominantColors = try arguments.bool(at: 0) ?? false
            options.buildsMissedColors = try arguments.bool(at: 1) ?? false
        } write: { options in
            guard options.dominantColors || options.buildsMissedColors else { return nil }
            return [options.dominantColors ? "1" : "0"] + (options.buildsMissedColors ? ["1"] : [])
        },
        ImgproxyOption(names: ["palette", "p"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(exactly: 1)
            let colours = try arguments.int(at: 0, in: 0...256) ?? 0
            guard colours == 0 || colours >= 2 else { throw arguments.invalid("takes 0 (off) or 2 to 256 colours") }
            options.palette = colours
        } write: { options in
            options.palette == 0 ? nil : [String(options.palette)]
        },
        ImgproxyOption(names: ["blurhash", "bh"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(exactly: 2)
            let x = try arguments.int(at: 0, in: 0...9) ?? 0, y = try arguments.int(at: 1, in: 0...9) ?? 0
            options.blurHash = x > 0 && y > 0 ? Components(x: x, y: y) : nil
        } write: { options in
            options.blurHash.map { [String($0.x), String($0.y)] }
        },
        flag(["thumb_hash", "th", "thumbhash"], \.thumbHash, default: false),
        flag(["perceptual_hash", "ph", "phash"], \.perceptualHash, default: false),
    ]

    /// Digests of the source bytes, and when the URL expires.
    static let sourceOptions: [ImgproxyOption<ImgproxyInfoOptions>] = [
        ImgproxyOption(names: ["calc_hashsums", "chs"]) { options, arguments throws(ImgproxyError) in
            for name in arguments.values where !name.isEmpty {
                guard digests.contains(name) else { throw arguments.invalid("\(name.prefix(20)) is not md5, sha1, sha256 or sha512") }
                if !options.hashsums.contains(name) { options.hashsums.append(name) }
            }
        } write: { options in
            options.hashsums.isEmpty ? nil : options.hashsums
        },
        ImgproxyOption(names: ["hashsum", "hs"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(exactly: 2)
            let type = arguments.values[0]
            if type == "none" || type.isEmpty {
                options.expectedHashsum = nil
            } else {
                guard digests.contains(type) else { throw arguments.invalid("\(type.prefix(20)) is not md5, sha1, sha256 or sha512") }
                guard let bytes = Hex.decode(arguments.values[1]), !bytes.isEmpty else { throw arguments.invalid("the digest is not hex") }
                options.expectedHashsum = Hashsum(type: type, hex: Hex.encode(bytes))
            }
        } write: { options in
            options.expectedHashsum.map { [$0.type, $0.hex] }
        },
        expires(\.expires),
    ]

    /// imgproxy's options that need what Imagery does not do: refused by name.
    static let refusedOptions: [ImgproxyOption<ImgproxyInfoOptions>] = [
        ["detect_objects", "do"], ["classify", "cl"], ["crop", "c"], ["objects_position", "op", "obj_pos"],
    ].map { names in
        ImgproxyOption(names: names) { _, arguments throws(ImgproxyError) in
            throw ImgproxyError(.invalidOption, "\(arguments.option): object detection and info crops are not supported")
        }
    }

    /// An option accepted with any arguments, and without effect.
    private static func accepted(_ names: [String]) -> ImgproxyOption<ImgproxyInfoOptions> {
        ImgproxyOption(names: names) { _, _ throws(ImgproxyError) in }
    }
}
