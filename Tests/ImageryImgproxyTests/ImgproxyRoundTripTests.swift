import Foundation
import Imagery
@testable import ImageryImgproxy
import ImageryTestSupport
import Testing

/// The app's half of the model writes URLs, the server's half reads them: seeded random cases
/// through both must come back as the plan they started as.
@Suite("App-side URLs read back as the same plan on the server side")
struct ImgproxyRoundTripTests {
    static let defaults = ImgproxyPlan.Defaults(quality: 80, maximumPixelCount: 50_000_000, writableFormats: [.jpeg, .png, .webp, .gif, .bmp, .ico])
    static let signer = try! ImgproxySigner(keysHex: "00112233445566778899aabbccddeeff,0f0e", saltsHex: "aabb,", signatureSize: 16)

    /// What the server does with a path: split, verify, parse, plan.
    static func serverPlan(_ path: String) throws -> (ImgproxyOptions, ImgproxyPlan) {
        let parsed = try ImgproxyPath(parsing: path)
        guard signer.isValid(parsed.signature, for: parsed.signedPart) else { throw ImgproxyError(.invalidSignature, "invalid signature") }
        let options = try ImgproxyOptions(segments: parsed.options)
        let source = ImageSource.url(URL(string: parsed.source)!)
        return (options, try ImgproxyPlan(options: options, source: source, fileExtension: parsed.fileExtension, defaults: defaults))
    }

    @Test("Every option of the table has an argument generator, and every generator an option of the table")
    func generatorsCoverTheTable() {
        let names = Set(ImgproxyOptions.table.all.map { $0.names[0] })
        let generated = Set(ImgproxyArgumentGenerators.processing.keys)
        #expect(names.subtracting(generated).isEmpty, "options without a generator: \(names.subtracting(generated).sorted())")
        #expect(generated.subtracting(names).isEmpty, "generators of no option: \(generated.subtracting(names).sorted())")
        let infoNames = Set(ImgproxyInfoOptions.table.all.map { $0.names[0] })
        let infoGenerated = Set(ImgproxyArgumentGenerators.info.keys)
        #expect(infoNames.subtracting(infoGenerated) == ImgproxyArgumentGenerators.refusedInfo,
                "info options without a generator: \(infoNames.subtracting(infoGenerated).subtracting(ImgproxyArgumentGenerators.refusedInfo).sorted())")
        #expect(infoGenerated.subtracting(infoNames).isEmpty, "generators of no info option: \(infoGenerated.subtracting(infoNames).sorted())")
        #expect(infoGenerated.isDisjoint(with: ImgproxyArgumentGenerators.refusedInfo))
    }

    /// Segments for a random subset of `table`'s options, each by a random one of its names,
    /// with arguments from `generators`; an option with no generator is an issue.
    static func randomSegments<Options: ImgproxyOptionSet>(
        _ table: ImgproxyOptionTable<Options>, _ generators: [String: ImgproxyArgumentGenerators.Generator],
        skipping skipped: Set<String> = [], chance: Double, using random: inout SplitMix64
    ) -> [String] {
        var segments: [String] = []
        for option in table.all.shuffled(using: &random) where !skipped.contains(option.names[0]) && random.chance(chance) {
            guard let generate = generators[option.names[0]] else {
                Issue.record("\(option.names[0]) has no argument generator")
                continue
            }
            let arguments = generate(&random)
            #expect(!arguments.isEmpty, "\(option.names[0]): a segment without arguments would read as the source")
            segments.append(([option.names.randomElement(using: &random)!] + arguments).joined(separator: ":"))
        }
        return segments
    }

    @Test("10,000 random option sets drawn from the option table, every option by any of its names: written by the builder, the signed URL parses to the same options and plan")
    func randomOptions() throws {
        var random = SplitMix64(state: 0x5EED_0F_1A6E)
        let builder = ImgproxyURLBuilder(baseURL: URL(string: "https://img.example.com/")!, signer: Self.signer)
        // How often each option that writes itself was written: each must come up, not only be drawn.
        var written: [String: Int] = [:]
        for index in 0..<10_000 {
            let segments = Self.randomSegments(ImgproxyOptions.table, ImgproxyArgumentGenerators.processing, chance: 0.25, using: &random)
            let options: ImgproxyOptions
            do {
                options = try ImgproxyOptions(segments: segments)
            } catch {
                Issue.record("case \(index): generated \(segments) was refused: \(error)")
                continue
            }
            for option in ImgproxyOptions.table.all where option.write?(options) != nil { written[option.names[0], default: 0] += 1 }
            #expect(try ImgproxyOptions(segments: options.segments) == options, "case \(index): \(segments) wrote \(options.segments)")

            let extensionFormat: ImageFormat? = random.chance(0.2) ? [.jpeg, .png, .webp].randomElement(using: &random)! : nil
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
        for option in ImgproxyOptions.table.all where option.write != nil {
            #expect(written[option.names[0], default: 0] >= 100, "\(option.names[0]) was written \(written[option.names[0], default: 0]) times")
        }
    }

    @Test("10,000 random /info option sets drawn from the info option table: written by the builder's infoURL, read back as the same options")
    func randomInfoOptions() throws {
        var random = SplitMix64(state: 0x1F0_5EED)
        let builder = ImgproxyURLBuilder(baseURL: URL(string: "https://img.example.com")!, signer: Self.signer)
        var written: [String: Int] = [:]
        for index in 0..<10_000 {
            let segments = Self.randomSegments(
                ImgproxyInfoOptions.table, ImgproxyArgumentGenerators.info, skipping: ImgproxyArgumentGenerators.refusedInfo, chance: 0.3, using: &random
            )
            let options: ImgproxyInfoOptions
            do {
                options = try ImgproxyInfoOptions(segments: segments)
            } catch {
                Issue.record("case \(index): generated \(segments) was refused: \(error)")
                continue
            }
            for option in ImgproxyInfoOptions.table.all where option.write?(options) != nil { written[option.names[0], default: 0] += 1 }
            #expect(try ImgproxyInfoOptions(segments: options.segments) == options, "case \(index): \(segments) wrote \(options.segments)")

            let url = try #require(builder.infoURL(source: "https://cdn.example.com/\(index).jpg", options: options))
            let path = String(url.absoluteString.dropFirst("https://img.example.com/info".count))
            let parsed = try ImgproxyPath(parsing: path)
            #expect(Self.signer.isValid(parsed.signature, for: parsed.signedPart), "case \(index): \(path)")
            #expect(try ImgproxyInfoOptions(segments: parsed.options) == options, "case \(index): \(path)")
            #expect(parsed.source == "https://cdn.example.com/\(index).jpg")
        }
        for option in ImgproxyInfoOptions.table.all where option.write != nil {
            #expect(written[option.names[0], default: 0] >= 100, "\(option.names[0]) was written \(written[option.names[0], default: 0]) times")
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
