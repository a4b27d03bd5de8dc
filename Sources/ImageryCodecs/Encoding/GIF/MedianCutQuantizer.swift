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
        func channel(_ axis: Int) -> Int { axis == 0 ? red / count : axis == 1 ? green / count : blue / count }
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
        guard !bins.isEmpty else { return [] }
        // Boxes are ranges of `bins`; the one with the most pixels times its widest range splits next.
        var boxes: [Range<Int>] = [0..<bins.count]
        while boxes.count < target {
            var best = -1, bestScore = 0, bestAxis = 0
            for (number, box) in boxes.enumerated() where box.count > 1 {
                var low = [255, 255, 255], high = [0, 0, 0], pixelsInBox = 0
                for bin in bins[box] {
                    pixelsInBox += bin.count
                    for axis in 0..<3 {
                        let value = bin.channel(axis)
                        low[axis] = min(low[axis], value)
                        high[axis] = max(high[axis], value)
                    }
                }
                let ranges = (0..<3).map { high[$0] - low[$0] }
                let axis = ranges.firstIndex(of: ranges.max()!)!
                let score = ranges[axis] * pixelsInBox
                if score > bestScore { best = number; bestScore = score; bestAxis = axis }
            }
            guard best >= 0 else { break }
            let box = boxes[best]
            bins[box].sort { $0.channel(bestAxis) < $1.channel(bestAxis) }
            let total = bins[box].reduce(0) { $0 + $1.count }
            var running = 0, split = box.lowerBound + 1
            for position in box {
                running += bins[position].count
                if running * 2 >= total { split = min(max(position + 1, box.lowerBound + 1), box.upperBound - 1); break }
            }
            boxes[best] = box.lowerBound..<split
            boxes.append(split..<box.upperBound)
        }
        var palette = boxes.map { box -> (Int, Int, Int) in
            let sum = bins[box].reduce(Bin()) { Bin(count: $0.count + $1.count, red: $0.red + $1.red, green: $0.green + $1.green, blue: $0.blue + $1.blue) }
            return (sum.red / sum.count, sum.green / sum.count, sum.blue / sum.count)
        }
        // One k-means pass: each bin to its nearest entry, each entry to the mean of its bins.
        var sums = [Bin](repeating: Bin(), count: palette.count)
        for bin in bins {
            let nearest = Self.nearest(bin.red / bin.count, bin.green / bin.count, bin.blue / bin.count, in: palette)
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
        var memo = [UInt8](repeating: 0, count: 1 << 18)
        var known = [Bool](repeating: false, count: 1 << 18)
        var indices = [UInt8](repeating: 0, count: count)
        for pixel in 0..<count {
            let offset = pixel * 4
            if let transparentIndex, pixels[offset + 3] < 128 {
                indices[pixel] = UInt8(transparentIndex)
                continue
            }
            let r = Int(pixels[offset]), g = Int(pixels[offset + 1]), b = Int(pixels[offset + 2])
            let key = (r >> 2) << 12 | (g >> 2) << 6 | b >> 2
            if !known[key] {
                memo[key] = UInt8(Self.nearest(r, g, b, in: palette))
                known[key] = true
            }
            indices[pixel] = memo[key]
        }
        return indices
    }
}
