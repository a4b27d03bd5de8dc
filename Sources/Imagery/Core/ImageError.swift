/// Why an image could not be decoded, processed or encoded.
///
/// Every case names the stage implicitly (decoding, encoding, processing) and carries
/// what was wrong, so `String(describing: error)` reads well in a log:
///
/// ```swift
/// do {
///     _ = try ImageDecoder().decode(data)
/// } catch .tooLarge(let width, let height, let limit) {
///     print("refused \(width)x\(height), limit \(limit) px")
/// } catch {
///     print("decode failed: \(error)")   // "JPEG data is truncated: Premature end of JPEG file"
/// }
/// ```
public enum ImageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// There were no bytes at all.
    case emptyData
    /// The leading bytes match no known image format. `signature` is their hex dump.
    case unrecognizedFormat(signature: String)
    /// The format was recognised, but this build cannot decode or encode it.
    case unsupportedFormat(ImageFormat, reason: String)
    /// The header declares more pixels than ``DecodingOptions/maximumPixelCount`` allows.
    /// Thrown before any pixel memory is allocated.
    case tooLarge(width: Int, height: Int, limit: Int)
    /// The data ended before the image did.
    case truncated(ImageFormat, detail: String)
    /// The data is damaged or hostile; `detail` says what the codec found.
    case corrupt(ImageFormat, detail: String)
    /// An encoder failed.
    case encodingFailed(ImageFormat, detail: String)
    /// A processing request that cannot be honoured (for example a zero target size).
    case invalidRequest(String)
    /// A processor failed; `identifier` names it and `detail` says why.
    case processorFailed(identifier: String, detail: String)

    public var description: String {
        switch self {
        case .emptyData:
            "no image data (0 bytes)"
        case let .unrecognizedFormat(signature):
            "unrecognized image format (first bytes: \(signature.isEmpty ? "none" : signature))"
        case let .unsupportedFormat(format, reason):
            "\(format) is not supported: \(reason)"
        case let .tooLarge(width, height, limit):
            "image is too large: \(width)x\(height) = \(width * height) pixels, limit \(limit)"
        case let .truncated(format, detail):
            "\(format) data is truncated: \(detail)"
        case let .corrupt(format, detail):
            "\(format) data is corrupt: \(detail)"
        case let .encodingFailed(format, detail):
            "\(format) encoding failed: \(detail)"
        case let .invalidRequest(detail):
            "invalid request: \(detail)"
        case let .processorFailed(identifier, detail):
            "processor \(identifier) failed: \(detail)"
        }
    }

    /// The first bytes of `bytes` as hex, for ``unrecognizedFormat(signature:)``.
    package static func signature(of bytes: some Collection<UInt8>) -> String {
        bytes.prefix(12).map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return hex.count == 1 ? "0" + hex : hex
        }.joined(separator: " ")
    }
}
