extension ImageHeader {
    /// A classic TIFF's first directory: `ImageWidth` (256) and `ImageLength` (257), each a
    /// SHORT or a LONG. BigTIFF and a directory past the bytes read give `nil`.
    static func tiffSize(_ bytes: [UInt8]) -> PixelSize? {
        guard let reader = IFDReader(bytes), let first = reader.firstDirectoryOffset, first >= 8,
              let directory = reader.directory(at: first) else { return nil }
        var width: Int?, height: Int?
        for entry in directory.entries {
            // SHORT (3) sits in the first two bytes of the value field, LONG (4) fills it.
            guard let value = reader.inlineInteger(of: entry) else { continue }
            if entry.tag == 256 { width = value } else if entry.tag == 257 { height = value }
        }
        guard let width, let height else { return nil }
        return PixelSize(width: width, height: height)
    }

    /// An SVG root's `width` and `height` in pixels (no unit, `px`, `pt`, `pc`, `mm`, `cm` or
    /// `in`, at 96 per inch), else its `viewBox` size; `nil` when it states neither. The decoder
    /// reads the same with librsvg; this estimate only charges the decoding-pixel budget.
    static func svgSize(_ bytes: [UInt8]) -> PixelSize? {
        guard let tag = ImageFormat.svgRootTag(in: bytes) else { return nil }
        let text = String(decoding: tag, as: UTF8.self)
        if let width = attribute("width", in: text).flatMap(pixels), let height = attribute("height", in: text).flatMap(pixels) {
            return PixelSize(width: Int(width.rounded(.up)), height: Int(height.rounded(.up)))
        }
        let box = attribute("viewBox", in: text)?.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" || $0 == "\n" }).compactMap { Double($0) }
        guard let box, box.count == 4, box[2].isFinite, box[3].isFinite, box[2] > 0, box[3] > 0, box[2] < 1e9, box[3] < 1e9 else { return nil }
        return PixelSize(width: Int(box[2].rounded(.up)), height: Int(box[3].rounded(.up)))
    }

    /// The value of the attribute `name` in a start tag (whitespace before the name, either quote).
    private static func attribute(_ name: String, in tag: String) -> String? {
        var search = tag[...]
        while let found = search.firstRange(of: name) {
            let before = search[..<found.lowerBound].last
            var rest = search[found.upperBound...].drop { $0 == " " }
            search = search[found.upperBound...]
            guard before.map({ $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }) ?? false, rest.first == "=" else { continue }
            rest = rest.dropFirst().drop { $0 == " " }
            guard let quote = rest.first, quote == "\"" || quote == "'" else { continue }
            let value = rest.dropFirst().prefix { $0 != quote }
            return String(value.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        }
        return nil
    }

    private static func pixels(_ length: String) -> Double? {
        let units: [(String, Double)] = [("px", 1), ("pt", 4.0 / 3), ("pc", 16), ("mm", 96 / 25.4), ("cm", 96 / 2.54), ("in", 96)]
        let unit = units.first { length.hasSuffix($0.0) }
        guard let number = Double(unit.map { _ in String(length.dropLast(2)) } ?? length), number.isFinite, number > 0, number < 1e9 else { return nil }
        return number * (unit?.1 ?? 1)
    }
}
