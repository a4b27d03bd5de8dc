import Imagery

/// The character encodings an SVG document may declare before libxml2 reads it: the ones
/// libxml2 decodes itself (UTF-8, UTF-16, ISO-8859-1 and ASCII). Any other name sends libxml2
/// to iconv, and Debian's libxml2 2.9.14 dereferences a null pointer in its push parser on a
/// document that declares UTF-7 (found by `scripts/fuzz.sh svg`). SVG is written in UTF-8
/// almost always, so the rest are refused by name rather than decoded.
enum SVGEncoding {
    /// The names read, as libxml2 spells its own decoders, in lower case.
    static let read: Set<String> = [
        "utf-8", "utf8", "utf-16", "utf-16le", "utf-16be", "iso-8859-1", "iso_8859-1", "iso-latin-1", "latin1", "latin-1",
        "us-ascii", "ascii",
    ]

    /// Refuses a document whose XML declaration names an encoding outside ``read``.
    static func check(_ bytes: [UInt8]) throws(ImageError) {
        guard let name = declared(in: bytes).first(where: { !read.contains($0) }) else { return }
        let shown = String(name.prefix(40))
        throw .corrupt(.svg, detail: "its declared encoding, \(shown), is not read (UTF-8, UTF-16 and ISO-8859-1 are)")
    }

    /// Every encoding the XML declaration at the start of `bytes` names, in lower case: every
    /// `encoding = "…"` up to the declaration's first `?>`, which no value libxml2 accepts
    /// contains, so that one hidden in another pseudo-attribute's value (`version="encoding"`,
    /// which libxml2 only warns about) is seen too. Empty without a declaration.
    static func declared(in bytes: [UInt8]) -> [String] {
        let begin = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        guard bytes[begin...].starts(with: Array("<?xml".utf8)) else { return [] }
        let question = UInt8(ascii: "?"), close = UInt8(ascii: ">")
        let end = (begin..<bytes.count).first { $0 + 1 < bytes.count && bytes[$0] == question && bytes[$0 + 1] == close } ?? bytes.count
        let keyword = Array("encoding".utf8)
        var names: [String] = []
        var position = begin
        while position + keyword.count <= end {
            defer { position += 1 }
            guard bytes[position..<position + keyword.count].elementsEqual(keyword) else { continue }
            var index = position + keyword.count
            func skipSpace() { while index < end, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 } }
            skipSpace()
            guard index < end, bytes[index] == UInt8(ascii: "=") else { continue }
            index += 1
            skipSpace()
            guard index < end, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
                names.append("")   // not a name libxml2 would read either: refused, to be sure
                continue
            }
            let quote = bytes[index]
            let closing = (index + 1..<end).first { bytes[$0] == quote } ?? end
            names.append(String(decoding: bytes[(index + 1)..<closing], as: UTF8.self).lowercased())
        }
        return names
    }
}
