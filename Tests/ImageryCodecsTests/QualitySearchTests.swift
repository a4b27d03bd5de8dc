import Imagery
import ImageryCodecs
import ImageryTestSupport
import Testing

/// Autoquality's search on a real photo, each result checked by encoding and measuring again.
@Suite("Choosing a quality (autoquality)")
struct QualitySearchTests {
    static let photo = try! ImageDecoder().decode(Fixtures.bytes("reference_ssim_rocket_200x134.png"))

    @Test("A DSSIM goal is met by a quality whose encode measures within the allowed error, in at most six encodes", arguments: [0.005, 0.01, 0.02])
    func dssimGoal(_ target: Double) throws {
        let format = ImageFormat.jpeg
        let allowed = 0.002
        let chosen = try ImageEncoder(format: format).encode(Self.photo, choosingQualityFor: QualityTarget(.dssim(target, allowedError: allowed), qualities: 5...100))
        let measured = StructuralSimilarity.Reference(Self.photo).dssim(try ImageDecoder().decode(chosen.bytes))
        #expect(ImageFormat(sniffing: chosen.bytes) == format)
        #expect(chosen.encodes <= 6)
        #expect(abs(measured - (chosen.dssim ?? -1)) < 1e-9, "the reported DSSIM is the encode's own")
        #expect(measured <= target + allowed, "q\(chosen.quality): DSSIM \(measured) over \(target) + \(allowed)")
        // Not needlessly high: five qualities lower is over the target (DSSIM falls as quality rises).
        if chosen.quality > 5 {
            let lower = try ImageEncoder(format: format, quality: max(5, chosen.quality - 5)).encode(Self.photo)
            #expect(StructuralSimilarity.Reference(Self.photo).dssim(try ImageDecoder().decode(lower)) > target - allowed)
        }
    }

    @Test("A stricter DSSIM goal never chooses a lower quality")
    func monotonic() throws {
        let encoder = try ImageEncoder(format: .jpeg)
        let qualities = try [0.04, 0.02, 0.01, 0.005].map { target in
            try encoder.encode(Self.photo, choosingQualityFor: QualityTarget(.dssim(target, allowedError: 0.001), qualities: 5...100)).quality
        }
        #expect(qualities == qualities.sorted(), "\(qualities)")
    }

    @Test("A goal out of reach gives the range's bound: the highest quality for DSSIM, the smallest tried for bytes")
    func outOfReach() throws {
        let encoder = try ImageEncoder(format: .jpeg)
        let strict = try encoder.encode(Self.photo, choosingQualityFor: QualityTarget(.dssim(0.00001, allowedError: 0), qualities: 30...60))
        #expect(strict.quality == 60)
        let tiny = try encoder.encode(Self.photo, choosingQualityFor: QualityTarget(.bytes(10), qualities: 30...60))
        #expect(tiny.quality == 30 && tiny.bytes.count > 10)
    }

    @Test("A size goal is an encode within the limit, in the range, and larger than the lowest quality's")
    func bytesGoal() throws {
        let encoder = try ImageEncoder(format: .jpeg)
        let lowest = try ImageEncoder(format: .jpeg, quality: 20).encode(Self.photo).count
        let highest = try ImageEncoder(format: .jpeg, quality: 95).encode(Self.photo).count
        let limit = (lowest + highest) / 2
        let chosen = try encoder.encode(Self.photo, choosingQualityFor: QualityTarget(.bytes(limit), qualities: 20...95))
        #expect(chosen.bytes.count <= limit && chosen.bytes.count > lowest)
        #expect((20...95).contains(chosen.quality) && chosen.encodes <= 6)
    }

    @Test("Formats without a quality are encoded once, as they are")
    func lossless() throws {
        let chosen = try ImageEncoder(format: .png).encode(Self.photo, choosingQualityFor: QualityTarget(.bytes(10), qualities: 1...100))
        #expect(chosen.encodes == 1 && ImageFormat(sniffing: chosen.bytes) == .png)
    }
}
