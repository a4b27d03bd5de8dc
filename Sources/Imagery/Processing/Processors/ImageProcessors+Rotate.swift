extension ImageProcessors {
    /// Turns the image clockwise by a multiple of 90 degrees, exactly (no resampling).
    ///
    /// ```swift
    /// request.processors = [.rotate(degrees: 90)]
    /// ```
    public struct Rotate: ImageProcessing, Hashable {
        /// The clockwise angle: 0, 90, 180 or 270 (other multiples of 90 are reduced;
        /// anything else is refused when the processor runs).
        public var degrees: Int

        /// A clockwise turn by `degrees`.
        public init(degrees: Int) {
            self.degrees = degrees
        }

        public var identifier: String { "rotate(\(degrees))" }

        public func process(_ image: Bitmap) throws(ImageError) -> Bitmap {
            guard degrees % 90 == 0 else {
                throw .invalidRequest("rotation by \(degrees) degrees: only multiples of 90 are supported")
            }
            // An EXIF orientation is the transform that makes stored pixels upright, so
            // each turn is the orientation that describes it.
            let turns = ((degrees / 90) % 4 + 4) % 4
            let orientation: ImageOrientation = [.up, .right, .down, .left][turns]
            return image.prepared.transformed(by: orientation)
        }
    }

    /// Mirrors the image, exactly.
    ///
    /// ```swift
    /// request.processors = [.flip(.horizontal)]
    /// ```
    public struct Flip: ImageProcessing, Hashable {
        /// Which way to mirror.
        public enum Axis: String, Sendable, Hashable {
            /// Left becomes right.
            case horizontal
            /// Top becomes bottom.
            case vertical
        }

        /// Which way to mirror.
        public var axis: Axis

        /// A mirror along `axis`.
        public init(_ axis: Axis) {
            self.axis = axis
        }

        public var identifier: String { "flip(\(axis.rawValue))" }

        public func process(_ image: Bitmap) throws(ImageError) -> Bitmap {
            image.prepared.transformed(by: axis == .horizontal ? .upMirrored : .downMirrored)
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.Rotate {
    /// A clockwise turn by a multiple of 90 degrees.
    ///
    /// ```swift
    /// request.processors = [.rotate(degrees: 270)]
    /// ```
    public static func rotate(degrees: Int) -> Self { Self(degrees: degrees) }
}

extension ImageProcessing where Self == ImageProcessors.Flip {
    /// A mirror image along `axis`.
    ///
    /// ```swift
    /// request.processors = [.flip(.vertical)]
    /// ```
    public static func flip(_ axis: ImageProcessors.Flip.Axis) -> Self { Self(axis) }
}

extension Bitmap {
    /// The upright image transformed as `orientation` describes.
    fileprivate func transformed(by orientation: ImageOrientation) -> Bitmap {
        guard orientation != .up else { return self }
        var turned = self
        turned.orientation = orientation
        var result = turned.oriented()
        result.metadata = metadata
        return result
    }
}
