import Foundation

// `Data` where a Foundation caller meets bytes. The protocols take `[UInt8]`, which the
// decoders read in place; each of these overloads is one copy, which `imagery-bench pipeline`
// measures against the decode it feeds.

extension ImageDecoding {
    /// Decodes `data` at full size: ``decode(_:options:)`` for `Data`.
    ///
    /// ```swift
    /// let bitmap = try decoder.decode(try Data(contentsOf: fileURL))
    /// ```
    public func decode(_ data: Data, options: DecodingOptions = DecodingOptions()) throws(ImageError) -> Bitmap {
        try decode([UInt8](data), options: options)
    }
}

extension ImageEncoding {
    /// Encodes `bitmap` into `Data`, ready to write or upload.
    ///
    /// ```swift
    /// try encoder.encodedData(thumbnail).write(to: outputURL)
    /// ```
    public func encodedData(_ bitmap: Bitmap) throws(ImageError) -> Data {
        Data(try encode(bitmap))
    }
}
