// Linux stand-in for the parts of Core Graphics (and the Core Foundation types it re-exports)
// that Imagery uses; see Sources/Stubs/README.md. CGFloat, CGSize, CGPoint and CGRect come from
// Foundation on Linux, as on Apple platforms.
#if os(Linux)
@_exported import Foundation

// Core Foundation types bridge toll-free to these Foundation classes on Apple platforms, so
// `[key: value] as CFDictionary` and `Data(...) as CFData` read the same here.
public typealias CFString = NSString
public typealias CFData = NSData
public typealias CFDictionary = NSDictionary

/// https://developer.apple.com/documentation/coregraphics/cgimagealphainfo
public enum CGImageAlphaInfo: UInt32, Sendable {
    case none = 0, premultipliedLast, premultipliedFirst, last, first, noneSkipLast, noneSkipFirst, alphaOnly
}

/// https://developer.apple.com/documentation/coregraphics/cgbitmapinfo
public struct CGBitmapInfo: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let byteOrderDefault = CGBitmapInfo([])
}

/// https://developer.apple.com/documentation/coregraphics/cgcolorrenderingintent
public enum CGColorRenderingIntent: Int32, Sendable {
    case defaultIntent = 0, absoluteColorimetric, relativeColorimetric, perceptual, saturation
}

/// https://developer.apple.com/documentation/coregraphics/cginterpolationquality
public enum CGInterpolationQuality: Int32, Sendable {
    case `default` = 0, none, low, high, medium
}

/// https://developer.apple.com/documentation/coregraphics/cgcolorspace
public final class CGColorSpace {
    public static var sRGB: CFString { "kCGColorSpaceSRGB" }
    public init?(name: CFString) {}
}

/// https://developer.apple.com/documentation/coregraphics/cgdataproviderreleasedatacallback
public typealias CGDataProviderReleaseDataCallback = @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer, Int) -> Void

/// https://developer.apple.com/documentation/coregraphics/cgdataprovider
public final class CGDataProvider {
    private let info: UnsafeMutableRawPointer?
    private let bytes: UnsafeRawPointer
    private let size: Int
    private let releaseData: CGDataProviderReleaseDataCallback

    /// https://developer.apple.com/documentation/coregraphics/cgdataprovider/init(datainfo:data:size:releasedata:)
    public init?(dataInfo info: UnsafeMutableRawPointer?, data: UnsafeRawPointer, size: Int, releaseData: @escaping CGDataProviderReleaseDataCallback) {
        self.info = info
        self.bytes = data
        self.size = size
        self.releaseData = releaseData
    }

    /// https://developer.apple.com/documentation/coregraphics/cgdataprovider/data
    public var data: CFData? { NSData(bytes: bytes, length: size) }

    // Core Graphics calls the release callback once the provider and its images are gone.
    deinit { releaseData(info, bytes, size) }
}

/// https://developer.apple.com/documentation/coregraphics/cgimage
public final class CGImage {
    public let width: Int
    public let height: Int
    public let alphaInfo: CGImageAlphaInfo
    /// https://developer.apple.com/documentation/coregraphics/cgimage/bytesperrow
    public let bytesPerRow: Int
    /// https://developer.apple.com/documentation/coregraphics/cgimage/dataprovider
    public var dataProvider: CGDataProvider? { provider }
    private let provider: CGDataProvider

    /// https://developer.apple.com/documentation/coregraphics/cgimage/init(width:height:bitspercomponent:bitsperpixel:bytesperrow:space:bitmapinfo:provider:decode:shouldinterpolate:intent:)
    public init?(
        width: Int, height: Int, bitsPerComponent: Int, bitsPerPixel: Int, bytesPerRow: Int,
        space: CGColorSpace, bitmapInfo: CGBitmapInfo, provider: CGDataProvider,
        decode: UnsafePointer<CGFloat>?, shouldInterpolate: Bool, intent: CGColorRenderingIntent
    ) {
        self.width = width
        self.height = height
        self.alphaInfo = CGImageAlphaInfo(rawValue: bitmapInfo.rawValue & 0x1F) ?? .none
        self.bytesPerRow = bytesPerRow
        self.provider = provider
    }
}

/// https://developer.apple.com/documentation/coregraphics/cgcontext
public final class CGContext {
    public var interpolationQuality: CGInterpolationQuality = .default

    /// https://developer.apple.com/documentation/coregraphics/cgcontext/init(data:width:height:bitspercomponent:bytesperrow:space:bitmapinfo:)
    public init?(
        data: UnsafeMutableRawPointer?, width: Int, height: Int, bitsPerComponent: Int,
        bytesPerRow: Int, space: CGColorSpace, bitmapInfo: UInt32
    ) {}

    /// https://developer.apple.com/documentation/coregraphics/cgcontext/draw(_:in:bytiling:)
    public func draw(_ image: CGImage, in rect: CGRect, byTiling: Bool = false) {}
}
#endif
