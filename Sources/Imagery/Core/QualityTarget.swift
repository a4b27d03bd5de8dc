/// What a lossy encode's quality is chosen for, image by image: imgproxy's "autoquality".
///
/// ```swift
/// // The lowest quality whose DSSIM is 0.02 ± 0.002, between 70 and 80:
/// let target = QualityTarget(.dssim(0.02, allowedError: 0.002), qualities: 70...80)
/// let chosen = try ImageEncoder(format: .jpeg).encode(photo, choosingQualityFor: target)   // ImageryCodecs
/// print(chosen.quality, chosen.bytes.count, chosen.encodes)
/// ```
public struct QualityTarget: Sendable, Hashable {
    /// What the chosen quality must reach.
    public enum Goal: Sendable, Hashable {
        /// The lowest quality whose DSSIM ((1 − SSIM) / 2 of BT.601 luma, Gaussian window,
        /// against the image before encoding) is within `allowedError` of the target, or the
        /// lowest tried under target plus error; the highest quality where none reaches it.
        case dssim(Double, allowedError: Double)
        /// The highest quality whose encoded size is at most this many bytes; the lowest quality
        /// where none is.
        case bytes(Int)
    }

    public var goal: Goal
    /// The qualities the search may choose from.
    public var qualities: ClosedRange<Int>

    public init(_ goal: Goal, qualities: ClosedRange<Int>) {
        self.goal = goal
        self.qualities = max(1, qualities.lowerBound)...min(100, max(qualities.upperBound, qualities.lowerBound))
    }
}

