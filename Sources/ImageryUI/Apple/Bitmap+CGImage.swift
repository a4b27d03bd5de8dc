import Imagery
#if canImport(CoreGraphics)
import CoreGraphics
#else
import CoreGraphicsStub
#endif

extension Bitmap {
    /// A Core Graphics image of this bitmap: one copy of the pixels into a buffer the image
    /// owns and frees when Core Graphics is done with it (a 256×256 thumbnail is 256 KB, a
    /// `memcpy` of microseconds). sRGB (what every Imagery decoder produces); alpha as
    /// `alphaMode` says; stored orientation (pass `orientation` to SwiftUI's `Image` or
    /// `UIImage`).
    ///
    /// ```swift
    /// let response = try await pipeline.response(for: request)
    /// if let cgImage = response.image.makeCGImage() {
    ///     Image(decorative: cgImage, scale: 2)
    /// }
    /// ```
    public func makeCGImage() -> CGImage? {
        guard let space = CGColorSpace(name: CGColorSpace.sRGB) else { return nil }
        // A pointer into a Swift array is valid only inside `withUnsafeBytes`, so the image
        // cannot borrow `pixels`: it gets a buffer of its own, released by the provider.
        let count = pixels.count
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 16)
        pixels.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: count) }
        guard let provider = CGDataProvider(
            dataInfo: nil, data: buffer, size: count,
            releaseData: { _, data, _ in UnsafeMutableRawPointer(mutating: data).deallocate() }
        ) else {
            buffer.deallocate()
            return nil
        }
        let alpha: CGImageAlphaInfo = switch alphaMode {
        case .opaque: .noneSkipLast
        case .straight: .last
        case .premultiplied: .premultipliedLast
        }
        return CGImage(
            width: width, height: height, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: bytesPerRow,
            space: space, bitmapInfo: CGBitmapInfo(rawValue: alpha.rawValue), provider: provider,
            decode: nil, shouldInterpolate: true, intent: .defaultIntent
        )
    }
}
