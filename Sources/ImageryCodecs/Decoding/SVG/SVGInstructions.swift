/// Processing instructions as Foundation's `XMLParser` can take them. libxml2 reports one
/// with no data (`<?target?>`) with a null data pointer, and swift-corelibs-foundation reads
/// that pointer as a C string: the process crashed, server included (found by
/// `scripts/fuzz.sh svg`). The sanitizer drops every processing instruction, so such an
/// instruction is given a space (`<?target ?>`), which libxml2 reports with empty data.
///
/// The bytes are read as ASCII: a document reaches the parser only when it starts with `<`
/// or a UTF-8 byte-order mark (`ImageFormat.svgRootTag(in:)`), and libxml2 refuses such a
/// document that declares UTF-16. They are not parsed, so the same text inside a comment or a
/// CDATA section gains the space too: a comment is dropped anyway, and `<?name?>` means
/// nothing in a style sheet.
enum SVGInstructions {
    /// `bytes`, with a space before the `?>` of every instruction whose target it follows at
    /// once; the same array when there is none.
    static func givenData(_ bytes: [UInt8]) -> [UInt8] {
        let points = insertionPoints(in: bytes)
        guard !points.isEmpty else { return bytes }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + points.count)
        var copied = 0
        for point in points {
            output += bytes[copied..<point]
            output.append(UInt8(ascii: " "))
            copied = point
        }
        output += bytes[copied...]
        return output
    }

    /// The index of the `?` of every `<?target?>`. One pass: each `<?` is read up to the end
    /// of its target, and the scan goes on from there.
    private static func insertionPoints(in bytes: [UInt8]) -> [Int] {
        let open = UInt8(ascii: "<"), question = UInt8(ascii: "?"), close = UInt8(ascii: ">")
        var points: [Int] = []
        var index = 0
        while index + 1 < bytes.count {
            guard bytes[index] == open, bytes[index + 1] == question else {
                index += 1
                continue
            }
            var end = index + 2
            while end < bytes.count, bytes[end] != question, !isBlank(bytes[end]) { end += 1 }
            if end > index + 2, end + 1 < bytes.count, bytes[end] == question, bytes[end + 1] == close {
                points.append(end)
            }
            index = end
        }
        return points
    }

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
