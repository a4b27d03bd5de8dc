/// The XML of AWS's query-protocol answers (STS), read strictly: elements, text, the five
/// named entities and character references; a prolog, comments and attributes are skipped.
/// No DTD, no external entity and no namespace handling, so nothing in an answer makes the
/// reader fetch or expand anything. FoundationXML would bring libxml2 into the server's
/// image for a few hundred bytes of answer.
///
/// ```swift
/// let root = AWSXML.parse("<A><B>x &amp; y</B></A>")
/// root?.path("B")?.text   // "x & y"
/// ```
package struct AWSXML: Sendable, Equatable {
    package var name: String
    package var children: [AWSXML] = []
    /// The element's own text, entities decoded (text around children included).
    package var text = ""

    /// ``text`` without the whitespace an indented answer puts around it.
    package var trimmedText: String {
        String(text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }

    /// The first descendant along `names`, each a child of the one before.
    package func path(_ names: String...) -> AWSXML? {
        var current = self
        for name in names {
            guard let next = current.children.first(where: { $0.name == name }) else { return nil }
            current = next
        }
        return current
    }

    /// The document's root element; `nil` for anything not well formed, a DTD, more than 32
    /// levels, or more than 1 MiB.
    package static func parse(_ text: String) -> AWSXML? {
        var reader = Reader(bytes: Array(text.utf8))
        guard reader.bytes.count <= 1 << 20 else { return nil }
        return reader.document()
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        mutating func document() -> AWSXML? {
            skipMisc()
            guard let root = element(depth: 0) else { return nil }
            skipMisc()
            return index == bytes.count ? root : nil
        }

        /// Whitespace, `<?…?>` and comments between elements.
        mutating func skipMisc() {
            while index < bytes.count {
                if isSpace(bytes[index]) {
                    index += 1
                } else if starts(with: "<?") {
                    guard skip(past: "?>") else { return }
                } else if starts(with: "<!--") {
                    guard skip(past: "-->") else { return }
                } else {
                    return
                }
            }
        }

        mutating func element(depth: Int) -> AWSXML? {
            guard depth < 32, index < bytes.count, bytes[index] == UInt8(ascii: "<") else { return nil }
            index += 1
            // `<!DOCTYPE`, `<!ENTITY`, `<![CDATA[`: none in an AWS answer, and none read.
            guard let name = name(), !name.hasPrefix("!") else { return nil }
            // Attributes (xmlns) are skipped up to the tag's end; a quoted `>` is kept inside.
            var quote: UInt8?
            while index < bytes.count {
                let byte = bytes[index]
                if let open = quote {
                    if byte == open { quote = nil }
                } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    quote = byte
                } else if byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") {
                    break
                }
                index += 1
            }
            var node = AWSXML(name: name)
            if starts(with: "/>") {
                index += 2
                return node
            }
            guard index < bytes.count, bytes[index] == UInt8(ascii: ">") else { return nil }
            index += 1
            var text: [UInt8] = []
            while index < bytes.count {
                if starts(with: "</") {
                    index += 2
                    guard self.name() == name, index < bytes.count, bytes[index] == UInt8(ascii: ">") else { return nil }
                    index += 1
                    node.text = String(decoding: text, as: UTF8.self)
                    return node
                } else if starts(with: "<!--") {
                    guard skip(past: "-->") else { return nil }
                } else if starts(with: "<![CDATA[") {
                    index += 9
                    let start = index
                    guard skip(past: "]]>") else { return nil }
                    text += bytes[start..<(index - 3)]
                } else if starts(with: "<!") || starts(with: "<?") {
                    return nil   // a DTD or a processing instruction inside the document
                } else if bytes[index] == UInt8(ascii: "<") {
                    guard let child = element(depth: depth + 1) else { return nil }
                    node.children.append(child)
                } else if bytes[index] == UInt8(ascii: "&") {
                    guard let decoded = entity() else { return nil }
                    text += decoded
                } else {
                    text.append(bytes[index])
                    index += 1
                }
            }
            return nil
        }

        mutating func name() -> String? {
            let start = index
            while index < bytes.count, !isSpace(bytes[index]), ![UInt8(ascii: ">"), UInt8(ascii: "/"), UInt8(ascii: "<"), UInt8(ascii: "=")].contains(bytes[index]) {
                index += 1
            }
            return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
        }

        /// `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`, `&#N;` or `&#xH;`, as UTF-8.
        mutating func entity() -> [UInt8]? {
            guard let end = bytes[index...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else { return nil }
            let body = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
            index = end + 1
            switch body {
            case "amp": return Array("&".utf8)
            case "lt": return Array("<".utf8)
            case "gt": return Array(">".utf8)
            case "quot": return Array("\"".utf8)
            case "apos": return Array("'".utf8)
            default:
                guard body.hasPrefix("#") else { return nil }
                let digits = body.dropFirst()
                let value = digits.hasPrefix("x") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
                guard let value, let scalar = Unicode.Scalar(value) else { return nil }
                return Array(String(Character(scalar)).utf8)
            }
        }

        func starts(with prefix: StaticString) -> Bool {
            let count = prefix.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            return prefix.withUTF8Buffer { $0.elementsEqual(bytes[index..<(index + count)]) }
        }

        /// Moves past the next `marker`; `false` (at the end) when there is none.
        mutating func skip(past marker: StaticString) -> Bool {
            while index < bytes.count {
                if starts(with: marker) {
                    index += marker.utf8CodeUnitCount
                    return true
                }
                index += 1
            }
            return false
        }

        func isSpace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
        }
    }
}
