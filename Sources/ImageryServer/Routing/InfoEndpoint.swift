import Crypto
import Foundation
import Hummingbird
import Imagery
import ImageryImgproxy
import Logging
import NIOCore

/// Answers `/info/{signature}/{info options}/{source}`, imgproxy's info endpoint, open: the
/// source's size, format and dimensions from its bytes and header, and the fields that need
/// pixels (average, dominant colours, palette, BlurHash, ThumbHash, perceptual hash) from a
/// draft of at most 100 × 100 that the pipeline decodes within its budget. Answers go through
/// the response tiers as images do, by the path as sent.
struct InfoEndpoint: Sendable {
    let preflight: RequestPreflight
    let pipeline: ImagePipeline
    let tiers: ResponseTiers
    let settings: String
    /// How answers' caching and validation headers are written.
    let headers: ResponseHeaderPolicy
    /// Seconds since 1970: when an answer is made.
    let now: @Sendable () -> Int
    /// How failures are logged and answered.
    let errors: ErrorReporting
    let logger: Logger

    /// The largest side of the draft the pixel fields are computed on.
    static let draftSide = 100

    func respond(to request: Request) async -> Response {
        let path = request.uri.path
        let (key, cookies) = preflight.cookiePassthrough.variant(of: request, accepted: .other, settings: settings)
        do throws(ServerError) {
            return try await tiers.answer(key, conditions: CachedResponse.Conditions(request.headers)) { () throws(ServerError) in
                let asked = try preflight.info(for: String(path.dropFirst("/info".count)), cookies: cookies)
                var checked = ResponseTiers.Checked(expires: asked.options.expires)
                checked.isPrivate = asked.source.carriesCookies
                return (asked, checked)
            } work: { asked throws(ServerError) in
                try await info(asked.options, source: asked.source)
            }
        } catch {
            return errors.response(for: error, what: "info failed", isPrivate: cookies != nil)
        }
    }

    private func info(_ options: ImgproxyInfoOptions, source: ImageSource) async throws(ServerError) -> CachedResponse {
        let bytes: [UInt8], sourceHeaders: SourceHeaders
        do {
            (bytes, sourceHeaders) = try await pipeline.original(for: ImageRequest(source: source))
        } catch {
            throw ServerError(error)
        }
        guard let format = ImageFormat(sniffing: bytes) else {
            throw ServerError(status: .unsupportedMediaType, message: "source: not an image format this server reads")
        }
        if let expected = options.expectedHashsum, ImageInfo.digest(expected.type, of: bytes) != expected.hex {
            throw ServerError(status: .unprocessableContent, message: "hashsum: the source's \(expected.type) does not match")
        }
        var draft: Bitmap?
        if ImageInfo.needsDraft(options, format: format) {
            // From the bytes already here, not a second download; still through the pipeline,
            // for its decoding budget, its coalescing and its memory cache.
            let side = Self.draftSide
            var request = ImageRequest(source: .bytes(id: "info:" + source.identity, bytes), resize: .fit(width: side, height: side))
            request.maximumPixelCount = preflight.defaults.maximumPixelCount
            do {
                draft = try await pipeline.response(for: request).image
            } catch {
                throw ServerError(error)
            }
        }
        let info = ImageInfo(bytes: bytes, format: format, draft: draft)
        let body: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            body = try encoder.encode(try info.answer(options))
        } catch {
            throw ServerError(status: .internalServerError, message: "info failed")
        }
        return CachedResponse(
            body: ByteBuffer(bytes: body), contentType: "application/json", etag: CachedResponse.tag(of: body, buster: headers.etagBuster),
            varyAccept: false, source: sourceHeaders, madeAt: now(), policy: headers
        )
    }
}
