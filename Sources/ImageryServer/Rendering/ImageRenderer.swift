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
        let response: ImageResponse
        do {
            response = try await pipeline.image(for: plan.request)
        } catch {
            throw ServerError(error)
        }
        let transparent = response.animation?.frames.contains { $0.image.hasTransparency } ?? response.image.hasTransparency
        let format = negotiation.format(
            requested: plan.format, accepted: accepted, hasTransparency: transparent, isAnimated: response.animation != nil
        )
        let bytes: [UInt8]
        do {
            var encoder = try ImageEncoder(format: format, quality: plan.quality, background: plan.background)
            encoder.avifSpeed = avifSpeed
            bytes = try await Self.encode(response, with: encoder)
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
    private static func encode(_ response: ImageResponse, with encoder: ImageEncoder) async throws(ImageError) -> [UInt8] {
        try await ImagePipeline.runHeavyWork { () throws(ImageError) in
            if let animation = response.animation, ImageEncoder.animatedFormats.contains(encoder.format) {
                try encoder.encode(animation)
            } else {
                try encoder.encode(response.image)
            }
        }
    }
}
