/// How to size an image for display. Sizes are in display orientation (after EXIF rotation).
///
/// Imagery never upscales unless you ask: a 100×80 source asked to `.fit(width: 256, height: 256)`
/// stays 100×80.
///
/// ```swift
/// bitmap.resized(.fit(width: 256, height: 256))    // whole image inside the box
/// bitmap.resized(.fill(width: 200, height: 200))   // covers the box, centre-cropped
/// bitmap.resized(.width(320))                      // 320 wide, height follows
/// ```
public enum Resize: Sendable, Hashable, CustomStringConvertible {
    /// Scales to fit inside the box, keeping the aspect ratio.
    case fit(width: Int, height: Int)
    /// Scales to cover the box, keeping the aspect ratio, then crops the centre to the box.
    case fill(width: Int, height: Int)
    /// Scales to the given width, keeping the aspect ratio.
    case width(Int)
    /// Scales to the given height, keeping the aspect ratio.
    case height(Int)

    /// How this resize is written in disk-cache keys. Pinned by a golden test, independent of
    /// ``description``.
    public var identifier: String {
        switch self {
        case let .fit(width, height): "fit \(width)x\(height)"
        case let .fill(width, height): "fill \(width)x\(height)"
        case let .width(width): "width \(width)"
        case let .height(height): "height \(height)"
        }
    }

    public var description: String {
        switch self {
        case let .fit(width, height): "fit \(width)x\(height)"
        case let .fill(width, height): "fill \(width)x\(height)"
        case let .width(width): "width \(width)"
        case let .height(height): "height \(height)"
        }
    }

    /// Works out the output size and the source region for a source of `source` pixels.
    ///
    /// - Throws: ``ImageError/invalidRequest(_:)`` for a zero or negative target.
    public func plan(for source: PixelSize, allowsUpscaling: Bool = false) throws(ImageError) -> ResizePlan {
        let sw = Double(source.width), sh = Double(source.height)
        func limited(_ scale: Double) -> Double { allowsUpscaling ? scale : min(scale, 1) }
        switch self {
        case let .fit(width, height):
            guard width > 0, height > 0 else { throw .invalidRequest("fit target \(width)x\(height) must be positive") }
            let scale = limited(min(Double(width) / sw, Double(height) / sh))
            return ResizePlan(
                outputSize: PixelSize(width: Self.round(sw * scale, max: allowsUpscaling ? .max : width),
                                      height: Self.round(sh * scale, max: allowsUpscaling ? .max : height)),
                sourceRect: SourceRect(x: 0, y: 0, width: sw, height: sh)
            )
        case let .fill(width, height):
            guard width > 0, height > 0 else { throw .invalidRequest("fill target \(width)x\(height) must be positive") }
            let cover = max(Double(width) / sw, Double(height) / sh)
            // Without upscaling, a small source gives the largest centred crop of the box's aspect ratio.
            let shrink = allowsUpscaling ? 1 : min(1, 1 / cover)
            let output = PixelSize(width: Self.round(Double(width) * shrink, max: width),
                                   height: Self.round(Double(height) * shrink, max: height))
            let scale = cover * shrink
            let cropWidth = min(sw, Double(output.width) / scale)
            let cropHeight = min(sh, Double(output.height) / scale)
            return ResizePlan(
                outputSize: output,
                sourceRect: SourceRect(x: (sw - cropWidth) / 2, y: (sh - cropHeight) / 2, width: cropWidth, height: cropHeight)
            )
        case .width(let length), .height(let length):
            guard length > 0 else { throw .invalidRequest("target \(self) must be positive") }
            let scale = limited(Double(length) / (self == .width(length) ? sw : sh))
            return ResizePlan(
                outputSize: PixelSize(width: Self.round(sw * scale, max: .max), height: Self.round(sh * scale, max: .max)),
                sourceRect: SourceRect(x: 0, y: 0, width: sw, height: sh)
            )
        }
    }

    private static func round(_ value: Double, max limit: Int) -> Int {
        Swift.max(1, Swift.min(limit, Int(value.rounded())))
    }
}

/// The outcome of ``Resize/plan(for:allowsUpscaling:)``.
public struct ResizePlan: Sendable, Hashable {
    /// The size of the image to produce.
    public var outputSize: PixelSize
    /// The region of the source that maps onto the output, in source pixels.
    public var sourceRect: SourceRect

    /// A plan that maps `sourceRect` onto an image of `outputSize`.
    public init(outputSize: PixelSize, sourceRect: SourceRect) {
        self.outputSize = outputSize
        self.sourceRect = sourceRect
    }

    /// Output pixels per source pixel (at most 1 unless upscaling).
    public var scale: Double {
        max(Double(outputSize.width) / sourceRect.width, Double(outputSize.height) / sourceRect.height)
    }

    /// The same plan for a source stored with its axes swapped (EXIF orientations 5–8).
    package var transposed: ResizePlan {
        ResizePlan(
            outputSize: PixelSize(width: outputSize.height, height: outputSize.width),
            sourceRect: SourceRect(x: sourceRect.y, y: sourceRect.x, width: sourceRect.height, height: sourceRect.width)
        )
    }
}

/// A rectangle in continuous source-pixel coordinates: pixel `k` covers `k..<k+1`.
public struct SourceRect: Sendable, Hashable {
    /// Left edge, in source pixels.
    public var x: Double
    /// Top edge, in source pixels.
    public var y: Double
    /// Width, in source pixels.
    public var width: Double
    /// Height, in source pixels.
    public var height: Double

    /// A rectangle from its origin and size.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}
