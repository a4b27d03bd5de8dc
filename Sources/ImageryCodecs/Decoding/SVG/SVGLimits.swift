import Imagery

/// The bounds an SVG document is held to before it is rendered or served: librsvg cannot be
/// interrupted once it renders, so the document itself is measured first.
///
/// ```swift
/// var limits = SVGLimits()
/// limits.maximumBytes = nil            // imgproxy's SVG_UNLIMITED: any size of document
/// let decoder = ImageDecoder(svgLimits: limits)
/// ```
public struct SVGLimits: Sendable, Hashable {
    /// The largest document, in bytes; `nil` for no limit. Default: 10 MiB, libvips' limit
    /// for SVG, which imgproxy's `SVG_UNLIMITED` lifts (as does `imagery-server --svg-unlimited`).
    public var maximumBytes: Int? = 10 << 20
    /// The most elements, counted as parsed and again with every `<use>` expanded into what it
    /// refers to. Default: 200,000.
    public var maximumElementCount = 200_000
    /// The longest chain of `<use>` elements that refer to content holding more `<use>`
    /// elements. Default: 8.
    public var maximumUseDepth = 8
    /// The most filter primitives run in one render: each element that applies a filter
    /// (`<use>` copies included) counts the primitives of that filter. Default: 100.
    public var maximumFilterCount = 100
    /// The most filter work one render may do, in primitive-pixels: the rendered pixels times,
    /// for each primitive run, its cost per pixel relative to a blur: 1 for most, the octaves
    /// for `feTurbulence`, an eighth of the kernel's area for `feConvolveMatrix` and a 64th of
    /// it for `feMorphology` (its radius measured in rendered pixels). Filters are the one part
    /// of a render whose time grows faster than its pixels. Default: 100 million, about ten
    /// seconds of one core for the costliest primitives.
    public var maximumFilterWork = 100_000_000

    /// The defaults.
    public init() {}

    /// Refuses a document of `count` bytes over ``maximumBytes``: what a server that sends a
    /// document unsanitized still checks.
    package func checkSize(_ count: Int) throws(ImageError) {
        if let maximumBytes, count > maximumBytes {
            throw .corrupt(.svg, detail: "\(count) bytes is over the \(maximumBytes)-byte limit for SVG documents")
        }
    }
}
