extension ImagePipeline {
    private static let sharedStorage = Locked<ImagePipeline?>(nil)

    /// The pipeline to use when you do not make your own, as in Nuke: created on first use
    /// from ``Configuration/platformDefault``, and replaceable. `ImageryUI`'s views and view
    /// model use it unless given another.
    ///
    /// It decodes with no setup: with ImageIO on Apple platforms, and on Linux with
    /// `ImageryCodecs` (libjpeg-turbo, libpng, GIF, and the formats of the enabled traits)
    /// whenever the process links that product.
    ///
    /// ```swift
    /// import Imagery
    /// import ImageryCodecs   // on Linux: the decoders
    ///
    /// let image = try await ImagePipeline.shared.image(for: URL(string: "https://example.com/a.jpg")!)
    /// print(image.width)
    /// ```
    ///
    /// On Linux without `ImageryCodecs`, every decode fails with an ``ImageError`` that says so.
    public static var shared: ImagePipeline {
        get {
            sharedStorage.withLock { shared in
                if let shared { return shared }
                let pipeline = ImagePipeline(configuration: .platformDefault)
                shared = pipeline
                return pipeline
            }
        }
        set { sharedStorage.withLock { $0 = newValue } }
    }
}

extension ImagePipeline.Configuration {
    /// What the platform decodes with no setup: `ImageIODecoder` and a retrying ``DataLoader``
    /// on Apple platforms; on Linux `ImageryCodecs`' `.standard` when the process links it, and
    /// otherwise the same loader with a decoder that refuses every image with a message naming
    /// `ImageryCodecs`.
    ///
    /// ```swift
    /// let pipeline = ImagePipeline(configuration: .platformDefault.with { $0.maximumConcurrentDownloads = 8 })
    /// ```
    public static var platformDefault: Self {
        #if canImport(ImageIO)
        Self(decoder: ImageIODecoder(), dataLoader: RetryingDataLoader(wrapping: DataLoader()))
        #else
        StandardCodecsLookup.linked?.standardConfiguration
            ?? Self(decoder: MissingDecoder(), dataLoader: RetryingDataLoader(wrapping: DataLoader()))
        #endif
    }

    /// The configuration with `ImageryCodecs`' decoders; import it to use `.standard`.
    @available(*, unavailable, message: "import ImageryCodecs: it supplies .standard (libjpeg-turbo, libpng, GIF, WebP)")
    public static var standard: Self { fatalError("unavailable") }
}

/// The decoder of ``ImagePipeline/Configuration/platformDefault`` where the platform has none
/// this module can use (Linux): it says what to import instead.
struct MissingDecoder: ImageDecoding {
    func decode(_ data: [UInt8], options: DecodingOptions) throws(ImageError) -> Bitmap {
        throw Self.refusal(data)
    }

    func decode(_ data: [UInt8], resize: Resize, allowsUpscaling: Bool, options: DecodingOptions) throws(ImageError) -> Bitmap {
        throw Self.refusal(data)
    }

    private static func refusal(_ data: [UInt8]) -> ImageError {
        guard let format = ImageFormat(sniffing: data) else { return .unrecognizedFormat(signature: ImageError.signature(of: data)) }
        return .unsupportedFormat(format, reason: "the Imagery module has no decoder on this platform: import ImageryCodecs and use ImagePipeline.Configuration.standard")
    }
}

/// The role `ImageryCodecs` plays for the core on Linux: it supplies the standard
/// configuration. The core cannot depend on the module that depends on it, so it finds the
/// one conforming type by name at run time (``StandardCodecsLookup``) instead of being told at
/// start, which Swift has no hook for.
package protocol StandardCodecsProviding {
    /// `ImageryCodecs`' `.standard`.
    static var standardConfiguration: ImagePipeline.Configuration { get }
}

/// Finds `ImageryCodecs.StandardCodecs` when the process links `ImageryCodecs`.
package enum StandardCodecsLookup {
    /// The mangled name of `ImageryCodecs.StandardCodecs` (an enum), which `ImageryCodecs`'
    /// tests check against the type itself, so a rename cannot silently break the lookup.
    package static let mangledName = "13ImageryCodecs14StandardCodecsO"

    /// The provider, or `nil` when `ImageryCodecs` is not in the process.
    package static var linked: (any StandardCodecsProviding.Type)? {
        _typeByName(mangledName) as? any StandardCodecsProviding.Type
    }
}
