@testable import ImageryImgproxy
import ImageryTestSupport
import Testing

/// `/info`'s options: imgproxy's names, short and full, their defaults and their refusals.
@Suite struct ImgproxyInfoOptionsTests {
    @Test("Defaults: size, format, dimensions and EXIF on; nothing that needs pixels")
    func defaults() throws {
        let options = try ImgproxyInfoOptions(segments: [String]())
        #expect(options.size && options.format && options.dimensions && options.exif)
        #expect(!options.needsPixels && options.blurHash == nil && options.palette == 0 && options.hashsums.isEmpty)
    }

    static func flag(_ name: String, of options: ImgproxyInfoOptions) -> Bool? {
        switch name {
        case "size": options.size
        case "format": options.format
        case "dimensions": options.dimensions
        case "exif": options.exif
        case "pages_number": options.pagesNumber
        case "check_transparency": options.checksTransparency
        case "colorspace": options.colorspace
        case "bands": options.bands
        case "sample_format": options.sampleFormat
        case "average": options.average
        case "dominant_colors": options.dominantColors
        case "thumb_hash": options.thumbHash
        case "perceptual_hash": options.perceptualHash
        default: nil
        }
    }

    @Test("Every option by its full and short names", arguments: [
        (["s:0", "size:false"], "size", false),
        (["f:0", "format:f"], "format", false),
        (["d:0", "dimensions:0"], "dimensions", false),
        (["exif:0", "exif:false:true"], "exif", false),
        (["pn:1", "pages_number:t"], "pages_number", true),
        (["a:1:1", "alpha:true:true"], "check_transparency", true),
        (["cs:1", "colorspace:1"], "colorspace", true),
        (["b:1", "bands:1"], "bands", true),
        (["sf:1", "sample_format:1"], "sample_format", true),
        (["avg:1", "average:1:0"], "average", true),
        (["dc:1", "dominant_colors:1:1"], "dominant_colors", true),
        (["th:1", "thumb_hash:1", "thumbhash:1"], "thumb_hash", true),
        (["ph:1", "phash:1", "perceptual_hash:1"], "perceptual_hash", true),
    ])
    func flags(segments: [String], field: String, value: Bool) throws {
        #expect(Self.flag(field, of: ImgproxyInfoOptions()) == !value, "the default is the other way")
        for segment in segments {
            #expect(Self.flag(field, of: try ImgproxyInfoOptions(segments: [segment])) == value, "\(segment)")
        }
    }

    @Test("Options with values, and the ones accepted without effect")
    func values() throws {
        let options = try ImgproxyInfoOptions(segments: [
            "bh:4:3", "p:16", "chs:md5:sha256:md5", "hs:sha256:ABCDEF", "exp:1700000000", "iptc:1", "xmp:0", "vm:1", "cb:v2",
        ])
        #expect(options.blurHash == ImgproxyInfoOptions.Components(x: 4, y: 3) && options.palette == 16)
        #expect(options.hashsums == ["md5", "sha256"])
        #expect(options.expectedHashsum == ImgproxyInfoOptions.Hashsum(type: "sha256", hex: "abcdef"))
        #expect(options.expires == 1_700_000_000 && options.needsPixels)
        #expect(try ImgproxyInfoOptions(segments: ["bh:0:3"]).blurHash == nil, "a zero turns BlurHash off, as in imgproxy")
        #expect(try ImgproxyInfoOptions(segments: ["th:1"]) != ImgproxyInfoOptions())
    }

    /// One change away from the defaults per stored property of ``ImgproxyInfoOptions``.
    static var optionChanges: [String: (inout ImgproxyInfoOptions) -> Void] {
        [
            "size": { $0.size.toggle() },
            "format": { $0.format.toggle() },
            "dimensions": { $0.dimensions.toggle() },
            "exif": { $0.exif.toggle() },
            "pagesNumber": { $0.pagesNumber.toggle() },
            "alpha": { $0.alpha.toggle() },
            "checksTransparency": { $0.checksTransparency.toggle() },
            "colorspace": { $0.colorspace.toggle() },
            "bands": { $0.bands.toggle() },
            "sampleFormat": { $0.sampleFormat.toggle() },
            "average": { $0.average.toggle() },
            "averageIgnoresTransparent": { $0.averageIgnoresTransparent.toggle() },
            "dominantColors": { $0.dominantColors.toggle() },
            "buildsMissedColors": { $0.buildsMissedColors.toggle() },
            "palette": { $0.palette = 16 },
            "blurHash": { $0.blurHash = ImgproxyInfoOptions.Components(x: 4, y: 3) },
            "thumbHash": { $0.thumbHash.toggle() },
            "perceptualHash": { $0.perceptualHash.toggle() },
            "hashsums": { $0.hashsums = ["md5"] },
            "expectedHashsum": { $0.expectedHashsum = ImgproxyInfoOptions.Hashsum(type: "sha256", hex: "ab") },
            "expires": { $0.expires = 1_700_000_000 },
        ]
    }

    @Test("The options are their own identity: each stored property, found by reflection, makes them unequal when it changes")
    func equalityCoversEveryOption() throws {
        // The hand-kept identity string this replaces could leave a new option out; a new
        // property without a change here fails instead.
        let base = ImgproxyInfoOptions()
        let labels = Mirror(reflecting: base).children.compactMap { $0.label }
        #expect(Set(labels) == Set(Self.optionChanges.keys))
        for label in labels {
            let change = try #require(Self.optionChanges[label], "ImgproxyInfoOptions.\(label) has no change in optionChanges")
            var options = base
            change(&options)
            #expect(options != base, "ImgproxyInfoOptions.\(label)")
        }
    }

    @Test("Refusals name the option", arguments: [
        ("zz:1", "unknown info option: zz"),
        ("bh:4", "invalid option bh: takes 2 arguments"),
        ("bh:4:10", "invalid option bh: 10 is not a valid number"),
        ("p:1", "invalid option p: takes 0 (off) or 2 to 256 colours"),
        ("p:300", "invalid option p: 300 is not a valid number"),
        ("th:maybe", "invalid option th: maybe is not a boolean"),
        ("chs:crc32", "invalid option chs: crc32 is not md5, sha1, sha256 or sha512"),
        ("hs:sha256:xyz", "invalid option hs: the digest is not hex"),
        ("exp:soon", "invalid option exp: soon is not a valid number"),
        ("do:1", "do: object detection and info crops are not supported"),
    ])
    func refusals(segment: String, message: String) {
        #expect(throws: ImgproxyError(.invalidOption, message)) { try ImgproxyInfoOptions(segments: [segment]) }
    }

    /// imgproxy's names for each `/info` option, full name first, as URLs in the wild write them.
    static let names: [String: [String]] = [
        "size": ["size", "s"], "format": ["format", "f"], "dimensions": ["dimensions", "d"], "exif": ["exif"],
        "iptc": ["iptc"], "xmp": ["xmp"], "video_meta": ["video_meta", "vm"], "cachebuster": ["cachebuster", "cb"],
        "pages_number": ["pages_number", "pn"], "alpha": ["alpha", "a"], "colorspace": ["colorspace", "cs"], "bands": ["bands", "b"],
        "sample_format": ["sample_format", "sf"], "average": ["average", "avg"], "dominant_colors": ["dominant_colors", "dc"],
        "palette": ["palette", "p"], "blurhash": ["blurhash", "bh"], "thumb_hash": ["thumb_hash", "th", "thumbhash"],
        "perceptual_hash": ["perceptual_hash", "ph", "phash"], "calc_hashsums": ["calc_hashsums", "chs"], "hashsum": ["hashsum", "hs"],
        "expires": ["expires", "exp"], "detect_objects": ["detect_objects", "do"], "classify": ["classify", "cl"], "crop": ["crop", "c"],
        "objects_position": ["objects_position", "op", "obj_pos"],
    ]

    @Test("Every info option parses in its full name and in each short one, to the same options; the refused ones are refused by each")
    func everyOptionByEveryName() throws {
        #expect(Dictionary(uniqueKeysWithValues: ImgproxyInfoOptions.table.all.map { ($0.names[0], $0.names) }) == Self.names)
        var random = SplitMix64(state: 0x1AF0_5EED)
        for (full, names) in Self.names.sorted(by: { $0.key < $1.key }) {
            if ImgproxyArgumentGenerators.refusedInfo.contains(full) {
                for name in names {
                    #expect(throws: ImgproxyError(.invalidOption, "\(name): object detection and info crops are not supported")) {
                        try ImgproxyInfoOptions(segments: [name + ":1"])
                    }
                }
                continue
            }
            let generate = try #require(ImgproxyArgumentGenerators.info[full], "\(full) has no argument generator")
            var changed = false
            for _ in 0..<50 {
                let arguments = generate(&random)
                let byFullName = try ImgproxyInfoOptions(segments: [([full] + arguments).joined(separator: ":")])
                for name in names.dropFirst() {
                    #expect(try ImgproxyInfoOptions(segments: [([name] + arguments).joined(separator: ":")]) == byFullName, "\(name) \(arguments)")
                }
                changed = changed || byFullName != ImgproxyInfoOptions()
            }
            // A short name read as its full name would pass above even if both were ignored:
            // an option that writes itself must also change something.
            let writes = ImgproxyInfoOptions.table.byName[full]?.write != nil
            #expect(changed == writes, "\(full): changed the options \(changed ? "" : "never ")in 50 draws")
        }
    }
}
