import Foundation
import Imagery
@testable import ImageryImgproxy
import ImageryTestSupport
import Testing

/// The app's half of the model writes URLs, the server's half reads them: seeded random cases
/// through both must come back as the plan they started as.
@Suite("App-side URLs read back as the same plan on the server side")
struct ImgproxyRoundTripTests {
    static let defaults = ImgproxyPlan.Defaults(quality: 80, maximumPixelCount: 50_000_000, writableFormats: [.jpeg, .png, .webp])
    static let signer = try! ImgproxySigner(keysHex: "00112233445566778899aabbccddeeff,0f0e", saltsHex: "aabb,", signatureSize: 16)

    /// What the server does with a path: split, verify, parse, plan.
    static func serverPlan(_ path: String) throws -> (ImgproxyOptions, ImgproxyPlan) {
        let parsed = try ImgproxyPath(parsing: path)
        guard signer.isValid(parsed.signature, for: parsed.signedPart) else { throw ImgproxyError(.invalidSignature, "invalid signature") }
        let options = try ImgproxyOptions(segments: parsed.options)
        let source = ImageSource.url(URL(string: parsed.source)!)
        return (options, try ImgproxyPlan(options: options, source: source, fileExtension: parsed.fileExtension, defaults: defaults))
    }

    @Test("10,000 random option sets: the builder's signed URL parses to the same options and plan")
    func randomOptions() throws {
        var random = SplitMix64(state: 0x5EED_0F_1A6E)
        let builder = ImgproxyURLBuilder(baseURL: URL(string: "https://img.example.com/")!, signer: Self.signer)
        let gravities: [Gravity] = Gravity.names.map(\.gravity) + [.focus(x: 0.25, y: 0.75), .focus(x: 0, y: 1)]
        for index in 0..<10_000 {
            var options = ImgproxyOptions()
            func maybe(_ chance: Double = 0.5) -> Bool { Double.random(in: 0..<1, using: &random) < chance }
            if maybe() { options.resizingType = ImgproxyOptions.ResizingType.allCases.randomElement(using: &random)! }
            if maybe(0.8) { options.width = Int.random(in: 0...2000, using: &random) }
            if maybe(0.8) { options.height = Int.random(in: 0...2000, using: &random) }
            options.enlarge = maybe(0.2)
            options.extend = maybe(0.2)
            if maybe(0.2) { options.extendGravity = gravities.filter { $0 != .smart }.randomElement(using: &random)! }
            if maybe(0.3) { options.gravity = gravities.randomElement(using: &random)! }
            if maybe(0.2) { options.dpr = [0.5, 1.5, 2, 3, 4].randomElement(using: &random)! }
            if maybe(0.2) {
                options.crop = ImgproxyOptions.Crop(
                    width: [0.5, 0.25, 100, 640].randomElement(using: &random)!, height: [0, 0.75, 200].randomElement(using: &random)!,
                    gravity: maybe() ? gravities.randomElement(using: &random)! : nil
                )
            }
            if maybe(0.3) { options.rotate = [90, 180, 270].randomElement(using: &random)! }
            if maybe(0.3) { options.blur = Double(Int.random(in: 1...1000, using: &random)) / 10 }
            if maybe(0.3) { options.sharpen = Double(Int.random(in: 1...100, using: &random)) / 10 }
            if maybe(0.3) {
                options.background = RGBA(red: .random(in: 0...255, using: &random), green: .random(in: 0...255, using: &random), blue: .random(in: 0...255, using: &random))
            }
            if maybe(0.3) { options.quality = Int.random(in: 1...100, using: &random) }
            if maybe(0.3) { options.format = [.jpeg, .png, .webp].randomElement(using: &random)! }
            if maybe(0.1) { options.cacheBuster = "v\(index)" }
            options.circle = maybe(0.1)
            let extensionFormat: ImageFormat? = maybe(0.2) ? [.jpeg, .png, .webp].randomElement(using: &random)! : nil
            let source = "https://cdn.example.com/photos/\(index).jpg?size=\(index % 7)"

            let url = try #require(builder.url(source: source, options: options, format: extensionFormat))
            let path = String(url.absoluteString.dropFirst("https://img.example.com".count))
            let (parsed, plan) = try Self.serverPlan(path)
            #expect(parsed == options, "case \(index): \(path)")
            let expected = try ImgproxyPlan(
                options: options, source: .url(URL(string: source)!), fileExtension: extensionFormat?.imgproxyExtension, defaults: Self.defaults
            )
            #expect(plan.identity == expected.identity, "case \(index): \(path)")
        }
    }

    @Test("10,000 random app requests: the server's plan resizes and processes as the app would have")
    func randomRequests() throws {
        var random = SplitMix64(state: 0xA99_5EED)
        let builder = ImgproxyURLBuilder(baseURL: URL(string: "https://img.example.com")!, signer: Self.signer)
        for index in 0..<10_000 {
            let side = { Int.random(in: 1...3000, using: &random) }
            let resizes: [Resize?] = [nil, .fit(width: side(), height: side()), .fill(width: side(), height: side()), .width(side()), .height(side())]
            var request = ImageRequest(url: URL(string: "https://cdn.example.com/\(index).jpg")!, resize: resizes.randomElement(using: &random)!)
            request.allowsUpscaling = Bool.random(using: &random)
            let candidates: [any ImageProcessing] = [
                .rotate(degrees: [90, 180, 270].randomElement(using: &random)!),
                .blur(sigma: Double(Int.random(in: 1...500, using: &random)) / 10),
                .sharpen(sigma: Double(Int.random(in: 1...100, using: &random)) / 10),
                .background(RGBA(red: .random(in: 0...255, using: &random), green: 7, blue: 200)),
                .circle, .roundedCorners(8),
            ]
            request.processors = (0..<Int.random(in: 0...4, using: &random)).map { _ in candidates.randomElement(using: &random)! }

            let routed = builder.route(request)
            let path = String(routed.source.identity.dropFirst("https://img.example.com".count))
            let (_, plan) = try Self.serverPlan(path)
            let onServer = request.processors.count - routed.processors.count
            // The server decodes to the app's size and runs the processors the app routed, in
            // the app's order; what is left runs on the device.
            #expect(plan.request.resize == request.resize, "case \(index): \(path)")
            #expect(plan.request.allowsUpscaling == (request.resize != nil && request.allowsUpscaling), "case \(index)")
            #expect(plan.request.processors.map(\.identifier) == request.processors.prefix(onServer).map(\.identifier), "case \(index): \(path)")
            #expect(routed.processors.map(\.identifier) == request.processors.dropFirst(onServer).map(\.identifier))
        }
    }
}
