import Imagery

/// One colour of an image's reduced palette and the pixels it stands for: `/info`'s palette and
/// dominant colours, from the GIF encoder's median cut.
package struct ColorSwatch: Sendable, Hashable {
    package var color: RGBA
    package var population: Int

    /// The image's colours reduced to at most `count`, most common first; pixels under half
    /// alpha are left out. Meant for a draft: the cut walks every pixel.
    package static func swatches(of bitmap: Bitmap, count: Int) -> [ColorSwatch] {
        let result = MedianCutQuantizer(maximumColours: max(2, min(256, count + 1))).quantize(bitmap.withStraightAlpha())
        var populations = [Int](repeating: 0, count: 1 << result.bits)
        for index in result.indices where Int(index) != result.transparentIndex { populations[Int(index)] += 1 }
        var swatches: [ColorSwatch] = []
        for index in populations.indices where populations[index] > 0 {
            let colour = RGBA(red: result.palette[index * 3], green: result.palette[index * 3 + 1], blue: result.palette[index * 3 + 2])
            swatches.append(ColorSwatch(color: colour, population: populations[index]))
        }
        swatches.sort { $0.population > $1.population }
        return Array(swatches.prefix(count))
    }
}
