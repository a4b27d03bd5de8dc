import Foundation

/// A ThumbHash: a placeholder of about 25 bytes that decodes to a blurred 32-pixel picture of an
/// image, with its aspect ratio, its average colour and its transparency (Evan Wallace's
/// published algorithm: a DCT of the image in an LPQA colour space, quantised to 4 bits a
/// coefficient).
///
/// ```swift
/// let hash = try ThumbHash(image: thumbnail)
/// print(hash.hex)                          // up to 25 bytes in hex: what /info's th:1 answers
/// let placeholder = ThumbHash(bytes: hash.bytes)?.image()   // about 32x21, blurred
/// ```
public struct ThumbHash: Sendable, Hashable {
    /// The hash, 5 to 25 bytes.
    public let bytes: [UInt8]

    /// The hash of `image`, fitted within 100 × 100 first as the algorithm requires (a draft
    /// of that size is all it needs).
    ///
    /// - Throws: ``ImageError`` when the fitting resize fails.
    public init(image: Bitmap) throws(ImageError) {
        var image = image
        if image.width > 100 || image.height > 100 { image = try image.resized(.fit(width: 100, height: 100)) }
        bytes = Self.encode(image.withStraightAlpha())
    }

    /// A hash read back from its bytes; `nil` when they are too short to be one.
    public init?(bytes: [UInt8]) {
        guard bytes.count >= 5 else { return nil }
        let hasAlpha = bytes[2] & 0x80 != 0
        guard !hasAlpha || bytes.count >= 6 else { return nil }
        self.bytes = bytes
    }

    /// The bytes in lowercase hexadecimal.
    public var hex: String { Hex.encode(bytes) }

    /// The bytes in standard base64, the form the reference implementation's demo shows.
    public var base64: String { Data(bytes).base64EncodedString() }

    private var header: (dc: LPQ, lScale: Double, hasAlpha: Bool, pScale: Double, qScale: Double, isLandscape: Bool, lx: Int, ly: Int) {
        let low = Int(bytes[0]) | Int(bytes[1]) << 8 | Int(bytes[2]) << 16
        let high = Int(bytes[3]) | Int(bytes[4]) << 8
        let hasAlpha = low >> 23 != 0, isLandscape = high >> 15 != 0
        let dc = LPQ(l: Double(low & 63) / 63, p: Double(low >> 6 & 63) / 31.5 - 1, q: Double(low >> 12 & 63) / 31.5 - 1)
        let long = hasAlpha ? 5 : 7
        return (
            dc, Double(low >> 18 & 31) / 31, hasAlpha, Double(high >> 3 & 63) / 63, Double(high >> 9 & 63) / 63, isLandscape,
            isLandscape ? long : high & 7, isLandscape ? high & 7 : long
        )
    }

    /// Width over height of the image, as far as the hash keeps it (its luminance grid's).
    public var aspectRatio: Double {
        let header = header
        return Double(header.lx) / Double(header.ly)
    }

    /// The image's average colour, alpha included, each channel 0–1.
    public var averageColor: (red: Double, green: Double, blue: Double, alpha: Double) {
        let header = header
        let alpha = header.hasAlpha ? Double(bytes[5] & 15) / 15 : 1
        let rgb = header.dc.rgb
        return (clamp(rgb.red), clamp(rgb.green), clamp(rgb.blue), alpha)
    }

    /// The placeholder: 32 pixels on its long side, the aspect ratio kept, straight alpha.
    public func image() -> Bitmap {
        let header = header
        var reader = NibbleReader(bytes: bytes, start: header.hasAlpha ? 6 : 5)
        let alphaDC = header.hasAlpha ? Double(bytes[5] & 15) / 15 : 1
        let alphaScale = header.hasAlpha ? Double(bytes[5] >> 4) / 15 : 0
        let lx = max(3, header.lx), ly = max(3, header.ly)
        let lAC = reader.coefficients(nx: lx, ny: ly, scale: header.lScale)
        let pAC = reader.coefficients(nx: 3, ny: 3, scale: header.pScale * 1.25)
        let qAC = reader.coefficients(nx: 3, ny: 3, scale: header.qScale * 1.25)
        let aAC = header.hasAlpha ? reader.coefficients(nx: 5, ny: 5, scale: alphaScale) : []
        let ratio = aspectRatio
        let width = Int(jsRound(ratio > 1 ? 32 : 32 * ratio)), height = Int(jsRound(ratio > 1 ? 32 / ratio : 32))
        let columns = max(lx, header.hasAlpha ? 5 : 3), rows = max(ly, header.hasAlpha ? 5 : 3)
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        var fy = [Double](repeating: 0, count: rows)
        // Each column's cosines once, not once per row, stored by column so that four pixels'
        // cosines sit side by side (the width padded to four).
        let padded = (width + 3) & ~3
        var columnCosines = [Double](repeating: 0, count: columns * padded)
        for column in 0..<columns {
            for x in 0..<width { columnCosines[column * padded + x] = cos(.pi / Double(width) * (Double(x) + 0.5) * Double(column)) }
        }
        // Four pixels at a time, one lane each: every lane computes the reference's own terms,
        // in its order, with the same rounding (no lane mixes with another), so the pixels stay
        // identical; four independent sums simply keep the processor busy where one sum waited
        // on its previous addition.
        let lTerms = Self.terms(nx: lx, ny: ly), pqTerms = Self.terms(nx: 3, ny: 3), aTerms = Self.terms(nx: 5, ny: 5)
        let hasAlpha = header.hasAlpha, dc = header.dc
        columnCosines.withUnsafeBufferPointer { cosines in
            let base = UnsafeRawPointer(cosines.baseAddress!)
            func cosinesAt(column: Int, x: Int) -> SIMD4<Double> {
                base.loadUnaligned(fromByteOffset: (column * padded + x) * MemoryLayout<Double>.stride, as: SIMD4<Double>.self)
            }
            for y in 0..<height {
                for row in 0..<rows { fy[row] = cos(.pi / Double(height) * (Double(y) + 0.5) * Double(row)) }
                var x = 0
                while x < width {
                    var l = SIMD4<Double>(repeating: dc.l), p = SIMD4<Double>(repeating: dc.p), q = SIMD4<Double>(repeating: dc.q)
                    var alpha = SIMD4<Double>(repeating: alphaDC)
                    for (index, term) in lTerms.enumerated() {
                        l += SIMD4(repeating: lAC[index]) * cosinesAt(column: term.column, x: x) * fy[term.row] * 2
                    }
                    for (index, term) in pqTerms.enumerated() {
                        let f = cosinesAt(column: term.column, x: x) * fy[term.row] * 2
                        p += SIMD4(repeating: pAC[index]) * f
                        q += SIMD4(repeating: qAC[index]) * f
                    }
                    if hasAlpha {
                        for (index, term) in aTerms.enumerated() {
                            alpha += SIMD4(repeating: aAC[index]) * cosinesAt(column: term.column, x: x) * fy[term.row] * 2
                        }
                    }
                    for lane in 0..<min(4, width - x) {
                        let rgb = LPQ(l: l[lane], p: p[lane], q: q[lane]).rgb, out = (y * width + x + lane) * 4
                        // The reference stores into bytes by truncation.
                        pixels[out] = UInt8(max(0, 255 * min(1, rgb.red)))
                        pixels[out + 1] = UInt8(max(0, 255 * min(1, rgb.green)))
                        pixels[out + 2] = UInt8(max(0, 255 * min(1, rgb.blue)))
                        pixels[out + 3] = UInt8(max(0, 255 * min(1, alpha[lane])))
                    }
                    x += 4
                }
            }
        }
        return Bitmap(width: width, height: height, pixels: pixels, alphaMode: header.hasAlpha ? .straight : .opaque)
    }
}

extension ThumbHash {
    /// The coefficients of an `nx` × `ny` triangle (the DC left out) in the order the hash
    /// stores them: row by row, each row `cx * ny < nx * (ny - cy)` long.
    static func terms(nx: Int, ny: Int) -> [(column: Int, row: Int)] {
        var terms: [(column: Int, row: Int)] = []
        for cy in 0..<ny {
            var cx = cy > 0 ? 0 : 1
            while cx * ny < nx * (ny - cy) {
                terms.append((cx, cy))
                cx += 1
            }
        }
        return terms
    }

    /// Luminance and two chroma channels: the colour space the hash stores.
    struct LPQ {
        var l: Double
        var p: Double
        var q: Double

        var rgb: (red: Double, green: Double, blue: Double) {
            let blue = l - 2 / 3 * p
            let red = (3 * l - blue + q) / 2
            return (red, red - q, blue)
        }
    }

    /// Reads the AC coefficients, 4 bits each, low nibble first, in the encoder's order.
    struct NibbleReader {
        let bytes: [UInt8]
        let start: Int
        var index = 0

        mutating func coefficients(nx: Int, ny: Int, scale: Double) -> [Double] {
            ThumbHash.terms(nx: nx, ny: ny).map { _ in
                let position = start + index >> 1
                let nibble = position < bytes.count ? Int(bytes[position]) >> ((index & 1) * 4) & 15 : 0
                index += 1
                return (Double(nibble) / 7.5 - 1) * scale
            }
        }
    }

    /// The hash of `image` (straight alpha, at most 100 × 100).
    static func encode(_ image: Bitmap) -> [UInt8] {
        let width = image.width, height = image.height, count = width * height
        var average = (red: 0.0, green: 0.0, blue: 0.0, alpha: 0.0)
        for y in 0..<height {
            for x in 0..<width {
                let pixel = image.pixel(x: x, y: y), alpha = Double(pixel.alpha) / 255
                average.red += alpha / 255 * Double(pixel.red)
                average.green += alpha / 255 * Double(pixel.green)
                average.blue += alpha / 255 * Double(pixel.blue)
                average.alpha += alpha
            }
        }
        if average.alpha > 0 {
            average.red /= average.alpha
            average.green /= average.alpha
            average.blue /= average.alpha
        }
        let hasAlpha = average.alpha < Double(count)
        let limit = Double(hasAlpha ? 5 : 7), longest = Double(max(width, height))
        let lx = max(1, Int(jsRound(limit * Double(width) / longest))), ly = max(1, Int(jsRound(limit * Double(height) / longest)))
        // Every pixel composited over the average colour, then split into L, P, Q and A.
        var l = [Double](repeating: 0, count: count), p = l, q = l, a = l
        for y in 0..<height {
            for x in 0..<width {
                let pixel = image.pixel(x: x, y: y), alpha = Double(pixel.alpha) / 255, index = y * width + x
                let red = average.red * (1 - alpha) + alpha / 255 * Double(pixel.red)
                let green = average.green * (1 - alpha) + alpha / 255 * Double(pixel.green)
                let blue = average.blue * (1 - alpha) + alpha / 255 * Double(pixel.blue)
                l[index] = (red + green + blue) / 3
                p[index] = (red + green) / 2 - blue
                q[index] = red - green
                a[index] = alpha
            }
        }
        let lChannel = Channel(l, width: width, height: height, nx: max(3, lx), ny: max(3, ly))
        let pChannel = Channel(p, width: width, height: height, nx: 3, ny: 3)
        let qChannel = Channel(q, width: width, height: height, nx: 3, ny: 3)
        let aChannel = hasAlpha ? Channel(a, width: width, height: height, nx: 5, ny: 5) : nil
        let isLandscape = width > height
        let low = Int(jsRound(63 * lChannel.dc)) | Int(jsRound(31.5 + 31.5 * pChannel.dc)) << 6
            | Int(jsRound(31.5 + 31.5 * qChannel.dc)) << 12 | Int(jsRound(31 * lChannel.scale)) << 18 | (hasAlpha ? 1 << 23 : 0)
        let high = (isLandscape ? ly : lx) | Int(jsRound(63 * pChannel.scale)) << 3 | Int(jsRound(63 * qChannel.scale)) << 9
            | (isLandscape ? 1 << 15 : 0)
        var hash: [UInt8] = [UInt8(low & 255), UInt8(low >> 8 & 255), UInt8(low >> 16), UInt8(high & 255), UInt8(high >> 8)]
        if let aChannel { hash.append(UInt8(Int(jsRound(15 * aChannel.dc)) | Int(jsRound(15 * aChannel.scale)) << 4)) }
        let start = hash.count
        var index = 0
        for channel in [lChannel, pChannel, qChannel] + (aChannel.map { [$0] } ?? []) {
            for value in channel.ac {
                let position = start + index >> 1
                if position == hash.count { hash.append(0) }
                hash[position] |= UInt8(Int(jsRound(15 * value)) << ((index & 1) * 4))
                index += 1
            }
        }
        return hash
    }

    /// One channel's DCT: the DC term, and the AC terms normalised to 0–1 by their largest magnitude.
    struct Channel {
        var dc = 0.0
        var ac: [Double] = []
        var scale = 0.0

        init(_ values: [Double], width: Int, height: Int, nx: Int, ny: Int) {
            var fx = [Double](repeating: 0, count: width)
            for cy in 0..<ny {
                var cx = 0
                while cx * ny < nx * (ny - cy) {
                    for x in 0..<width { fx[x] = cos(.pi / Double(width) * Double(cx) * (Double(x) + 0.5)) }
                    var f = 0.0
                    for y in 0..<height {
                        let fy = cos(.pi / Double(height) * Double(cy) * (Double(y) + 0.5))
                        for x in 0..<width { f += values[x + y * width] * fx[x] * fy }
                    }
                    f /= Double(width * height)
                    if cx > 0 || cy > 0 {
                        ac.append(f)
                        scale = max(scale, abs(f))
                    } else {
                        dc = f
                    }
                    cx += 1
                }
            }
            if scale > 0 { ac = ac.map { 0.5 + 0.5 / scale * $0 } }
        }
    }
}

/// Rounds halves up, as JavaScript's `Math.round` does: the reference implementations round
/// so, and a hash must come out byte for byte the same.
func jsRound(_ value: Double) -> Double { (value + 0.5).rounded(.down) }

private func clamp(_ value: Double) -> Double { max(0, min(1, value)) }
