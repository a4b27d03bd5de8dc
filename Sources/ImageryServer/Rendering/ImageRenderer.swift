import Crypto
import HTTPTypes
import Imagery
import ImageryCodecs
import ImageryImgproxy
import Logging
import NIOCore

/// Makes one response: loads the plan's request through the pipeline (which coalesces, caches
/// and limits), encodes it in the negotiated format off the cooperative pool, and tags it.
struct ImageRenderer: Sendable {
    let pipeline: ImagePipeline
    let negotiation: FormatNegotiation
    let avifSpeed: Int
    let cacheControl: String
    let logger: Logger

    func render(_ plan: ImgproxyPlan, accepted: AcceptedFormats) async throws(ServerError) -> CachedResponse {
        let image: Bitmap
        do {
            image = try await pipeline.image(for: plan.request).image
        } catch {
            throw ServerError(error)
        }
        let format = negotiation.format(requested: plan.format, accepted: accepted, hasTransparency: image.hasTransparency)
        let bytes: [UInt8]
        do {
            var encoder = try ImageEncoder(format: format, quality: plan.quality, background: plan.background)
            encoder.avifSpeed = avifSpeed
            bytes = try await Self.encode(image, with: encoder)
        } catch {
            logger.error("encoding failed", metadata: ["format": "\(format)", "error": "\(error)"])
            throw ServerError(status: .internalServerError, message: "encoding failed")
        }
        let digest = SHA256.hash(data: bytes)
        return CachedResponse(
            body: ByteBuffer(bytes: bytes), contentType: format.mimeType,
            etag: "\"" + Base64URL.encode(Array(digest).prefix(16)) + "\"",
            varyAccept: negotiation.variesByAccept(requested: plan.format), cacheControl: cacheControl
        )
    }

    /// Encoding is as heavy as decoding: it runs where the pipeline's decodes run, never on
    /// the cooperative pool that answers `/health`.
    private static func encode(_ image: Bitmap, with encoder: ImageEncoder) async throws(ImageError) -> [UInt8] {
        try await ImagePipeline.runHeavyWork { () throws(ImageError) in try encoder.encode(image) }
    }
}
