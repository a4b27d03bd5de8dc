import Foundation

/// Random, valid arguments for every imgproxy option, keyed by the option's full name (the
/// first of its names in the option table).
///
/// The random URL tests walk the option table and ask this table for each option's arguments;
/// a test checks that its keys are the table's names, so an option added to the table without
/// a generator fails the suite the day it is added, instead of going untested.
///
/// Every generator writes at least one argument (a URL segment without the separator is where
/// the source starts) and only what the parser accepts on its own, and the processing options
/// together stay under the output size limit (width at most 2,000, `dpr` and `zoom` at most 2
/// each), so that a set drawn from them parses. Formats are those every build writes.
package enum ImgproxyArgumentGenerators {
    package typealias Generator = @Sendable (inout SplitMix64) -> [String]

    // MARK: Processing options

    package static let processing: [String: Generator] = [
        "resize": { r in
            [r.pick(resizingTypes), r.side(), r.side()] + r.some(upTo: 2) { $0.bool() }
        },
        "size": { r in [r.side(), r.side()] + r.some(upTo: 2) { $0.bool() } },
        "resizing_type": { r in [r.pick(resizingTypes)] },
        "width": { r in [r.side()] },
        "height": { r in [r.side()] },
        "min-width": { r in [r.int(0...2000)] },
        "min-height": { r in [r.int(0...2000)] },
        "zoom": { r in (0..<r.number(1...2)).map { _ in r.pick(["0.25", "0.5", "1", "1.25", "1.5", "2"]) } },
        "dpr": { r in [r.pick(["0.5", "1", "1.25", "1.5", "2"])] },
        "enlarge": { r in [r.bool()] },
        "extend": { r in [r.bool()] + (r.chance(0.5) ? r.gravity(allowsSmart: false) : []) },
        "extend_aspect_ratio": { r in [r.bool()] + (r.chance(0.5) ? r.gravity(allowsSmart: false) : []) },
        "gravity": { r in r.gravity(allowsSmart: true) },
        "crop": { r in
            [r.pick(["0", "0.25", "0.5", "1", "100", "640"]), r.pick(["0", "0.75", "1", "200"])]
                + (r.chance(0.5) ? r.gravity(allowsSmart: true) : [])
        },
        "trim": { r in
            // threshold, colour, equal horizontal, equal vertical: any tail left out.
            [r.pick(["", "0", "10", "12.5", "255"]), r.pick(["", "ffffff", "00ff7f"]), r.bool(), r.bool()].prefix(r.number(1...4)).map { $0 }
        },
        "rotate": { r in [String(90 * r.number(-4...4))] },
        "flip": { r in [r.bool()] + r.some(upTo: 1) { $0.bool() } },
        "padding": { r in (0..<r.number(1...4)).map { _ in r.int(0...100) } },
        "blur": { r in [r.pick(["0", "0.5", "2", "2.5", "10", "100"])] },
        "sharpen": { r in [r.pick(["0", "0.3", "1", "10"])] },
        "pixelate": { r in [r.int(0...50)] },
        "background": { r in
            switch r.number(0...2) {
            case 0: [""]
            case 1: [r.int(0...255), r.int(0...255), r.int(0...255)]
            default: [r.pick(["ff0000", "00FF00", "0a0b0c", "ffffff"])]
            }
        },
        "watermark": { r in
            [r.pick(["0", "0.5", "1", "0.25"]), r.pick(["", "re", "ce", "no", "soea", "west"]), r.offset(), r.offset(), r.pick(["", "0", "0.2", "1"])]
                .prefix(r.number(1...5)).map { $0 }
        },
        "quality": { r in [r.int(0...100)] },
        "format_quality": { r in
            (0..<r.number(1...3)).flatMap { _ in [r.pick(formatNames), r.int(0...100)] }
        },
        "max_bytes": { r in [r.int(0...1_000_000)] },
        "format": { r in [r.pick(["", "jpg", "jpeg", "png", "gif", "best", "bmp", "ico"])] },
        "autoquality": { r in
            let method = r.pick(["", "none", "size", "dssim", "ml"])
            let target = method == "size" ? r.int(1_000...200_000) : r.pick(["", "0.01", "0.02", "0.05"])
            let low = r.number(1...90)
            return [method, method.isEmpty ? "" : target, String(low), r.int(low...100), r.pick(["", "0", "0.002", "0.01"])]
        },
        "skip_processing": { r in (0..<r.number(1...3)).map { _ in r.pick(formatNames + [""]) } },
        "raw": { r in [r.bool()] },
        "cachebuster": { r in [r.token(0...12)] },
        "strip_metadata": { r in [r.bool()] },
        "keep_copyright": { r in [r.bool()] },
        "strip_color_profile": { r in [r.bool()] },
        "preserve_hdr": { r in [r.bool()] },
        "auto_rotate": { r in [r.bool()] },
        "enforce_thumbnail": { r in [r.bool()] },
        "expires": { r in [r.expiry()] },
        "filename": { r in
            switch r.number(0...2) {
            case 0: [r.token(1...20)]
            case 1: [r.token(1...20), "0"]
            default: [base64URL(Array((r.token(1...8) + r.pick([" 🐈", "é", " a b"])).utf8)), r.pick(["1", "t", "true"])]
            }
        },
        "return_attachment": { r in [r.bool()] },
        "max_src_resolution": { r in [r.pick(["0", "0.5", "1", "12.5", "100"])] },
        "max_src_file_size": { r in [r.int(0...1_000_000_000)] },
        "max_animation_frames": { r in [r.int(0...1000)] },
        "max_animation_frame_resolution": { r in [r.pick(["0", "0.25", "1", "50"])] },
        "max_result_dimension": { r in [r.int(0...10_000)] },
        "circle": { r in [r.bool()] },
    ]

    // MARK: /info options

    package static let info: [String: Generator] = [
        "size": { r in [r.bool()] },
        "format": { r in [r.bool()] },
        "dimensions": { r in [r.bool()] },
        "exif": { r in [r.bool()] + r.some(upTo: 1) { $0.bool() } },
        "iptc": { r in [r.bool()] + r.some(upTo: 1) { $0.bool() } },
        "xmp": { r in [r.bool()] + r.some(upTo: 1) { $0.bool() } },
        "video_meta": { r in [r.bool()] + r.some(upTo: 1) { $0.bool() } },
        "cachebuster": { r in [r.token(0...12)] },
        "pages_number": { r in [r.bool()] },
        "alpha": { r in [r.bool()] + r.some(upTo: 1) { $0.bool() } },
        "colorspace": { r in [r.bool()] },
        "bands": { r in [r.bool()] },
        "sample_format": { r in [r.bool()] },
        "average": { r in [r.bool()] + r.some(upTo: 1) { $0.bool() } },
        "dominant_colors": { r in [r.bool()] + r.some(upTo: 1) { $0.bool() } },
        "palette": { r in [r.chance(0.2) ? "0" : r.int(2...256)] },
        "blurhash": { r in [r.int(0...9), r.int(0...9)] },
        "thumb_hash": { r in [r.bool()] },
        "perceptual_hash": { r in [r.bool()] },
        "calc_hashsums": { r in (0..<r.number(1...4)).map { _ in r.pick(["md5", "sha1", "sha256", "sha512", ""]) } },
        "hashsum": { r in
            r.chance(0.2) ? [r.pick(["none", ""]), ""]
                : [r.pick(["md5", "sha1", "sha256", "sha512"]), (0..<r.number(1...32)).map { _ in r.pick(["00", "7f", "AB", "e3"]) }.joined()]
        },
        "expires": { r in [r.expiry()] },
    ]

    /// imgproxy's `/info` options that need what Imagery does not do: refused whatever their
    /// arguments, so they have no generator.
    package static let refusedInfo: Set<String> = ["detect_objects", "classify", "crop", "objects_position"]

    // MARK: Pieces

    static let resizingTypes = ["", "fit", "fill", "fill-down", "force", "auto"]
    /// Every format name an imgproxy URL may use, whether or not the build writes it.
    static let formatNames = ["jpg", "jpeg", "png", "webp", "gif", "avif", "heic", "jxl", "tiff", "bmp"]
    static let compass = ["ce", "no", "so", "ea", "we", "noea", "nowe", "soea", "sowe", "center", "north", "southwest", "centre"]

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}

extension SplitMix64 {
    package mutating func chance(_ probability: Double) -> Bool { Double.random(in: 0..<1, using: &self) < probability }
    package mutating func number(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
    package mutating func int(_ range: ClosedRange<Int>) -> String { String(number(range)) }
    package mutating func pick(_ choices: [String]) -> String { choices.randomElement(using: &self)! }
    /// A boolean as imgproxy accepts it, or empty (the default).
    package mutating func bool() -> String { pick(["1", "0", "t", "f", "true", "false", ""]) }
    /// A box side within the size limit, or empty.
    package mutating func side() -> String { chance(0.1) ? "" : int(0...2000) }
    package mutating func offset() -> String { pick(["0", "", "5", "-12", "20.5", "-0.5"]) }
    /// A Unix time past the year 2096 and within `ImgproxyLimits.latestExpiry`, so that no
    /// random URL has expired.
    package mutating func expiry() -> String { int(4_000_000_000...17_000_000_000) }

    /// Letters, digits and the unreserved `-`, `_`, `.`, `~`: what a cache buster or a plain
    /// file name may carry in a path segment.
    package mutating func token(_ length: ClosedRange<Int>) -> String {
        let characters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~")
        return String((0..<number(length)).map { _ in characters.randomElement(using: &self)! })
    }

    /// Up to `count` values from `make`, so that optional trailing arguments are sometimes absent.
    package mutating func some(upTo count: Int, _ make: (inout SplitMix64) -> String) -> [String] {
        (0..<number(0...count)).map { _ in make(&self) }
    }

    /// A gravity's arguments: a compass name with or without offsets, `fp` with x and y, or
    /// (`allowsSmart`) `sm`, which takes no offsets.
    package mutating func gravity(allowsSmart: Bool) -> [String] {
        switch number(0...(allowsSmart ? 3 : 2)) {
        case 0: [pick(ImgproxyArgumentGenerators.compass)]
        case 1: [pick(ImgproxyArgumentGenerators.compass), offset(), offset()]
        case 2: ["fp", pick(["0", "0.25", "0.5", "0.9", "1"]), pick(["0", "0.1", "0.75", "1"])]
        default: [pick(["sm", "smart"])]
        }
    }
}
