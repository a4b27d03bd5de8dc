/// Turns one bitmap into another: a crop, a blur, rounded corners, an app's own effect.
///
/// A processor's ``identifier`` goes into memory- and disk-cache keys and decides which
/// requests share one processing run, so it must name everything that changes the output
/// and be the same across launches and machines. Processors in
/// ``ImageRequest/processors`` run in order, and the order is part of the key.
///
/// ```swift
/// var request = ImageRequest(url: avatarURL, resize: .fill(width: 96, height: 96))
/// request.processors = [.sharpen(sigma: 0.8), .circle]
/// let avatar = try await pipeline.response(for: request)
///
/// struct Sepia: ImageProcessing {
///     var identifier: String { "com.example.sepia" }
///     func process(_ image: Bitmap) throws(ImageError) -> Bitmap { ... }
/// }
/// ```
///
/// A processor that must await (Core Image, an ML model, the app's own async code)
/// implements ``process(_:context:)``, or is written as ``ImageProcessors/AsyncClosure``.
/// The pipeline always calls that method, off its own isolation domain, and cancels the
/// task it runs in when the last caller waiting for the result leaves.
public protocol ImageProcessing: Sendable {
    /// A stable name for this processor and its parameters, for example `"blur(8.0)"`.
    var identifier: String { get }

    /// Returns the processed image. Input bitmaps from the pipeline are upright
    /// (``ImageOrientation/up``), with straight alpha or opaque.
    func process(_ image: Bitmap) throws(ImageError) -> Bitmap

    /// Returns the processed image where the processor may suspend. The default calls
    /// ``process(_:)``.
    func process(_ image: Bitmap, context: ImageProcessingContext) async throws(ImageError) -> Bitmap
}

extension ImageProcessing {
    public func process(_ image: Bitmap, context: ImageProcessingContext) async throws(ImageError) -> Bitmap {
        try process(image)
    }
}

/// What a processor is told about the request it runs for.
public struct ImageProcessingContext: Sendable {
    /// The request the image was loaded for (the first of the callers that share the run).
    public let request: ImageRequest

    /// A context for `request`.
    public init(request: ImageRequest) {
        self.request = request
    }
}

/// The built-in processors. Write them through the static factories (`.crop(...)`,
/// `.blur(sigma: 8)`, `.roundedCorners(12)`, `.circle`), which read as sentences where an
/// `any ImageProcessing` is expected:
///
/// ```swift
/// request.processors = [.fill(width: 400, height: 300, gravity: .smart), .blur(sigma: 2)]
/// let edited = try ImageProcessors.Rotate(degrees: 90).process(bitmap)
/// ```
public enum ImageProcessors {}

extension [any ImageProcessing] {
    /// The identifiers in order, as they go into cache keys: empty for no processors, the
    /// common case on the hot path, which then allocates nothing.
    package var cacheIdentifier: String {
        isEmpty ? "" : map(\.identifier).joined(separator: "|")
    }
}

/// A built-in processor that can change the bitmap it is given in place. The pipeline hands
/// it a bitmap that nothing else holds, so the run makes no copy of its input; called through
/// ``ImageProcessing/process(_:)``, it copies as any processor does.
package protocol InPlaceImageProcessing: ImageProcessing {
    func process(_ image: inout Bitmap) throws(ImageError)
}

extension Bitmap {
    /// The image as processors expect it: upright, and with straight alpha.
    package var prepared: Bitmap {
        var copy = self
        copy.prepare()
        return copy
    }

    /// ``prepared`` in place: an upright bitmap that nothing else holds is not copied.
    package mutating func prepare() {
        if orientation != .up { self = oriented() }
        makeStraightAlpha()
    }
}
