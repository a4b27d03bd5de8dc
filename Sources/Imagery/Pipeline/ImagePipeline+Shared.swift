extension ImagePipeline {
    private static let sharedStorage = Locked<ImagePipeline?>(nil)

    /// The pipeline to use when you do not make your own, as in Nuke: created on first use
    /// from ``Configuration/platformDefault``, and replaceable. `ImageryUI`'s views and view
    /// model use it unless given another.
    ///
    /// On Apple platforms it decodes with ImageIO and needs no setup. On Linux the `Imagery`
    /// module has no decoder (the codecs are C libraries, in `ImageryCodecs`), so set it once
    /// at start:
    ///
    /// ```swift
    /// import Imagery
    /// import ImageryCodecs
    ///
    /// ImagePipeline.shared = ImagePipeline(configuration: .standard)
    /// let response = try await ImagePipeline.shared.image(for: URL(string: "https://example.com/a.jpg")!)
    /// ```
    ///
    /// Left unset on Linux, every decode fails with an ``ImageError`` that says so.
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
    /// What the platform can decode with nothing but this module: `ImageIODecoder` and a
    /// retrying ``DataLoader`` on Apple platforms. Elsewhere the same loader with a decoder
    /// that refuses every image with a message naming `ImageryCodecs`' `.standard`, which
    /// is what to use there.
    ///
    /// ```swift
    /// let pipeline = ImagePipeline(configuration: .platformDefault.with { $0.maximumConcurrentDownloads = 8 })
    /// ```
    public static var platformDefault: Self {
        #if canImport(ImageIO)
        Self(decoder: ImageIODecoder(), dataLoader: RetryingDataLoader(wrapping: DataLoader()))
        #else
        Self(decoder: MissingDecoder(), dataLoader: RetryingDataLoader(wrapping: DataLoader()))
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
