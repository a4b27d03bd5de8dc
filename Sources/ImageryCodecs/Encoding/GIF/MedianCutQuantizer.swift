import Imagery

/// Reduces an RGBA image to at most 256 palette entries for GIF: Imagery's own, so the GIF
/// encoder needs no library. An image of few enough colours keeps them exactly; any other is
/// reduced by median cut (Heckbert) over a 5-bit-per-channel histogram, each box's colour the
/// mean of the true colours it holds, refined by one k-means pass, and every pixel is mapped to
/// its nearest entry (memoised per 6-bit colour). No dithering: it costs size and blurs the
/// differences between frames that an animation's compression relies on. Pixels with alpha
/// under 128 take one transparent entry (GIF has 1-bit transparency).
struct MedianCutQuantizer {
    struct Result {
        /// RGB triplets, padded to a power of two of at least 2 entries.
        var palette: [UInt8]
        var indices: [UInt8]
        var transparentIndex: Int?
        /// log2 of the palette's entry count.
        var bits: Int
    }

    var maximumColours = 256

    func quantize(_ bitmap: Bitmap) -> Result {
        let count = bitmap.width * bitmap.height
        let pixels = bitmap.packedPixels
        var transparent = false
        if bitmap.alphaMode != .opaque {
            for index in stride(from: 3, to: pixels.count, by: 4) where pixels[index] < 128 {
                transparent = true
                break
            }
        }
        let available = maximumColours - (transparent ? 1 : 0)
        let exact = exactColours(pixels, limit: available)
        var colours = exact?.colours ?? medianCut(pixels, count: count, target: available)
        if colours.isEmpty { colours = [0, 0, 0] }
        let entries = colours.count / 3 + (transparent ? 1 : 0)
        let transparentIndex = transparent ? colours.count / 3 : nil
        var bits = 1
        while 1 << bits < entries { bits += 1 }
        var palette = colours
        palette.append(contentsOf: [UInt8](repeating: 0, count: (1 << bits) * 3 - palette.count))
        let indices = if let exact {
            mapExactly(pixels, count: count, lookup: exact.lookup, transparentIndex: transparentIndex)
        } else {
            map(pixels, count: count, colours: colours, transparentIndex: transparentIndex)
        }
        return Result(palette: palette, indices: indices, transparentIndex: transparentIndex, bits: bits)
    }

    /// The opaque colours, if there are at most `limit`, and each one's entry.
    private func exactColours(_ pixels: [UInt8], limit: Int) -> (colours: [UInt8], lookup: [UInt32: Int])? {
        var seen: [UInt32: Int] = [:]
        var colours: [UInt8] = []
        for index in stride(from: 0, to: pixels.count, by: 4) where pixels[index + 3] >= 128 {
            let key = UInt32(pixels[index]) << 16 | UInt32(pixels[index + 1]) << 8 | UInt32(pixels[index + 2])
            if seen[key] == nil {
                guard seen.count < limit else { return nil }
                seen[key] = seen.count
                colours.append(contentsOf: [pixels[index], pixels[index + 1], pixels[index + 2]])
            }
        }
        return (colours, seen)
    }

    private func mapExactly(_ pixels: [UInt8], count: Int, lookup: [UInt32: Int], transparentIndex: Int?) -> [UInt8] {
        var indices = [UInt8](repeating: UInt8(transparentIndex ?? 0), count: count)
        for pixel in 0..<count where pixels[pixel * 4 + 3] >= 128 {
            let offset = pixel * 4
            let key = UInt32(pixels[offset]) << 16 | UInt32(pixels[offset + 1]) << 8 | UInt32(pixels[offset + 2])
            indices[pixel] = UInt8(lookup[key] ?? 0)
        }
        return indices
    }

    private struct Bin {
        var count = 0
        var red = 0, green = 0, blue = 0
        /// The mean colour, set once the histogram is complete: sorting compares it often.
        var mean = SIMD3<Int32>()
    }

    private func medianCut(_ pixels: [UInt8], count: Int, target: Int) -> [UInt8] {
        var histogram = [Bin](repeating: Bin(), count: 1 << 15)
        for index in stride(from: 0, to: pixels.count, by: 4) where pixels[index + 3] >= 128 {
            let r = Int(pixels[index]), g = Int(pixels[index + 1]), b = Int(pixels[index + 2])
            let key = (r >> 3) << 10 | (g >> 3) << 5 | b >> 3
            histogram[key].count += 1
            histogram[key].red += r
            histogram[key].green += g
            histogram[key].blue += b
        }
        var bins = histogram.filter { $0.count > 0 }
        for index in bins.indices {
            let bin = bins[index]
            bins[index].mean = SIMD3(Int32(bin.red / bin.count), Int32(bin.green / bin.count), Int32(bin.blue / bin.count))
        }
        guard !bins.isEmpty else { return [] }
        // Boxes are ranges of `bins`; the one with the most pixels times its widest range splits
        // next. Each box's score and axis are measured once, when it is made.
        func measure(_ box: Range<Int>) -> (score: Int, axis: Int) {
            guard box.count > 1 else { return (0, 0) }
            var low = SIMD3<Int32>(repeating: 255), high = SIMD3<Int32>(repeating: 0), pixelsInBox = 0
            for bin in bins[box] {
                pixelsInBox += bin.count
                low = pointwiseMin(low, bin.mean)
                high = pointwiseMax(high, bin.mean)
            }
            let ranges = high &- low
            let axis = ranges.x >= ranges.y && ranges.x >= ranges.z ? 0 : (ranges.y >= ranges.z ? 1 : 2)
            return (Int(ranges[axis]) * pixelsInBox, axis)
        }
        var boxes: [Range<Int>] = [0..<bins.count]
        var measures = [measure(boxes[0])]
        while boxes.count < target {
            guard let best = measures.indices.max(by: { measures[$0].score < measures[$1].score }), measures[best].score > 0 else { break }
            let box = boxes[best], axis = measures[best].axis
            bins[box].sort { $0.mean[axis] < $1.mean[axis] }
            let total = bins[box].reduce(0) { $0 + $1.count }
            var running = 0, split = box.lowerBound + 1
            for position in box {
                running += bins[position].count
                if running * 2 >= total { split = min(max(position + 1, box.lowerBound + 1), box.upperBound - 1); break }
            }
            boxes[best] = box.lowerBound..<split
            measures[best] = measure(boxes[best])
            boxes.append(split..<box.upperBound)
            measures.append(measure(boxes[boxes.count - 1]))
        }
        var palette = boxes.map { box -> (Int, Int, Int) in
            let sum = bins[box].reduce(into: Bin()) { sum, bin in
                sum.count += bin.count
                sum.red += bin.red
                sum.green += bin.green
                sum.blue += bin.blue
            }
            return (sum.red / sum.count, sum.green / sum.count, sum.blue / sum.count)
        }
        // One k-means pass: each bin to its nearest entry, each entry to the mean of its bins.
        var sums = [Bin](repeating: Bin(), count: palette.count)
        for bin in bins {
            let nearest = Self.nearest(Int(bin.mean.x), Int(bin.mean.y), Int(bin.mean.z), in: palette)
            sums[nearest].count += bin.count
            sums[nearest].red += bin.red
            sums[nearest].green += bin.green
            sums[nearest].blue += bin.blue
        }
        for (index, sum) in sums.enumerated() where sum.count > 0 {
            palette[index] = (sum.red / sum.count, sum.green / sum.count, sum.blue / sum.count)
        }
        return palette.flatMap { [UInt8($0.0), UInt8($0.1), UInt8($0.2)] }
    }

    private static func nearest(_ r: Int, _ g: Int, _ b: Int, in palette: [(Int, Int, Int)]) -> Int {
        var best = 0, bestDistance = Int.max
        for (index, entry) in palette.enumerated() {
            let dr = entry.0 - r, dg = entry.1 - g, db = entry.2 - b
            let distance = 2 * dr * dr + 4 * dg * dg + 3 * db * db
            if distance < bestDistance { best = index; bestDistance = distance }
        }
        return best
    }

    private func map(_ pixels: [UInt8], count: Int, colours: [UInt8], transparentIndex: Int?) -> [UInt8] {
        let palette = stride(from: 0, to: colours.count, by: 3).map { (Int(colours[$0]), Int(colours[$0 + 1]), Int(colours[$0 + 2])) }
        var memo = [UInt16](repeating: .max, count: 1 << 18)   // .max: not looked up yet
        var indices = [UInt8](repeating: 0, count: count)
        for pixel in 0..<count {
            let offset = pixel * 4
            if let transparentIndex, pixels[offset + 3] < 128 {
                indices[pixel] = UInt8(transparentIndex)
                continue
            }
            let r = Int(pixels[offset]), g = Int(pixels[offset + 1]), b = Int(pixels[offset + 2])
            let key = (r >> 2) << 12 | (g >> 2) << 6 | b >> 2
            if memo[key] == .max { memo[key] = UInt16(Self.nearest(r, g, b, in: palette)) }
            indices[pixel] = UInt8(truncatingIfNeeded: memo[key])
        }
        return indices
    }
}
