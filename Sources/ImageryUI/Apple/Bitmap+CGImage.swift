import Imagery
#if canImport(CoreGraphics)
import CoreGraphics
#else
import CoreGraphicsStub
#endif

extension Bitmap {
    /// A Core Graphics image over this bitmap's pixels, without copying them: the image keeps
    /// the pixel buffer alive and releases it when Core Graphics is done with it. sRGB (what
    /// every Imagery decoder produces); alpha as `alphaMode` says; stored orientation (pass
    /// `orientation` to SwiftUI's `Image` or `UIImage`).
    ///
    /// ```swift
    /// let response = try await pipeline.image(for: request)
    /// if let cgImage = response.image.makeCGImage() {
    ///     Image(decorative: cgImage, scale: 2)
    /// }
    /// ```
    public func makeCGImage() -> CGImage? {
        guard let space = CGColorSpace(name: CGColorSpace.sRGB) else { return nil }
        let storage = PixelStorage(pixels)
        let info = Unmanaged.passRetained(storage).toOpaque()
        guard let provider = CGDataProvider(
            dataInfo: info, data: storage.baseAddress, size: storage.count,
            releaseData: { info, _, _ in
                if let info { Unmanaged<PixelStorage>.fromOpaque(info).release() }
            }
        ) else {
            Unmanaged<PixelStorage>.fromOpaque(info).release()
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

/// Owns the pixel array for as long as a `CGImage` reads it.
private final class PixelStorage {
    let pixels: [UInt8]
    let baseAddress: UnsafeRawPointer
    var count: Int { pixels.count }

    init(_ pixels: [UInt8]) {
        self.pixels = pixels
        // A native array's buffer does not move while a reference to it is held and it is not
        // mutated; `pixels` is a `let` this object owns, so the address stays valid for its life.
        self.baseAddress = pixels.withUnsafeBytes { UnsafeRawPointer($0.baseAddress!) }
    }
}
