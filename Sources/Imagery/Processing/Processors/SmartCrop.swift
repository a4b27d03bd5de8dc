/// Finds the window with the most detail, for ``Gravity/smart``.
///
/// Detail is edge energy: the absolute luma gradient, summed over the window. It is measured
/// on a grid reduced to at most ``analysisSide`` cells on the long side (each cell the mean
/// luma of a block of pixels), so the search costs about the same for a thumbnail and for a
/// 24 MP photo; a summed-area table then scores every window position in O(1). Ties keep the
/// window nearest the centre, so a flat image crops like ``Gravity/center``.
package enum SmartCrop {
    /// The long side of the analysis grid, in cells.
    static let analysisSide = 256

    /// The origin, in `image` pixels, of the `width` × `height` window with the most detail.
    package static func origin(width: Int, height: Int, in image: Bitmap) -> (x: Int, y: Int) {
        let freeX = image.width - width, freeY = image.height - height
        guard freeX > 0 || freeY > 0 else { return (0, 0) }
        let block = max(1, (max(image.width, image.height) + analysisSide - 1) / analysisSide)
        let gridWidth = (image.width + block - 1) / block, gridHeight = (image.height + block - 1) / block
        let luma = reducedLuma(image, block: block, gridWidth: gridWidth, gridHeight: gridHeight)

        // Summed-area table of the gradient energy, with a zero row and column in front.
        let stride = gridWidth + 1
        var table = [Double](repeating: 0, count: stride * (gridHeight + 1))
        for y in 0..<gridHeight {
            var rowSum = 0.0
            for x in 0..<gridWidth {
                let here = luma[y * gridWidth + x]
                let dx = x + 1 < gridWidth ? abs(luma[y * gridWidth + x + 1] - here) : 0
                let dy = y + 1 < gridHeight ? abs(luma[(y + 1) * gridWidth + x] - here) : 0
                rowSum += dx + dy
                table[(y + 1) * stride + x + 1] = table[y * stride + x + 1] + rowSum
            }
        }

        let windowWidth = min(gridWidth, max(1, Int((Double(width) / Double(block)).rounded())))
        let windowHeight = min(gridHeight, max(1, Int((Double(height) / Double(block)).rounded())))
        let centre = (x: Double(gridWidth - windowWidth) / 2, y: Double(gridHeight - windowHeight) / 2)
        var best = (score: -1.0, distance: Double.infinity, x: 0, y: 0)
        for y in 0...(gridHeight - windowHeight) {
            for x in 0...(gridWidth - windowWidth) {
                let score = table[(y + windowHeight) * stride + x + windowWidth] - table[y * stride + x + windowWidth]
                    - table[(y + windowHeight) * stride + x] + table[y * stride + x]
                let distance = (Double(x) - centre.x) * (Double(x) - centre.x) + (Double(y) - centre.y) * (Double(y) - centre.y)
                // Scores are sums of the same cells in another order: compare with a
                // relative tolerance so rounding does not pull a flat image off centre.
                let margin = 1e-9 * max(1, best.score)
                if score > best.score + margin || (abs(score - best.score) <= margin && distance < best.distance) {
                    best = (score, distance, x, y)
                }
            }
        }
        return (min(freeX, max(0, best.x * block)), min(freeY, max(0, best.y * block)))
    }

    /// Mean Rec. 601 luma (in 1/256 steps) of each `block` × `block` cell.
    private static func reducedLuma(_ image: Bitmap, block: Int, gridWidth: Int, gridHeight: Int) -> [Double] {
        var sums = [Int](repeating: 0, count: gridWidth * gridHeight)
        let opaque = image.alphaMode == .opaque
        image.pixels.withUnsafeBufferPointer { pixels in
            sums.withUnsafeMutableBufferPointer { sums in
                for y in 0..<image.height {
                    let row = pixels.baseAddress! + y * image.bytesPerRow
                    let cells = sums.baseAddress! + (y / block) * gridWidth
                    for x in 0..<image.width {
                        let p = row + x * 4
                        let luma = 77 * Int(p[0]) + 150 * Int(p[1]) + 29 * Int(p[2])
                        // Transparent pixels carry no detail a viewer sees.
                        cells[x / block] += opaque ? luma : luma * Int(p[3]) / 255
                    }
                }
            }
        }
        // Cells on the right and bottom edges may be partial: divide by what they hold.
        return sums.indices.map { index in
            let cellWidth = min(block, image.width - (index % gridWidth) * block)
            let cellHeight = min(block, image.height - (index / gridWidth) * block)
            return Double(sums[index]) / Double(cellWidth * cellHeight * 256)
        }
    }
}
