import Imagery
import ImageryCodecs
import ImageryImgproxy

/// A still's encode: autoquality (`aq`) chooses each format's quality, `format:best` keeps the
/// smallest format that is no worse, and `max_bytes` lowers the quality from there. These run
/// on the heavy-work threads, on the processed bitmap: nothing is decoded or resized again.
extension ImageRenderer {
    /// A format to encode in, and what its quality is chosen for (`nil`: its fixed quality).
    struct Candidate: Sendable {
        let encoder: ImageEncoder
        let target: QualityTarget?

        /// Whether its quality search measures DSSIM (`aq:dssim`).
        var measuresDSSIM: Bool {
            if case .dssim? = target?.goal { true } else { false }
        }
    }

    /// What was answered: the body, its format, its quality (`nil` for a format without one),
    /// and how many encodes it took.
    struct Encoded: Sendable {
        let bytes: [UInt8]
        let format: ImageFormat
        let quality: Int?
        let encodes: Int
    }

    /// Waits, at the request's priority, for `bytesPerPixel` beside an image of `pixels`
    /// (``workingBytesPerPixel(_:convertingProfile:)``), charged to the pipeline's budget until
    /// released: encodes wait for memory as decodes do, at most `--concurrency` at once.
    func encodingRoom(for pixels: Int, bytesPerPixel: Int, plan: ImgproxyPlan) async throws(ServerError) -> PixelHold? {
        do {
            return try await pipeline.encodingCharge(
                pixels: Self.charge(for: pixels, bytesPerPixel: bytesPerPixel), priority: plan.request.priority,
                source: plan.request.source.description
            )
        } catch {
            throw ServerError(error)
        }
    }

    /// Whether `bytesPerPixel` beside an image of `pixels` is more than any one piece of work
    /// may take (the pipeline's ceiling), so that waiting for it could never end.
    func exceedsCeiling(pixels: Int, bytesPerPixel: Int) -> Bool {
        guard let ceiling = pipeline.configuration.decodingPixelCeiling else { return false }
        return Self.charge(for: pixels, bytesPerPixel: bytesPerPixel) > ceiling
    }

    /// `bytesPerPixel` beside an image of `pixels`, in the budget's pixels of 4 bytes, rounded
    /// up; past `Int`, more than any budget.
    static func charge(for pixels: Int, bytesPerPixel: Int) -> Int {
        let (bytes, overflow) = pixels.multipliedReportingOverflow(by: bytesPerPixel)
        return overflow ? .max / 4 : (bytes + 3) / 4
    }

    /// Whether encoding as `candidates` measures DSSIM: autoquality's search does, and
    /// `format:best`'s comparison of more than one candidate.
    static func measuresDSSIM(_ candidates: [Candidate]) -> Bool {
        candidates.count > 1 || candidates.contains(where: \.measuresDSSIM)
    }

    /// What encoding a still as `candidates` holds a pixel beside the image: every candidate's
    /// encoder (``ImageEncoder/workingBytesPerPixel(for:)``: `format:best`'s are encoded side by
    /// side, so their rooms add up), the sRGB copy when the profile is converted, and measuring
    /// DSSIM, where autoquality's search or `format:best`'s comparison measures it. A measure
    /// holds the reference's luma with its filtered mean and mean square (12 bytes), and, for
    /// each search measuring at once (the comparisons come after, one at a time), a candidate's
    /// decode, its luma, their products, three filtered planes and a filter's scratch (36).
    static func workingBytesPerPixel(_ candidates: [Candidate], convertingProfile: Bool) -> Int {
        let encoders = candidates.reduce(0) { $0 + ImageEncoder.workingBytesPerPixel(for: $1.encoder.format) }
        let searches = candidates.filter(\.measuresDSSIM).count
        let measures = measuresDSSIM(candidates) ? 12 + 36 * max(1, searches) : 0
        return encoders + (convertingProfile ? 4 : 0) + measures
    }

    /// Where an image has fewer distinct colours than this share of its pixels (drawings, logos,
    /// screenshots, greyscale), `format:best` also tries lossless encodings, which can beat a
    /// lossy codec on both counts there. A photo has far more; a lossless encode of it never
    /// wins, and is not tried. (Its mean gradient does not tell them apart: a smooth sky scores
    /// below an antialiased logo.)
    static let losslessColourShare = 0.05

    /// Whether `image` has few enough colours for lossless encodings to compete; it stops
    /// counting once there are too many.
    static func hasFewColours(_ image: Bitmap) -> Bool {
        // Every other pixel of every other row: a quarter of the work, the same answer for a
        // drawing or a photo.
        let samples = ((image.width + 1) / 2) * ((image.height + 1) / 2)
        let limit = Int(Double(samples) * losslessColourShare)
        var colours = Set<UInt32>(minimumCapacity: min(limit + 1, 1 << 16))
        return image.pixels.withUnsafeBufferPointer { pixels in
            for row in stride(from: 0, to: image.height, by: 2) {
                let start = row * image.bytesPerRow
                for column in stride(from: 0, to: image.width, by: 2) {
                    let at = start + column * 4
                    let colour = UInt32(pixels[at]) << 24 | UInt32(pixels[at + 1]) << 16 | UInt32(pixels[at + 2]) << 8 | UInt32(pixels[at + 3])
                    if colours.insert(colour).inserted, colours.count > limit { return false }
                }
            }
            return true
        }
    }

    /// `image` encoded as the first of `candidates` (the format negotiation chose), or, with
    /// more (`format:best`), as the smallest of them whose DSSIM is no worse than the first's
    /// (or than autoquality's target, where one is set); then, with a byte limit (`max_bytes`)
    /// on a lossy format, at the highest quality whose body fits. DSSIM is measured against
    /// `image` itself, before encoding.
    ///
    /// Everything runs on the heavy-work threads; `format:best`'s candidates are encoded there
    /// side by side, each with its own quality search.
    ///
    /// With `convertingProfile`, the image's colours are converted to sRGB first
    /// (``convertedToSRGB(_:)``), there too.
    static func encode(_ image: Bitmap, convertingProfile: Bool, as candidates: [Candidate], fittingIn limit: Int) async throws(ImageError) -> Encoded {
        try await ImagePipeline.runHeavyWork { () async throws(ImageError) -> Encoded in
            try await encodeOnHeavyWork(convertingProfile ? convertedToSRGB(image) : image, as: candidates, fittingIn: limit)
        }
    }

    private static func encodeOnHeavyWork(_ image: Bitmap, as candidates: [Candidate], fittingIn limit: Int) async throws(ImageError) -> Encoded {
        var encodes = 0
        var (chosen, encoder) = try await choose(image, among: candidates, encodes: &encodes)
        // As imgproxy orders them: the format and quality are chosen, then max_bytes lowers
        // from there, with the same search as aq:size.
        if limit > 0, chosen.bytes.count > limit, chosen.quality > 1, QualitySearch.hasQuality(encoder) {
            encoder.quality = chosen.quality
            let fitted = try encoder.encode(image, choosingQualityFor: QualityTarget(.bytes(limit), qualities: 1...chosen.quality - 1))
            encodes += fitted.encodes
            if fitted.bytes.count < chosen.bytes.count { chosen = fitted }
        }
        let quality = QualitySearch.hasQuality(encoder) ? chosen.quality : nil
        return Encoded(bytes: chosen.bytes, format: encoder.format, quality: quality, encodes: encodes)
    }

    /// The first candidate's encode, or the smallest eligible of every candidate's.
    private static func choose(_ image: Bitmap, among candidates: [Candidate], encodes: inout Int) async throws(ImageError) -> (ChosenQuality, ImageEncoder) {
        let first = candidates[0]
        guard candidates.count > 1 else {
            let chosen = try encoded(image, first)
            encodes += chosen.encodes
            return (chosen, first.encoder)
        }
        var tried = candidates
        if hasFewColours(image) {
            tried += candidates.filter { $0.encoder.format == .webp }.map { candidate in
                var lossless = candidate.encoder
                lossless.lossless = true
                return Candidate(encoder: lossless, target: nil)
            }
        } else {
            // PNG of a photo: never the smallest, unless nothing lossy keeps its alpha.
            tried = tried.enumerated().filter { $0.offset == 0 || $0.element.encoder.format != .png }.map(\.element)
        }
        // The image's SSIM reference, filtered once for every candidate's search and for the
        // comparison below, where either needs it.
        let searchesDSSIM = tried.contains(where: \.measuresDSSIM)
        var reference = searchesDSSIM ? StructuralSimilarity.Reference(image, background: first.encoder.background) : nil
        var results: [(chosen: ChosenQuality, encoder: ImageEncoder)] = []
        for (chosen, candidate) in zip(try await encodedSideBySide(image, tried, reference: reference), tried) {
            encodes += chosen.encodes
            results.append((chosen, candidate.encoder))
        }
        // Only a candidate smaller than negotiation's answer can win, so DSSIM is measured only
        // for those, smallest first, and for that answer itself: often none at all.
        let negotiated = results[0]
        let smaller = results.dropFirst().filter { $0.chosen.bytes.count < negotiated.chosen.bytes.count }
            .sorted { $0.chosen.bytes.count < $1.chosen.bytes.count }
        guard !smaller.isEmpty else { return negotiated }
        func dssim(_ result: (chosen: ChosenQuality, encoder: ImageEncoder)) throws(ImageError) -> Double {
            if result.encoder.lossless || result.encoder.format == .png && result.encoder.pngQuantizationColors == nil { return 0 }
            if let measured = result.chosen.dssim { return measured }
            let measuring = reference ?? StructuralSimilarity.Reference(image, background: first.encoder.background)
            reference = measuring
            return measuring.dssim(try ImageDecoder().decode(result.chosen.bytes, options: .asEncoded))
        }
        // No worse than negotiation's own answer, or than the target autoquality aimed at.
        var bound = try dssim(negotiated)
        if case let .dssim(target, allowedError)? = first.target?.goal { bound = max(bound, target + allowedError) }
        for result in smaller {
            if try dssim(result) <= bound + 1e-9 { return result }
        }
        return negotiated
    }

    /// Every candidate's encode, in `candidates`' order, each a child task on the caller's
    /// executor (the heavy-work threads): the slowest encoder sets the time, not their sum.
    private static func encodedSideBySide(
        _ image: Bitmap, _ candidates: [Candidate], reference: StructuralSimilarity.Reference?
    ) async throws(ImageError) -> [ChosenQuality] {
        let outcomes = await withTaskGroup(of: (Int, Result<ChosenQuality, ImageError>).self) { group in
            for (index, candidate) in candidates.enumerated() {
                group.addTask { (index, Result { () throws(ImageError) in try encoded(image, candidate, reference: reference) }) }
            }
            var outcomes = [Result<ChosenQuality, ImageError>?](repeating: nil, count: candidates.count)
            for await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes
        }
        var chosen: [ChosenQuality] = []
        for outcome in outcomes {
            guard let outcome else { throw .invalidRequest("an encode did not finish") }
            chosen.append(try outcome.get())
        }
        return chosen
    }

    /// `candidate`'s encode at the quality its target chooses, or at its fixed quality.
    private static func encoded(
        _ image: Bitmap, _ candidate: Candidate, reference: StructuralSimilarity.Reference? = nil
    ) throws(ImageError) -> ChosenQuality {
        if let target = candidate.target { return try candidate.encoder.encode(image, choosingQualityFor: target, reference: reference) }
        return ChosenQuality(bytes: try candidate.encoder.encode(image), quality: candidate.encoder.quality, encodes: 1, dssim: nil)
    }
}
