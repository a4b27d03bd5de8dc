import Crypto
import HTTPTypes
import Imagery
import ImageryCodecs
import ImageryImgproxy
import Logging
import NIOCore
import Tracing

/// Makes one response: loads the plan's request through the pipeline (which coalesces, caches
/// and limits), encodes it in the negotiated format off the cooperative pool (an animation frame
/// by frame, as its stream is read), and tags it.
///
/// The image stays charged to the pipeline's pixel budget until it is encoded, so new decodes
/// wait for the encoder rather than piling images up in front of it.
struct ImageRenderer: Sendable {
    let pipeline: ImagePipeline
    let negotiation: FormatNegotiation
    let encoding: EncoderSettings
    /// What an SVG source is answered with.
    let svg: SVGSettings
    /// How answers' caching and validation headers are written.
    let headers: ResponseHeaderPolicy
    /// Seconds since 1970: when an answer is made.
    let now: @Sendable () -> Int
    let logger: Logger
    /// Told how many encodes each still took (autoquality and `format:best` take several).
    var encodes: (@Sendable (Int) -> Void)?

    func render(_ plan: ImgproxyPlan, accepted: AcceptedFormats) async throws(ServerError) -> CachedResponse {
        var request = plan.request
        if headers.passesCacheControlThrough {
            // The source's freshness is the answer's: an image the pipeline kept from an earlier
            // download may be past it, so every answer made reads the source again (as imgproxy,
            // which keeps nothing, does). The response tiers keep answers within that freshness.
            request.options.formUnion(.reloadIgnoringCachedData)
        }
        if plan.bypass != nil || plan.maximumSourceBytes > 0 {
            // The source's bytes first: to serve them as they are, or to hold them to the URL's
            // own size limit. Decoding then starts from them, not from a second download.
            let bytes: [UInt8], source: SourceHeaders
            do {
                (bytes, source) = try await pipeline.original(for: request)
            } catch {
                throw ServerError(error)
            }
            if plan.maximumSourceBytes > 0, bytes.count > plan.maximumSourceBytes {
                var error = ServerError(status: .unprocessableContent, message: "source: \(bytes.count) bytes is over the \(plan.maximumSourceBytes)-byte limit")
                error.isSourceFailure = true
                throw error
            }
            let format = ImageFormat(sniffing: bytes)
            if let bypass = plan.bypass, bypass.skips(format, requested: plan.format) {
                // Only images: raw bytes of any other type would be served from this origin.
                guard let format else { throw ServerError(status: .unsupportedMediaType, message: "source: not an image format this server reads") }
                // An SVG is a document a browser runs: unprocessed still means sanitized.
                if format == .svg { return try await svgAnswer(bytes, of: request, source: source) }
                let size = ImageHeader.size(of: bytes, format: format)
                let facts = ResponseFacts(
                    originBytes: bytes.count, originWidth: size?.width, originHeight: size?.height, resultWidth: size?.width, resultHeight: size?.height
                )
                return tagged(bytes, contentType: format.mimeType, varyAccept: false, source: source, facts: facts)
            }
            if format == .svg, svg.passesThrough(requested: plan.format, best: plan.bestFormat) {
                return try await svgAnswer(bytes, of: request, source: source)
            }
            request.source = .bytes(id: "bytes:" + request.source.identity, bytes)
            return try await render(plan, request: request, accepted: accepted, source: source)
        }
        return try await render(plan, request: request, accepted: accepted, source: nil)
    }

    /// Renders `request` as `plan` says; `source` is what the source said, when its bytes were
    /// fetched first (else the pipeline's response carries it).
    private func render(
        _ plan: ImgproxyPlan, request: ImageRequest, accepted: AcceptedFormats, source: SourceHeaders?
    ) async throws(ServerError) -> CachedResponse {
        // An SVG source is known once it is decoded, or refused by a build that cannot render
        // it; passed through, it is read again as bytes (the pipeline shares a download under
        // way, and keeps none), since nothing before the decode names its format.
        let passesThrough = svg.passesThrough(requested: plan.format, best: plan.bestFormat)
        let response: ImageResponse, hold: PixelHold?
        do {
            // Held until encoded (see ``ImagePipeline/heldResponse(for:)``). A request that
            // waits too long is cut short by `--request-timeout` (``RequestDeadline``), which
            // cancels this: the request leaves the pipeline, whose work for it stops unless
            // another request shares it.
            (response, hold) = try await pipeline.heldResponse(for: request)
        } catch .decodingFailed(_, .unsupportedFormat(.svg, _)) where passesThrough {
            return try await svgPassedThrough(request)
        } catch {
            throw ServerError(error)
        }
        defer { hold?.release() }   // once encoded; release() runs once
        if response.image.metadata.format == .svg {
            if passesThrough {
                hold?.release()   // the render is not sent: its pixels go back before the second read
                return try await svgPassedThrough(request)
            }
        } else if plan.format == .svg {
            throw ServerError(status: .unprocessableContent, message: "format: only an SVG source is answered as SVG")
        }
        // A stream's poster stands for its frames: an animation goes out as GIF or WebP, which
        // both keep alpha, so transparency only picks between JPEG and PNG for a still.
        let format = negotiation.format(
            requested: plan.format, accepted: accepted, hasTransparency: response.image.hasTransparency, isAnimated: response.isAnimated,
            source: response.image.metadata.format
        )
        let origin = response.image.metadata
        var facts = ResponseFacts(originBytes: origin.sourceByteCount, originWidth: origin.originalSize.width, originHeight: origin.originalSize.height)
        let bytes: [UInt8], answered: ImageFormat
        // One span over every encode the answer takes: autoquality's steps and format:best's
        // candidates are its cost, and are counted on it rather than each made a span.
        let span = InstrumentationSystem.tracer.startSpan("imagery.encode", context: ServiceContext.current ?? .topLevel)
        defer { span.end() }
        let pixels = response.image.width * response.image.height
        if let stream = response.animationStream, ImageEncoder.animatedFormats.contains(format) {
            // Frames are encoded one at a time, each the poster's size.
            let room = try await encodingRoom(for: pixels, bytesPerPixel: ImageEncoder.workingBytesPerPixel(for: format), plan: plan)
            defer { room?.release() }
            let size: PixelSize?
            (bytes, size) = try await encode(stream, with: try encoder(format, for: plan))
            (answered, facts.resultWidth, facts.resultHeight) = (format, size?.width, size?.height)
        } else {
            let limit = plan.maximumBytes
            // format:best competes only where nothing else names the format, and only for stills.
            var formats = [format]
            if plan.bestFormat, plan.format == nil {
                formats += negotiation.bestCandidates(accepted: accepted, hasTransparency: response.image.hasTransparency).filter { $0 != format }
            }
            let converts = Self.losesProfile(response.image, to: formats)
            var described = response.image   // its metadata as sent: the profile goes with the conversion
            if converts { described.metadata.embedded?.iccProfile = nil }
            let embedded = Self.embedded(for: described, as: plan.metadata, upright: !plan.request.ignoresEXIFOrientation)
            var candidates: [Candidate] = []
            for candidate in formats {
                var encoder = try encoder(candidate, for: plan)
                encoder.embeddedMetadata = embedded
                candidates.append(Candidate(encoder: encoder, target: plan.qualityTarget(for: candidate, pixels: pixels)))
            }
            var perPixel = Self.workingBytesPerPixel(candidates, convertingProfile: converts)
            if Self.measuresDSSIM(candidates), exceedsCeiling(pixels: pixels, bytesPerPixel: perPixel) {
                // Measuring DSSIM on an image this large could never have room: it is skipped, as
                // past autoquality's resolution limit, and negotiation's format goes out at its
                // fixed quality, rather than the request being refused.
                candidates = [Candidate(encoder: candidates[0].encoder, target: candidates[0].measuresDSSIM ? nil : candidates[0].target)]
                perPixel = Self.workingBytesPerPixel(candidates, convertingProfile: converts)
            }
            let room = try await encodingRoom(for: pixels, bytesPerPixel: perPixel, plan: plan)
            defer { room?.release() }
            let encoded: Encoded
            do {
                encoded = try await Self.encode(response.image, convertingProfile: converts, as: candidates, fittingIn: limit)
            } catch {
                throw encodingFailed(format, error)
            }
            (bytes, answered) = (encoded.bytes, encoded.format)
            (facts.resultWidth, facts.resultHeight, facts.quality) = (response.image.width, response.image.height, encoded.quality)
            encodes?(encoded.encodes)
            span.attributes["imagery.encodes"] = encoded.encodes
        }
        span.attributes["imagery.format"] = answered.rawValue
        span.attributes["imagery.bytes"] = bytes.count
        return tagged(
            bytes, contentType: answered.mimeType, varyAccept: negotiation.variesByAccept(requested: plan.format),
            source: source ?? response.sourceHeaders, facts: facts
        )
    }

    /// The encoder for `format` with the plan's quality and background and the server's settings.
    private func encoder(_ format: ImageFormat, for plan: ImgproxyPlan) throws(ServerError) -> ImageEncoder {
        do {
            return encoding.applied(to: try ImageEncoder(format: format, quality: plan.formatQuality[format] ?? plan.quality, background: plan.background))
        } catch {
            throw encodingFailed(format, error)
        }
    }

    /// The SVG source of `request`, answered as SVG.
    private func svgPassedThrough(_ request: ImageRequest) async throws(ServerError) -> CachedResponse {
        let bytes: [UInt8], source: SourceHeaders
        do {
            (bytes, source) = try await pipeline.original(for: request)
        } catch {
            throw ServerError(error)
        }
        return try await svgAnswer(bytes, of: request, source: source)
    }

    /// `bytes`, the SVG document of `request`'s source, as ``SVGSettings`` says to send it
    /// (sanitized by default).
    private func svgAnswer(_ bytes: [UInt8], of request: ImageRequest, source: SourceHeaders) async throws(ServerError) -> CachedResponse {
        let settings = svg
        let document: [UInt8]
        do {
            document = try await ImagePipeline.runHeavyWork { () throws(ImageError) in try settings.answer(bytes) }
        } catch {
            throw ServerError(.decodingFailed(source: request.source.description, error))
        }
        return tagged(document, contentType: ImageFormat.svg.mimeType, varyAccept: false, source: source, facts: ResponseFacts(originBytes: bytes.count))
    }

    /// A response of `bytes`, its ETag their digest, with the freshness of a source that said
    /// `source`, and `facts` for the debug headers.
    private func tagged(_ bytes: [UInt8], contentType: String, varyAccept: Bool, source: SourceHeaders, facts: ResponseFacts) -> CachedResponse {
        CachedResponse(
            body: ByteBuffer(bytes: bytes), contentType: contentType, etag: CachedResponse.tag(of: bytes, buster: headers.etagBuster),
            varyAccept: varyAccept, source: source, facts: facts, madeAt: now(), policy: headers
        )
    }

    /// Reads, processes and encodes an animation a frame at a time, on the threads the
    /// pipeline decodes on (encoding is as heavy as decoding, and never runs on the cooperative
    /// pool that answers `/health`): the response holds one frame and the encoder's output,
    /// whatever the frame count. A frame that fails to decode or process answers as the
    /// pipeline's own failures do. The size is the frames' (the first's), once processed.
    private func encode(_ stream: AnimationStream, with encoder: ImageEncoder) async throws(ServerError) -> ([UInt8], PixelSize?) {
        let result = await ImagePipeline.runHeavyWork { () async -> Result<([UInt8], PixelSize?), ServerError> in
            var frames = stream.frames()
            var size: PixelSize?
            do throws(ImageError) {
                var writer = try encoder.animationWriter(loopCount: stream.loopCount)
                while true {
                    let frame: AnimationFrame?
                    do throws(ImagePipelineError) {
                        frame = try await frames.next()
                    } catch {
                        return .failure(ServerError(error))
                    }
                    guard let frame else { break }
                    if size == nil { size = PixelSize(width: frame.image.width, height: frame.image.height) }
                    try writer.add(frame)
                }
                return .success((try writer.finish(), size))
            } catch let .invalidRequest(detail) {
                // A processor that sizes frames by their content (a trim) gave them different sizes.
                return .failure(ServerError(.processingFailed(source: "", .invalidRequest(detail))))
            } catch {
                return .failure(encodingFailed(encoder.format, error))
            }
        }
        return try result.get()
    }

    private func encodingFailed(_ format: ImageFormat, _ error: ImageError) -> ServerError {
        logger.error("encoding failed", metadata: ["format": "\(format)", "error": "\(error)"])
        return ServerError(status: .internalServerError, message: "encoding failed", detail: "\(format): \(error)")
    }
}
