import Imagery

/// Lays out a grid of aspect-fit thumbnails with a light label under each, and a clearly
/// marked placeholder, with the reason, for each cell that failed.
///
/// Each cell is `cell` pixels square plus a margin and a label line, so the sheet is
/// `columns × (cell + 8)` wide and `rows × (cell + 24)` high.
struct ContactSheet {
    enum Content {
        case image(Bitmap)
        case failure(String)
    }

    struct Cell {
        var label: String
        var content: Content
    }

    let columns: Int
    let cell: Int

    /// The largest sheet side, in pixels: 16,384 × 16,384 RGBA is 1 GiB, and most viewers
    /// refuse larger images. `grid` refuses a sheet past it before loading anything.
    static let maximumSide = 16_384

    static let margin = 4
    static let labelHeight = 16

    var pitchWidth: Int { cell + 2 * Self.margin }
    var pitchHeight: Int { cell + 2 * Self.margin + Self.labelHeight }

    /// Why a sheet of `count` cells cannot be drawn, or `nil` when it can. Checked before any
    /// image is loaded; safe for any `count`, `columns` and `cell` (no overflow).
    func refusal(forCells count: Int) -> String? {
        guard columns <= Self.maximumSide / pitchWidth else {
            return "--columns \(columns) with --cell \(cell) makes the sheet wider than \(Self.maximumSide) px: at most \(Self.maximumSide / pitchWidth) columns of that size"
        }
        let rows = max(1, count / columns + (count % columns == 0 ? 0 : 1))
        guard rows <= Self.maximumSide / pitchHeight else {
            let most = (Self.maximumSide / pitchHeight) * columns
            return "\(count) images in \(columns) columns make the sheet taller than \(Self.maximumSide) px: at most \(most) images at --columns \(columns) --cell \(cell); use more --columns or a smaller --cell"
        }
        return nil
    }

    func size(forCells count: Int) -> PixelSize {
        let rows = max(1, (count + columns - 1) / columns)
        return PixelSize(width: columns * pitchWidth, height: rows * pitchHeight)
    }

    func render(_ cells: [Cell]) -> Bitmap {
        let size = size(forCells: cells.count)
        var canvas = Canvas(width: size.width, height: size.height, fill: RGBA(red: 250, green: 250, blue: 250, alpha: 255))
        for (index, item) in cells.enumerated() {
            let x = (index % columns) * pitchWidth + Self.margin
            let y = (index / columns) * pitchHeight + Self.margin
            switch item.content {
            case let .image(bitmap):
                let left = x + (cell - bitmap.width) / 2, top = y + (cell - bitmap.height) / 2
                canvas.draw(bitmap, atX: left, y: top)
                canvas.text(item.label, x: x, y: y + cell + 4, width: cell, color: RGBA(red: 90, green: 90, blue: 90, alpha: 255))
            case let .failure(reason):
                let red = RGBA(red: 180, green: 30, blue: 30, alpha: 255)
                canvas.rectangle(x: x, y: y, width: cell, height: cell, color: RGBA(red: 252, green: 226, blue: 226, alpha: 255))
                canvas.outline(x: x, y: y, width: cell, height: cell, color: red)
                canvas.cross(x: x + cell / 2 - 8, y: y + 6, size: 16, color: red)
                var line = y + 28
                for text in Self.wrap(reason, width: cell - 6) where line + BitmapFont.glyphHeight <= y + cell - 2 {
                    canvas.text(text, x: x + 3, y: line, width: cell - 6, color: red)
                    line += BitmapFont.glyphHeight + 3
                }
                canvas.text("FAILED " + item.label, x: x, y: y + cell + 4, width: cell, color: red)
            }
        }
        return canvas.bitmap
    }

    /// Breaks `text` into lines of at most `width` pixels, at spaces where it can.
    static func wrap(_ text: String, width: Int) -> [String] {
        let perLine = max(1, width / BitmapFont.advance)
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            var word = String(word)
            while word.count > perLine {
                if !current.isEmpty { lines.append(current); current = "" }
                lines.append(String(word.prefix(perLine)))
                word = String(word.dropFirst(perLine))
            }
            if current.isEmpty {
                current = word
            } else if current.count + 1 + word.count <= perLine {
                current += " " + word
            } else {
                lines.append(current)
                current = word
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }
}

/// An RGBA canvas with the few drawing operations a contact sheet needs.
struct Canvas {
    let width: Int
    let height: Int
    private(set) var pixels: [UInt8]

    init(width: Int, height: Int, fill: RGBA) {
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 4)
        for offset in stride(from: 0, to: pixels.count, by: 4) { set(offset, fill) }
    }

    var bitmap: Bitmap { Bitmap(width: width, height: height, pixels: pixels) }

    private mutating func set(_ offset: Int, _ color: RGBA) {
        pixels[offset] = color.red
        pixels[offset + 1] = color.green
        pixels[offset + 2] = color.blue
        pixels[offset + 3] = 255
    }

    mutating func point(_ x: Int, _ y: Int, _ color: RGBA) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        set((y * width + x) * 4, color)
    }

    /// Draws `bitmap` (straight or no alpha) over the canvas.
    mutating func draw(_ bitmap: Bitmap, atX left: Int, y top: Int) {
        for row in 0..<bitmap.height {
            let y = top + row
            guard y >= 0, y < height else { continue }
            for column in 0..<bitmap.width {
                let x = left + column
                guard x >= 0, x < width else { continue }
                let source = row * bitmap.bytesPerRow + column * 4
                let target = (y * width + x) * 4
                let alpha = bitmap.alphaMode == .opaque ? 255 : Int(bitmap.pixels[source + 3])
                for channel in 0..<3 {
                    let over = Int(bitmap.pixels[source + channel]), under = Int(pixels[target + channel])
                    pixels[target + channel] = UInt8((over * alpha + under * (255 - alpha) + 127) / 255)
                }
            }
        }
    }

    mutating func rectangle(x: Int, y: Int, width: Int, height: Int, color: RGBA) {
        for row in y..<(y + height) { for column in x..<(x + width) { point(column, row, color) } }
    }

    mutating func outline(x: Int, y: Int, width: Int, height: Int, color: RGBA) {
        for column in x..<(x + width) { point(column, y, color); point(column, y + height - 1, color) }
        for row in y..<(y + height) { point(x, row, color); point(x + width - 1, row, color) }
    }

    mutating func cross(x: Int, y: Int, size: Int, color: RGBA) {
        for step in 0..<size {
            for thickness in 0..<2 {
                point(x + step + thickness, y + step, color)
                point(x + size - 1 - step + thickness, y + step, color)
            }
        }
    }

    /// Draws `text` clipped to `width` pixels, with "…" when it does not fit.
    mutating func text(_ text: String, x: Int, y: Int, width: Int, color: RGBA) {
        let fits = max(1, width / BitmapFont.advance)
        var characters = Array(text)
        if characters.count > fits { characters = Array(characters.prefix(fits - 1)) + ["…"] }
        for (index, character) in characters.enumerated() {
            let rows = BitmapFont.rows(for: character)
            for (row, bits) in rows.enumerated() {
                for bit in 0..<BitmapFont.glyphWidth where bits & (0x10 >> UInt8(bit)) != 0 {
                    point(x + index * BitmapFont.advance + bit, y + row, color)
                }
            }
        }
    }
}
