extension ImageDecoding {
    /// Decodes `data` straight to the size `resize` asks for: asks the codec for a draft
    /// twice the target (so the Lanczos-3 stage still has room to anti-alias), then resizes.
    /// Decoders with a faster path (orientation and colour after resizing) override this.
    public func decode(
        _ data: [UInt8], resize: Resize, allowsUpscaling: Bool, options: DecodingOptions
    ) throws(ImageError) -> Bitmap {
        var options = options
        options.draft = allowsUpscaling ? nil : resize.scaled(by: 2)
        return try decode(data, options: options).resized(resize, allowsUpscaling: allowsUpscaling)
    }
}

extension Resize {
    /// The same kind of resize with every dimension multiplied by `factor`.
    package func scaled(by factor: Int) -> Resize {
        switch self {
        case let .fit(width, height): .fit(width: width * factor, height: height * factor)
        case let .fill(width, height): .fill(width: width * factor, height: height * factor)
        case let .width(width): .width(width * factor)
        case let .height(height): .height(height * factor)
        }
    }
}
