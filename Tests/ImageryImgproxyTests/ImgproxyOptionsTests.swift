import Imagery
@testable import ImageryImgproxy
import Testing

@Suite("ImgproxyOptions: every option, parsed and written")
struct ImgproxyOptionsTests {
    @Test("Every option, in its full and its short name")
    func everyOption() throws {
        let pairs: [(full: String, short: String)] = Self.pairs
        // Every option of the table is in the list below, by its full name and another.
        let accepted = ["strip_metadata", "keep_copyright", "strip_color_profile", "preserve_hdr", "circle"]
        for option in ImgproxyOptions.table.all where !accepted.contains(option.names[0]) {
            #expect(pairs.contains { $0.full.hasPrefix(option.names[0] + ":") }, "\(option.names[0]) has no full-name case")
            #expect(option.names.count == 1 || pairs.contains { pair in option.names.dropFirst().contains { pair.short.hasPrefix($0 + ":") } },
                    "\(option.names[0]) has no short-name case")
        }
        try check(pairs)
    }

    static let pairs: [(full: String, short: String)] = [
            ("resize:fill:300:200:1:1", "rs:fill:300:200:1:1"), ("size:300:200:1:1", "s:300:200:1:1"),
            ("resizing_type:force", "rt:force"), ("width:300", "w:300"), ("height:200", "h:200"),
            ("enlarge:1", "el:1"), ("extend:1:so", "ex:1:so"), ("gravity:fp:0.25:0.75", "g:fp:0.25:0.75"),
            ("dpr:2", "dpr:2"), ("crop:0.5:100:nowe", "c:0.5:100:nowe"), ("rotate:270", "rot:270"),
            ("blur:3.5", "bl:3.5"), ("sharpen:0.7", "sh:0.7"), ("background:255:0:10", "bg:ff000a"),
            ("quality:55", "q:55"), ("format:png", "f:png"), ("format:png", "ext:png"), ("cachebuster:v2", "cb:v2"),
            ("flip:1:1", "fl:1:1"), ("padding:10:20", "pd:10:20"), ("pixelate:8", "pix:8"), ("expires:1700000000", "exp:1700000000"),
            ("format_quality:jpg:70:webp:60", "fq:jpeg:70:webp:60"), ("max_bytes:20000", "mb:20000"),
            ("min-width:100", "mw:100"), ("min-height:50", "mh:50"), ("zoom:1.5", "z:1.5"),
            ("extend_aspect_ratio:1:no", "exar:1:no"), ("extend_ar:1:no", "exar:1:no"),
            ("auto_rotate:0", "ar:0"), ("enforce_thumbnail:1", "eth:1"),
            ("trim:10:ffffff:1:0", "t:10:ffffff:1:0"), ("watermark:0.5:soea:10:5:0.2", "wm:0.5:soea:10:5:0.2"),
            ("skip_processing:gif:png", "skp:gif:png"), ("raw:1", "raw:1"), ("filename:cat", "fn:Y2F0:1"),
            ("return_attachment:1", "att:1"), ("max_src_resolution:2", "msr:2"), ("max_src_file_size:1000", "msfs:1000"),
            ("autoquality:dssim:0.02:60:85:0.001", "aq:dssim:0.02:60:85:0.001"), ("autoquality:size:30000", "aq:size:30000"),
            ("max_animation_frames:3", "maf:3"), ("max_animation_frame_resolution:0.5", "mafr:0.5"), ("max_result_dimension:99", "mrd:99"),
        ]

    private func check(_ pairs: [(full: String, short: String)]) throws {
        for (full, short) in pairs {
            #expect(try ImgproxyOptions(segments: [full]) == ImgproxyOptions(segments: [short]), "\(full)")
        }
        let options = try ImgproxyOptions(segments: pairs.map(\.full))
        #expect(options.resizingType == .force)   // rt after rs wins: options apply in order
        #expect(options.width == 300 && options.height == 200 && options.enlarge && options.extend)
        #expect(options.extendGravity == .south)
        #expect(options.gravity == .focus(x: 0.25, y: 0.75))
        #expect(options.dpr == 2 && options.targetWidth == 600 && options.targetHeight == 400)
        #expect(options.crop == ImgproxyOptions.Crop(width: 0.5, height: 100, gravity: .northWest))
        #expect(options.rotate == 270 && options.blur == 3.5 && options.sharpen == 0.7)
        #expect(options.background == RGBA(red: 255, green: 0, blue: 10))
        #expect(options.quality == 55 && options.format == .png && options.cacheBuster == "v2")
        #expect(options.flipsHorizontally && options.flipsVertically)
        #expect(try ImgproxyOptions(segments: ["fl:0:1"]).segments == ["fl:0:1"])
        #expect(options.padding == ImgproxyOptions.Padding(top: 10, right: 20, bottom: 10, left: 20) && options.pixelate == 8)
        // CSS's shorthand, written back in full.
        for (segment, written) in [("pd:5", "pd:5:5:5:5"), ("pd:1:2:3", "pd:1:2:3:2"), ("pd:1:2:3:4", "pd:1:2:3:4")] {
            #expect(try ImgproxyOptions(segments: [segment]).segments == [written], "\(segment)")
        }
        #expect(try ImgproxyOptions(segments: ["pd:0"]).padding == nil)
        #expect(options.formatQuality == [.jpeg: 70, .webp: 60] && options.maximumBytes == 20000)
        #expect(try ImgproxyOptions(segments: ["fq:webp:60:jpg:70"]).segments == ["fq:jpg:70:webp:60"])
        #expect(options.minWidth == 100 && options.minHeight == 50 && options.zoomWidth == 1.5 && options.zoomHeight == 1.5)
        #expect(options.extendsAspectRatio && options.extendAspectRatioGravity == .north)
        #expect(options.trim == ImageProcessors.Trim(threshold: 10, color: .white, equalHorizontal: true))
        #expect(options.watermark == ImgproxyOptions.Watermark(position: .offset(.southEast, x: 10, y: 5), opacity: 0.5, scale: 0.2))
        #expect(options.skipProcessing == [.gif, .png] && options.raw && options.filename == "cat" && options.returnsAttachment)
        #expect(options.security.sourceMegapixels == 2 && options.security.sourceBytes == 1000 && options.security.animationFrames == 3)
        #expect(options.security.animationFrameMegapixels == 0.5 && options.security.resultDimension == 99)
        // Two zoom factors; gravity offsets; a tiled watermark; a name that needs base64.
        let zoomed = try ImgproxyOptions(segments: ["z:2:0.5"])
        #expect(zoomed.zoomWidth == 2 && zoomed.zoomHeight == 0.5 && zoomed.segments == ["z:2:0.5"])
        #expect(try ImgproxyOptions(segments: ["g:so:0:20"]).gravity == .offset(.south, x: 0, y: 20))
        #expect(try ImgproxyOptions(segments: ["g:ce:0:0"]).gravity == .center)
        #expect(try ImgproxyOptions(segments: ["wm:1:re"]).watermark?.position == nil)
        #expect(try ImgproxyOptions(segments: ["fn:Y2F0IPCfkIg:1"]).filename == "cat 🐈")
        for segment in ["g:so:0:20", "wm:1:re:0:0:0", "t:10::0:1", "fn:Y2F0IPCfkIg:1", "exar:1:we:5:0", "skp:gif:png"] {
            let parsed = try ImgproxyOptions(segments: [segment])
            #expect(try ImgproxyOptions(segments: parsed.segments) == parsed, "\(segment)")
        }
        // Accepted for what Imagery always does, or the default said again; never written back.
        for segment in ["sm:1", "kcr:1", "keep_copyright:1", "scp:1", "strip_color_profile:1",
                        "ph:1", "preserve_hdr:0", "ar:1", "auto_rotate:1", "eth:0", "enforce_thumbnail:0"] {
            #expect(try ImgproxyOptions(segments: [segment]) == ImgproxyOptions(), "\(segment)")
        }
        // What of the source's metadata is kept: said by the plan's request, and written back.
        let keeping = try ImgproxyOptions(segments: ["strip_metadata:0", "kcr:0", "scp:0"])
        #expect(!keeping.metadata.strips && !keeping.metadata.keepsCopyright && !keeping.metadata.stripsColorProfile)
        #expect(keeping.segments == ["sm:0", "kcr:0", "scp:0"])
        #expect(keeping.metadata.kept == [.exif, .xmp, .iptc, .colorProfile] && ImgproxyOptions().metadata.kept == [.exif])
        // auto_rotate and enforce_thumbnail say what the plan's request does, and are written back.
        #expect(try !ImgproxyOptions(segments: ["ar:0"]).autoRotate && ImgproxyOptions(segments: ["eth:1"]).enforcesThumbnail)
        #expect(try ImgproxyOptions(segments: ["ar:0", "eth:1"]).segments == ["ar:0", "eth:1"])
        // Imagery's own option has one name only.
        #expect(try ImgproxyOptions(segments: ["circle:1"]).circle)
        #expect(try !ImgproxyOptions(segments: ["circle:0"]).circle)
    }

    @Test("Empty arguments keep their defaults; later options override earlier ones")
    func defaultsAndOrder() throws {
        let options = try ImgproxyOptions(segments: ["rs:fill::300", "w:120", "rot:-90", "bg"])
        #expect(options.resizingType == .fill && options.width == 120 && options.height == 300)
        #expect(!options.enlarge && options.rotate == 270 && options.background == nil)
    }

    @Test("An unknown or malformed option is refused with a message that names it", arguments: [
        ("pr:thumb", "pr"), ("rs:zoom:1:1", "rs"), ("w:abc", "w"), ("w:-5", "w"), ("el:maybe", "el"),
        ("g:up", "g"), ("g:sm:10:0", "g"), ("g:ce:1:2:3", "g"), ("g:no:x", "g"), ("g:fp:2:0", "g"),
        ("mw:-1", "mw"), ("mh:x", "mh"), ("z:0", "z"), ("z:1:2:3", "z"), ("z:9", "z"), ("exar:1:sm", "exar"),
        ("t", "t"), ("t:300", "t"), ("t:10:red", "t"), ("wm:2", "wm"), ("wm:0.5:up", "wm"), ("wm:0.5:ce:0:0:2", "wm"),
        ("skp:xyz", "skp"), ("raw", "raw"), ("raw:x", "raw"), ("fn", "fn"), ("fn:!!:1", "fn"), ("att:x", "att"), ("msr:-1", "msr"), ("dpr:0", "dpr"), ("dpr:nan", "dpr"),
        ("rot:45", "rot"), ("bl:-1", "bl"), ("sh:x", "sh"), ("bg:300:0:0", "bg"), ("bg:red", "bg"),
        ("q:101", "q"), ("f:xyz", "f"), ("w:1:2", "w"), ("c:10", "c"), ("s:9000:10", "size"),
        // Numbers that would trap if converted or negated carelessly.
        ("rot:-9223372036854775808", "rot"), ("w:9223372036854775807", "w"), ("c:1e300:10", "c"), ("c:-1:10", "c"),
        ("bl:1e400", "bl"), ("dpr:inf", "dpr"), ("circle:2", "circle"), ("circle", "circle"),
        ("fl", "fl"), ("fl:1:1:1", "fl"), ("fl:x", "fl"), ("sm:maybe", "sm"), ("ar", "ar"),
        ("fq:jpg", "fq"), ("fq:jpg:101", "fq"), ("fq:xyz:50", "fq"), ("fq", "fq"), ("mb:-1", "mb"), ("mb:1:2", "mb"),
        ("exp", "exp"), ("exp:-1", "exp"), ("exp:99999999999999", "exp"), ("pd", "pd"), ("pd:1:2:3:4:5", "pd"), ("pd:-1", "pd"), ("pd:99999999", "pd"), ("pix:x", "pix"), ("pix:-2", "pix"),
    ])
    func badOptions(_ segment: String, _ named: String) {
        do {
            _ = try ImgproxyOptions(segments: [segment])
            Issue.record("\(segment) was accepted")
        } catch {
            #expect(error.kind == .invalidOption || error.kind == .unsupportedFormat)
            #expect(error.message.contains(named), "\(error.message)")
        }
    }

    @Test("The limits the parser enforces are the ones ImgproxyLimits states")
    func limits() throws {
        #expect(try ImgproxyOptions(segments: ["bl:\(ImgproxyLimits.maximumBlurSigma)"]).blur == ImgproxyLimits.maximumBlurSigma)
        #expect(throws: ImgproxyError.self) { try ImgproxyOptions(segments: ["bl:\(ImgproxyLimits.maximumBlurSigma + 0.1)"]) }
        #expect(try ImgproxyOptions(segments: ["sh:\(ImgproxyLimits.maximumSharpenSigma)"]).sharpen == ImgproxyLimits.maximumSharpenSigma)
        #expect(throws: ImgproxyError.self) { try ImgproxyOptions(segments: ["sh:\(ImgproxyLimits.maximumSharpenSigma + 0.1)"]) }
        #expect(try ImgproxyOptions(segments: ["dpr:\(ImgproxyLimits.maximumDPR)"]).dpr == ImgproxyLimits.maximumDPR)
        #expect(throws: ImgproxyError.self) { try ImgproxyOptions(segments: ["dpr:\(ImgproxyLimits.maximumDPR + 0.1)"]) }
        let side = ImgproxyLimits.maximumOutputSide
        #expect(try ImgproxyOptions(segments: ["w:\(side)"]).width == side)
        #expect(throws: ImgproxyError.self) { try ImgproxyOptions(segments: ["w:\(side + 1)"]) }
        #expect(throws: ImgproxyError.self) { try ImgproxyOptions(segments: ["w:\(side / 2 + 1)", "dpr:2"]) }
    }

    @Test("Written segments use the short names and leave defaults out")
    func segments() {
        #expect(ImgproxyOptions().segments == ["rs:fit:0:0"])
        var options = ImgproxyOptions()
        options.resizingType = .fill
        options.width = 300
        options.gravity = .smart
        options.blur = 2
        options.background = RGBA(red: 255, green: 0, blue: 10)
        options.format = .jpeg
        #expect(options.segments == ["rs:fill:300:0", "g:sm", "bl:2", "bg:ff000a", "f:jpg"])
    }
}
