import Foundation
import Imagery
import ImageryCodecs
@testable import ImageryServer
import ImageryTestSupport
import Testing

/// `/info`'s colour fields against an image whose colours are known: each swatch must be the
/// colour that fits it, not merely present.
extension ServerTests {
    /// A 100×100 PNG in bands: 60% pure red, 15% pure blue, 10% dark green, 10% mid grey and 5%
    /// light pink. Small enough to be its own draft, so no resampling mixes the bands.
    static let knownColours: [UInt8] = {
        let bands: [(rows: Int, colour: [UInt8])] = [
            (60, [255, 0, 0]), (15, [0, 0, 255]), (10, [0, 90, 0]), (10, [120, 120, 120]), (5, [255, 180, 180]),
        ]
        var pixels: [UInt8] = []
        for band in bands {
            for _ in 0..<(band.rows * 100) { pixels += band.colour + [255] }
        }
        return try! ImageEncoder(format: .png).encode(Bitmap(width: 100, height: 100, pixels: pixels, alphaMode: .opaque))
    }()

    static func colour(_ field: [String: Int]?) -> RGBA? {
        guard let field, let red = field["R"], let green = field["G"], let blue = field["B"] else { return nil }
        return RGBA(red: UInt8(clamping: red), green: UInt8(clamping: green), blue: UInt8(clamping: blue))
    }

    @Test("/info's dominant colours are the image's: vibrant is the large red, not the smaller blue; dark vibrant the green, light vibrant the pink, muted the grey; build_missed derives the missing ones from the grey")
    func dominantColourValues() async throws {
        let origin = try TestHTTPServer { request in request.path == "/bands.png" ? .ok(Self.knownColours) : .status(404) }
        defer { origin.stop() }
        let server = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { server.cancel() }
        func swatches(_ options: String) async throws -> [String: RGBA] {
            let fields = try Self.json(try await server.get(Self.info(origin, "/bands.png", options: options)))
            let dominant = try #require(fields["dominant_colors"] as? [String: [String: Int]], "\(fields)")
            return dominant.compactMapValues(Self.colour)
        }
        func near(_ colour: RGBA?, _ red: Int, _ green: Int, _ blue: Int) -> Bool {
            guard let colour else { return false }
            return Self.distance(colour, RGBA(red: UInt8(red), green: UInt8(green), blue: UInt8(blue))) <= 8
        }

        // Red and blue are both fully saturated at half lightness: the larger population wins.
        let found = try await swatches("dc:1")
        #expect(near(found["vibrant"], 255, 0, 0), "\(String(describing: found["vibrant"]))")
        #expect(near(found["dark_vibrant"], 0, 90, 0), "\(String(describing: found["dark_vibrant"]))")
        #expect(near(found["light_vibrant"], 255, 180, 180), "\(String(describing: found["light_vibrant"]))")
        #expect(near(found["muted"], 120, 120, 120), "\(String(describing: found["muted"]))")
        // No colour of the image is a light or a dark muted one, and none is invented.
        #expect(Set(found.keys) == ["vibrant", "dark_vibrant", "light_vibrant", "muted"])

        // build_missed fills them in: the grey's hue and saturation at the swatch's target lightness.
        let built = try await swatches("dc:1:1")
        #expect(Set(built.keys) == ["vibrant", "light_vibrant", "dark_vibrant", "muted", "light_muted", "dark_muted"])
        #expect(near(built["light_muted"], 189, 189, 189), "\(String(describing: built["light_muted"]))")
        #expect(near(built["dark_muted"], 66, 66, 66), "\(String(describing: built["dark_muted"]))")
        #expect(built["vibrant"] == found["vibrant"] && built["muted"] == found["muted"])

        // The palette has the five colours, most common first.
        let fields = try Self.json(try await server.get(Self.info(origin, "/bands.png", options: "p:5/avg:1")))
        let palette = try #require(fields["palette"] as? [[String: Int]]).compactMap(Self.colour)
        #expect(palette.count == 5 && near(palette.first, 255, 0, 0) && near(palette.dropFirst().first, 0, 0, 255), "\(palette)")
        // The average is the bands' weighted mean.
        let average = try #require(Self.colour(fields["average"] as? [String: Int]))
        let red = (60 * 255 + 10 * 120 + 5 * 255) / 100, green = (10 * 90 + 10 * 120 + 5 * 180) / 100, blue = (15 * 255 + 10 * 120 + 5 * 180) / 100
        #expect(near(average, red, green, blue), "\(average) against \(red), \(green), \(blue)")
    }
}
