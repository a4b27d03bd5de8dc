import Imagery
import ImageryCodecs
@testable import ImageryServer
import ImageryTestSupport
import Testing

/// imgproxy's encoder settings, end to end: the file a client gets is written as they say.
extension ServerTests {
    @Test("--jpeg-progressive and --png-interlaced (IMGPROXY_JPEG_PROGRESSIVE, _PNG_INTERLACED) change the files clients get; off by default")
    func progressiveAndInterlacedResponses() async throws {
        let origin = try Self.origin()
        defer { origin.stop() }
        let plain = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { plain.cancel() }
        let tuned = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.encoding.jpegProgressive = true
            $0.encoding.pngInterlaced = true
        }
        defer { tuned.cancel() }
        for (server, frame, interlace) in [(plain, UInt8(0xC0), UInt8(0)), (tuned, 0xC2, 1)] {
            let jpeg = try await server.get(Self.plain(origin, "/rocket.jpg", options: "w:120"))
            #expect(ServerHarness.expectImage(jpeg, .jpeg)?.width == 120)
            #expect(EncodedStructure.jpegFrameMarker(jpeg.body) == frame)
            let png = try await server.get(Self.plain(origin, "/rocket.jpg", options: "w:120/f:png"))
            #expect(ServerHarness.expectImage(png, .png)?.width == 120)
            #expect(EncodedStructure.pngInterlaceMethod(png.body) == interlace)
        }
    }

    @Test("IMGPROXY_PNG_QUANTIZE with _PNG_QUANTIZATION_COLORS: PNG answers are indexed, within the colours; off by default")
    func quantizedPNGResponses() async throws {
        let read = try await ServerSettingsTests.load(environment: ["IMGPROXY_PNG_QUANTIZE": "true", "IMGPROXY_PNG_QUANTIZATION_COLORS": "16"])
        #expect(read.configuration.encoding.pngQuantize && read.configuration.encoding.pngQuantizationColors == 16)
        #expect(await ServerSettingsTests.refusal(environment: ["IMGPROXY_PNG_QUANTIZATION_COLORS": "1"])?.setting == "IMGPROXY_PNG_QUANTIZATION_COLORS")
        let origin = try Self.origin()
        defer { origin.stop() }
        let plain = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { plain.cancel() }
        let quantized = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.encoding = read.configuration.encoding
        }
        defer { quantized.cancel() }
        let truecolour = try await plain.get(Self.plain(origin, "/rocket.jpg", options: "w:120/f:png"))
        let indexed = try await quantized.get(Self.plain(origin, "/rocket.jpg", options: "w:120/f:png"))
        #expect(ServerHarness.expectImage(indexed, .png)?.width == 120)
        #expect(EncodedStructure.pngColourType(truecolour.body)?.type == 2)
        #expect(EncodedStructure.pngColourType(indexed.body)?.type == 3)
        #expect((EncodedStructure.pngPaletteEntries(indexed.body) ?? 0) <= 16)
        #expect(indexed.body.count < truecolour.body.count)
    }

    @Test("IMGPROXY_WEBP_PRESET takes imgproxy's names and refuses others by name; IMGPROXY_WEBP_EFFORT takes 1 to 6")
    func webpSettingsFromTheEnvironment() async throws {
        let read = try await ServerSettingsTests.load(environment: ["IMGPROXY_WEBP_PRESET": "drawing", "IMGPROXY_WEBP_EFFORT": "6"])
        #expect(read.configuration.encoding.webpPreset == .drawing && read.configuration.encoding.webpEffort == 6)
        let preset = try #require(await ServerSettingsTests.refusal(environment: ["IMGPROXY_WEBP_PRESET": "cartoon"]))
        #expect(preset.setting == "IMGPROXY_WEBP_PRESET" && preset.reason.contains("photo"), "\(preset)")
        let effort = try #require(await ServerSettingsTests.refusal(environment: ["IMGPROXY_WEBP_EFFORT": "7"]))
        #expect(effort.setting == "IMGPROXY_WEBP_EFFORT", "\(effort)")
    }
}
