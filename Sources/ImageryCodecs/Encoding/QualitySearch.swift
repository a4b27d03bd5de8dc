#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Imagery

/// The encode a ``QualityTarget`` chose, and what it took.
public struct ChosenQuality: Sendable {
    /// The encoded image.
    public let bytes: [UInt8]
    /// The quality it was encoded at.
    public let quality: Int
    /// How many encodes the search made (at most ``QualitySearch/maximumEncodes``).
    public let encodes: Int
    /// Its DSSIM against the image, when the goal was DSSIM.
    public let dssim: Double?

    package init(bytes: [UInt8], quality: Int, encodes: Int, dssim: Double?) {
        self.bytes = bytes
        self.quality = quality
        self.encodes = encodes
        self.dssim = dssim
    }
}

/// The search behind ``ImageEncoder/encode(_:choosingQualityFor:)``: it starts from a quality
/// predicted from the image's own detail rather than the middle of the range, then steps by
/// the secant of log DSSIM against quality (DSSIM falls about exponentially as quality rises),
/// within a bracket that only narrows, and stops at the first encode within the allowed error.
/// Nothing loops: it stops after ``maximumEncodes``.
package enum QualitySearch {
    /// The most encodes one search makes; an image that never meets its target stops here, at
    /// the highest quality tried.
    static let maximumEncodes = 6

    /// How fast log DSSIM falls per quality step before two encodes have measured it: the
    /// median over the team corpus's photos at 800 px between qualities 70 and 80, with
    /// libjpeg-turbo. The secant replaces it after the second encode, so a poor value costs
    /// encodes, never the result.
    static let typicalSlope = -0.027

    /// Whether `encoder` writes with a quality a search can choose: lossy JPEG, WebP, AVIF,
    /// HEIC and JPEG XL.
    package static func hasQuality(_ encoder: ImageEncoder) -> Bool {
        [.jpeg, .webp, .avif, .heic, .jxl].contains(encoder.format) && !encoder.lossless
    }

    static func dssim(
        _ image: Bitmap, encoder: ImageEncoder, target: Double, allowedError: Double, qualities: ClosedRange<Int>,
        reference: StructuralSimilarity.Reference?
    ) throws(ImageError) -> ChosenQuality {
        let reference = reference ?? StructuralSimilarity.Reference(image, background: encoder.background)
        var encoder = encoder
        var low = qualities.lowerBound, high = qualities.upperBound
        var tried: [(quality: Int, dssim: Double, bytes: [UInt8])] = []
        var quality = min(high, max(low, predictedQuality(image, target: target)))
        func measure(_ quality: Int) throws(ImageError) -> (Double, [UInt8]) {
            encoder.quality = quality
            let bytes = try encoder.encode(image)
            let decoded = try ImageDecoder().decode(bytes, options: .asEncoded)
            return (reference.dssim(decoded), bytes)
        }
        while tried.count < maximumEncodes {
            let (dssim, bytes) = try measure(quality)
            tried.append((quality, dssim, bytes))
            if abs(dssim - target) <= allowedError { break }
            if dssim > target + allowedError { low = quality + 1 } else { high = quality - 1 }
            guard low <= high else { break }
            quality = next(after: tried, target: target, within: low...high)
        }
        let acceptable = tried.filter { $0.dssim <= target + allowedError }.min { $0.quality < $1.quality }
        if let acceptable { return ChosenQuality(bytes: acceptable.bytes, quality: acceptable.quality, encodes: tried.count, dssim: acceptable.dssim) }
        // Even the highest quality tried misses the target: the highest quality allowed is used.
        if let best = tried.first(where: { $0.quality == qualities.upperBound }) {
            return ChosenQuality(bytes: best.bytes, quality: best.quality, encodes: tried.count, dssim: best.dssim)
        }
        let (dssim, bytes) = try measure(qualities.upperBound)
        return ChosenQuality(bytes: bytes, quality: qualities.upperBound, encodes: tried.count + 1, dssim: dssim)
    }

    static func bytes(_ image: Bitmap, encoder: ImageEncoder, limit: Int, qualities: ClosedRange<Int>) throws(ImageError) -> ChosenQuality {
        var encoder = encoder
        var low = qualities.lowerBound, high = qualities.upperBound
        var best: (quality: Int, bytes: [UInt8])?, smallest: (quality: Int, bytes: [UInt8])?
        var encodes = 0
        while low <= high, encodes < maximumEncodes {
            encoder.quality = encodes == 0 ? high : (low + high + 1) / 2
            let bytes = try encoder.encode(image)
            encodes += 1
            if bytes.count <= limit {
                best = (encoder.quality, bytes)
                low = encoder.quality + 1
            } else {
                if smallest == nil || bytes.count < smallest!.bytes.count { smallest = (encoder.quality, bytes) }
                high = encoder.quality - 1
            }
        }
        let chosen = best ?? smallest!
        return ChosenQuality(bytes: chosen.bytes, quality: chosen.quality, encodes: encodes, dssim: nil)
    }

    /// The next quality to try: the secant through the last two measurements in log DSSIM,
    /// or the typical slope through one, rounded into the bracket.
    static func next(after tried: [(quality: Int, dssim: Double, bytes: [UInt8])], target: Double, within bracket: ClosedRange<Int>) -> Int {
        let last = tried[tried.count - 1]
        var slope = typicalSlope
        if tried.count >= 2 {
            let previous = tried[tried.count - 2]
            let measured = (log(max(last.dssim, 1e-6)) - log(max(previous.dssim, 1e-6))) / Double(last.quality - previous.quality)
            if measured < -0.001, measured.isFinite { slope = measured }
        }
        let step = (log(max(target, 1e-6)) - log(max(last.dssim, 1e-6))) / slope
        let quality = Int((Double(last.quality) + step).rounded())
        return min(bracket.upperBound, max(bracket.lowerBound, quality))
    }

    /// A first quality from the image's detail: the mean green gradient, measured on every
    /// other pixel (detailed images need more quality for the same DSSIM). The line is a least-
    /// squares fit of the quality each of the team corpus's photos needs for DSSIM 0.02 at
    /// 800 px with libjpeg-turbo; its error is wide (greyscale and noisy photos sit far from
    /// it), but, like ``typicalSlope``, it only decides how many encodes the search takes: a
    /// prediction below the range's minimum that the minimum meets takes one.
    static func predictedQuality(_ image: Bitmap, target: Double) -> Int {
        let gradient = detail(image)
        // Other targets move it by the typical slope.
        let quality = -36 + 38.5 * log(1 + gradient) + log(0.02 / max(target, 1e-6)) / -typicalSlope
        return Int(quality.rounded())
    }

    /// The image's detail: the mean absolute difference of green between neighbours, on every
    /// other pixel.
    package static func detail(_ image: Bitmap) -> Double {
        var total = 0, count = 0
        image.pixels.withUnsafeBufferPointer { pixels in
            for row in stride(from: 0, to: image.height - 1, by: 2) {
                let start = row * image.bytesPerRow
                for column in stride(from: 0, to: image.width - 1, by: 2) {
                    let at = start + column * 4
                    let here = Int(pixels[at + 1]), right = Int(pixels[at + 5]), below = Int(pixels[at + image.bytesPerRow + 1])
                    total += abs(here - right) + abs(here - below)
                    count += 1
                }
            }
        }
        return Double(total) / Double(max(1, count))
    }
}

extension ImageEncoder {
    /// `bitmap` encoded at the quality `target` chooses for it (JPEG, WebP, AVIF): see
    /// ``QualityTarget``. A format without a quality (PNG, GIF, BMP, ICO) is encoded as it is.
    ///
    /// ```swift
    /// let chosen = try ImageEncoder(format: .webp).encode(photo, choosingQualityFor: QualityTarget(.bytes(50_000), qualities: 40...90))
    /// ```
    public func encode(_ bitmap: Bitmap, choosingQualityFor target: QualityTarget) throws(ImageError) -> ChosenQuality {
        try encode(bitmap, choosingQualityFor: target, reference: nil)
    }

    /// As ``encode(_:choosingQualityFor:)``, measuring DSSIM against `reference`, the SSIM
    /// reference of `bitmap` on this encoder's background, where the caller has one: encoders
    /// searching the same image in several formats share it rather than each filtering it.
    package func encode(
        _ bitmap: Bitmap, choosingQualityFor target: QualityTarget, reference: StructuralSimilarity.Reference?
    ) throws(ImageError) -> ChosenQuality {
        guard QualitySearch.hasQuality(self) else { return ChosenQuality(bytes: try encode(bitmap), quality: quality, encodes: 1, dssim: nil) }
        switch target.goal {
        case let .dssim(value, allowedError):
            return try QualitySearch.dssim(
                bitmap, encoder: self, target: value, allowedError: allowedError, qualities: target.qualities, reference: reference
            )
        case let .bytes(limit):
            return try QualitySearch.bytes(bitmap, encoder: self, limit: limit, qualities: target.qualities)
        }
    }
}
