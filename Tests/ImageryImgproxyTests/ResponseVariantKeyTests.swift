import Imagery
import ImageryImgproxy
import Testing

@Suite("The response variant key and the Accept classes it holds")
struct ResponseVariantKeyTests {
    @Test("Accept picks JPEG XL, then AVIF, then WebP, then other, among the formats the server negotiates", arguments: [
        ("image/webp,image/avif,image/jxl,*/*", [ImageFormat.webp, .avif, .jxl], AcceptedFormats.jxl),
        ("image/webp,image/avif,image/jxl,*/*", [.webp, .avif], .avif),
        ("image/jxl;q=0,image/avif", [.avif, .jxl], .avif),
        ("image/avif,image/webp,*/*", [ImageFormat.webp, .avif], AcceptedFormats.avif),
        ("image/avif,image/webp,*/*", [.webp], .webp),
        ("image/webp;q=0,image/*", [.webp], .other),
        ("IMAGE/WEBP ; q=0.5", [.webp], .webp),
        ("image/*,*/*;q=0.8", [.webp, .avif], .other),
        ("image/webp", [], .other),
        ("", [.webp], .other),
    ] as [(String, Set<ImageFormat>, AcceptedFormats)])
    func negotiation(accept: String, negotiable: Set<ImageFormat>, expected: AcceptedFormats) {
        #expect(AcceptedFormats(accept: accept, negotiable: negotiable) == expected)
    }

    @Test("Each class writes its format; other keeps alpha in PNG")
    func formats() {
        #expect(AcceptedFormats.jxl.format(hasTransparency: true) == .jxl)
        #expect(AcceptedFormats.avif.format(hasTransparency: true) == .avif)
        #expect(AcceptedFormats.webp.format(hasTransparency: false) == .webp)
        #expect(AcceptedFormats.other.format(hasTransparency: false) == .jpeg)
        #expect(AcceptedFormats.other.format(hasTransparency: true) == .png)
    }

    @Test("An animation is never AVIF: WebP where AVIF or WebP would be, GIF where JPEG or PNG would be")
    func animationsAvoidAVIF() {
        var negotiation = FormatNegotiation(writable: [.jpeg, .png, .gif, .webp, .avif])
        #expect(negotiation.format(requested: nil, accepted: .avif, hasTransparency: false, isAnimated: true) == .webp)
        #expect(negotiation.format(requested: nil, accepted: .webp, hasTransparency: true, isAnimated: true) == .webp)
        #expect(negotiation.format(requested: nil, accepted: .other, hasTransparency: false, isAnimated: true) == .gif)
        #expect(negotiation.format(requested: .gif, accepted: .other, hasTransparency: false, isAnimated: true) == .gif)
        #expect(negotiation.format(requested: nil, accepted: .avif, hasTransparency: false, isAnimated: false) == .avif)
        negotiation.enforceAVIF = true
        #expect(negotiation.format(requested: .gif, accepted: .avif, hasTransparency: false, isAnimated: true) == .webp)
        #expect(negotiation.format(requested: .gif, accepted: .avif, hasTransparency: false, isAnimated: false) == .avif)
        let noWebP = FormatNegotiation(writable: [.jpeg, .png, .gif, .avif])
        #expect(noWebP.format(requested: nil, accepted: .avif, hasTransparency: false, isAnimated: true) == .gif)
    }

    @Test("JPEG XL is negotiated only when switched on (off by default, as in imgproxy), before AVIF; enforced, it replaces the URL's format for its class only; an animation is never JPEG XL")
    func jpegXL() {
        var negotiation = FormatNegotiation(writable: [.jpeg, .png, .gif, .webp, .avif, .jxl])
        #expect(!negotiation.negotiable.contains(.jxl))
        #expect(negotiation.accepted("image/jxl,image/avif,*/*") == .avif)
        let unchanged = negotiation.settingsDescription
        negotiation.autoJXL = true
        #expect(negotiation.settingsDescription != unchanged)
        #expect(negotiation.accepted("image/jxl,image/avif,*/*") == .jxl)
        #expect(negotiation.format(requested: nil, accepted: .jxl, hasTransparency: true) == .jxl)
        #expect(negotiation.format(requested: .png, accepted: .jxl, hasTransparency: false) == .png)
        #expect(!negotiation.variesByAccept(requested: .png))
        #expect(negotiation.format(requested: nil, accepted: .jxl, hasTransparency: false, isAnimated: true) == .webp)
        #expect(negotiation.bestCandidates(accepted: .jxl, hasTransparency: false) == [.jpeg, .png, .webp, .avif, .jxl])
        #expect(negotiation.bestCandidates(accepted: .avif, hasTransparency: false) == [.jpeg, .png, .webp, .avif])
        negotiation.enforceJXL = true
        #expect(negotiation.format(requested: .png, accepted: .jxl, hasTransparency: false) == .jxl)
        #expect(negotiation.format(requested: .png, accepted: .avif, hasTransparency: false) == .png)
        #expect(negotiation.format(requested: .gif, accepted: .jxl, hasTransparency: false, isAnimated: true) == .webp)
        #expect(negotiation.variesByAccept(requested: .png))
        // Enforced AVIF still reaches a JPEG XL client when JPEG XL itself is not enforced, as it
        // did before --auto-jxl gave it a class of its own.
        negotiation.enforceJXL = false
        negotiation.enforceAVIF = true
        #expect(negotiation.format(requested: .png, accepted: .jxl, hasTransparency: false) == .avif)
        #expect(negotiation.format(requested: .png, accepted: .avif, hasTransparency: false) == .avif)
        // A build that cannot write JPEG XL never negotiates it, whatever the switches.
        var noJXL = FormatNegotiation(writable: [.jpeg, .png, .webp, .avif])
        noJXL.enforceJXL = true
        #expect(noJXL.accepted("image/jxl,image/avif") == .avif && !noJXL.variesByAccept(requested: .png))
    }

    @Test("format:best's candidates: the preferred formats (JPEG and PNG by default), WebP and AVIF only for clients that take them and where negotiation may choose them, none that drops alpha")
    func bestCandidates() {
        var negotiation = FormatNegotiation(writable: [.jpeg, .png, .gif, .webp, .avif, .bmp])
        #expect(negotiation.bestCandidates(accepted: .avif, hasTransparency: false) == [.jpeg, .png, .webp, .avif])
        #expect(negotiation.bestCandidates(accepted: .webp, hasTransparency: false) == [.jpeg, .png, .webp])
        #expect(negotiation.bestCandidates(accepted: .other, hasTransparency: false) == [.jpeg, .png])
        #expect(negotiation.bestCandidates(accepted: .avif, hasTransparency: true) == [.png, .webp, .avif])
        negotiation.autoAVIF = false
        #expect(negotiation.bestCandidates(accepted: .avif, hasTransparency: false) == [.jpeg, .png, .webp])
        negotiation.preferredFormats = [.gif, .png, .bmp, .avif]
        #expect(negotiation.bestCandidates(accepted: .avif, hasTransparency: false) == [.png, .webp], "GIF and BMP never compete; AVIF only where negotiation may choose it")
        #expect(FormatNegotiation(writable: [.jpeg, .png]).bestCandidates(accepted: .avif, hasTransparency: false) == [.jpeg, .png])
    }

    @Test("Every part of the key keeps responses apart, and the digest is stable")
    func parts() {
        let key = ResponseVariantKey(path: "/_/w:10/plain/local:///a.jpg", accepted: .webp, settings: "s1")
        var variants = [key]
        variants.append(ResponseVariantKey(path: "/_/w:11/plain/local:///a.jpg", accepted: .webp, settings: "s1"))
        variants.append(ResponseVariantKey(path: key.path, accepted: .other, settings: "s1"))
        variants.append(ResponseVariantKey(path: key.path, accepted: .webp, clientHints: "dpr=2", settings: "s1"))
        variants.append(ResponseVariantKey(path: key.path, accepted: .webp, settings: "s2"))
        #expect(Set(variants).count == variants.count)
        #expect(Set(variants.map(\.digest)).count == variants.count)
        #expect(key.digest.count == 64)
        #expect(key.digest == ResponseVariantKey(path: key.path, accepted: .webp, settings: "s1").digest)
        #expect(ResponseVariantKey.settingsDigest([("quality", "80")]) != ResponseVariantKey.settingsDigest([("quality", "81")]))
    }
}
