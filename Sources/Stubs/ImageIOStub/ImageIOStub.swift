// Linux stand-in for the parts of ImageIO that Imagery uses; see Sources/Stubs/README.md.
// The functions return nil: nothing here decodes.
#if os(Linux)
@_exported import CoreGraphicsStub

/// https://developer.apple.com/documentation/imageio/cgimagesource
public final class CGImageSource {}

/// https://developer.apple.com/documentation/imageio/cgimagesourcestatus
public enum CGImageSourceStatus: Int32, Sendable {
    case statusUnexpectedEOF = -5, statusInvalidData = -4, statusUnknownType = -3
    case statusReadingHeader = -2, statusIncomplete = -1, statusComplete = 0
}

/// https://developer.apple.com/documentation/imageio/cgimagesourcecreatewithdata(_:_:)
public func CGImageSourceCreateWithData(_ data: CFData, _ options: CFDictionary?) -> CGImageSource? { nil }
/// https://developer.apple.com/documentation/imageio/cgimagesourcegetcount(_:)
public func CGImageSourceGetCount(_ isrc: CGImageSource) -> Int { 0 }
/// https://developer.apple.com/documentation/imageio/cgimagesourcegetstatus(_:)
public func CGImageSourceGetStatus(_ isrc: CGImageSource) -> CGImageSourceStatus { .statusInvalidData }
/// https://developer.apple.com/documentation/imageio/cgimagesourcecopypropertiesatindex(_:_:_:)
public func CGImageSourceCopyPropertiesAtIndex(_ isrc: CGImageSource, _ index: Int, _ options: CFDictionary?) -> CFDictionary? { nil }
/// https://developer.apple.com/documentation/imageio/cgimagesourcecreatethumbnailatindex(_:_:_:)
public func CGImageSourceCreateThumbnailAtIndex(_ isrc: CGImageSource, _ index: Int, _ options: CFDictionary?) -> CGImage? { nil }

/// https://developer.apple.com/documentation/imageio/kcgimagesourcethumbnailmaxpixelsize
public var kCGImageSourceThumbnailMaxPixelSize: CFString { "kCGImageSourceThumbnailMaxPixelSize" }
/// https://developer.apple.com/documentation/imageio/kcgimagesourcecreatethumbnailfromimagealways
public var kCGImageSourceCreateThumbnailFromImageAlways: CFString { "kCGImageSourceCreateThumbnailFromImageAlways" }
/// https://developer.apple.com/documentation/imageio/kcgimagesourcecreatethumbnailwithtransform
public var kCGImageSourceCreateThumbnailWithTransform: CFString { "kCGImageSourceCreateThumbnailWithTransform" }
/// https://developer.apple.com/documentation/imageio/kcgimagesourceshouldcacheimmediately
public var kCGImageSourceShouldCacheImmediately: CFString { "kCGImageSourceShouldCacheImmediately" }
/// https://developer.apple.com/documentation/imageio/kcgimagesourceshouldcache
public var kCGImageSourceShouldCache: CFString { "kCGImageSourceShouldCache" }
/// https://developer.apple.com/documentation/imageio/kcgimagepropertypixelwidth
public var kCGImagePropertyPixelWidth: CFString { "PixelWidth" }
/// https://developer.apple.com/documentation/imageio/kcgimagepropertypixelheight
public var kCGImagePropertyPixelHeight: CFString { "PixelHeight" }
/// https://developer.apple.com/documentation/imageio/kcgimagepropertyorientation
public var kCGImagePropertyOrientation: CFString { "Orientation" }
#endif
