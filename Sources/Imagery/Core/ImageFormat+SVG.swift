extension ImageFormat {
    /// How far into a document its root element may start: an XML declaration, comments and a
    /// document type with an internal subset (Illustrator's entity declarations) come first.
    static let svgSniffLimit = 64 << 10

    /// The bytes of an SVG document's root start tag, `<svg` up to its closing `>`, when `bytes`
    /// (after an optional UTF-8 byte order mark) hold nothing but whitespace, an XML
    /// declaration, processing instructions, comments and a document type before an element
    /// named `svg` (in any prefix) within ``svgSniffLimit``; `nil` for anything else, so that
    /// HTML, other XML and plain text are never taken for SVG.
    package static func svgRootTag(in bytes: some Collection<UInt8>) -> ArraySlice<UInt8>? {
        // Most inputs are not XML: decide on the first significant byte before copying any.
        guard let first = bytes.first(where: { !isXMLSpace($0) }), first == UInt8(ascii: "<") || first == 0xEF else { return nil }
        let head = Array(bytes.prefix(svgSniffLimit))
        var index = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        func starts(_ text: String) -> Bool { head[index...].starts(with: text.utf8) }
        func skip(past terminator: String) -> Bool {
            let pattern = Array(terminator.utf8)
            var position = index
            while position + pattern.count <= head.count {
                if head[position..<position + pattern.count].elementsEqual(pattern) {
                    index = position + pattern.count
                    return true
                }
                position += 1
            }
            return false
        }
        while true {
            while index < head.count, isXMLSpace(head[index]) { index += 1 }
            guard index < head.count, head[index] == UInt8(ascii: "<") else { return nil }
            if starts("<?") {
                guard skip(past: "?>") else { return nil }
            } else if starts("<!--") {
                guard skip(past: "-->") else { return nil }
            } else if starts("<!DOCTYPE") {
                guard skipDocumentType(head, from: &index) else { return nil }
            } else {
                return rootTag(head, at: index)
            }
        }
    }

    private static func isXMLSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// Steps over `<!DOCTYPE …>`, its quoted identifiers and its `[ … ]` internal subset.
    private static func skipDocumentType(_ head: [UInt8], from index: inout Int) -> Bool {
        var position = index + 9
        var quote: UInt8?
        var inSubset = false
        while position < head.count {
            let byte = head[position]
            if quote == nil, inSubset, let end = endOfMarkup(head, at: position) {
                // A comment or processing instruction in the internal subset: its quotes and
                // brackets are not markup.
                position = end
                continue
            }
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "[") {
                inSubset = true
            } else if byte == UInt8(ascii: "]") {
                inSubset = false
            } else if byte == UInt8(ascii: ">"), !inSubset {
                index = position + 1
                return true
            }
            position += 1
        }
        return false
    }

    /// Just past the comment or processing instruction that starts at `index`; the end of
    /// `head` when it never closes; `nil` when none starts there.
    private static func endOfMarkup(_ head: [UInt8], at index: Int) -> Int? {
        let terminator: [UInt8]
        if head[index...].starts(with: "<!--".utf8) {
            terminator = Array("-->".utf8)
        } else if head[index...].starts(with: "<?".utf8) {
            terminator = Array("?>".utf8)
        } else {
            return nil
        }
        var position = index + 2
        while position + terminator.count <= head.count {
            if head[position..<position + terminator.count].elementsEqual(terminator) { return position + terminator.count }
            position += 1
        }
        return head.count
    }

    /// The start tag at `index` when its element is named `svg` (with or without a prefix).
    private static func rootTag(_ head: [UInt8], at index: Int) -> ArraySlice<UInt8>? {
        var end = index + 1
        while end < head.count, !isXMLSpace(head[end]), head[end] != UInt8(ascii: ">"), head[end] != UInt8(ascii: "/") { end += 1 }
        let name = head[(index + 1)..<end]
        let local = name.lastIndex(of: UInt8(ascii: ":")).map { name[($0 + 1)...] } ?? name
        guard local.elementsEqual("svg".utf8), end < head.count else { return nil }
        var quote: UInt8?
        var close = end
        while close < head.count {
            let byte = head[close]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                return head[index...close]
            }
            close += 1
        }
        // A root tag longer than the window: still an SVG, its attributes unread.
        return head[index...]
    }
}
