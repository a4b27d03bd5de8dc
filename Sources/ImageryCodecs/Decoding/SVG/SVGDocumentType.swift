/// A look at an SVG document's type before it is parsed: whether its internal subset declares
/// anything external (`<!ENTITY x SYSTEM "file:///…">`, a parameter entity that names a DTD),
/// or anything Foundation's `XMLParser` cannot take.
///
/// `XMLParser` never loads such an entity (``SVGDocumentParser`` turns external entities off),
/// but on Linux it does not report the declaration either: it drops the reference silently.
/// A document that declares one is refused, as on Darwin, rather than served without it. The
/// document type's own external identifier (`<!DOCTYPE svg PUBLIC "…" "…svg11.dtd">`, as
/// editors write it) is allowed: libxml2 does not load the external subset.
///
/// An attribute declared without a default (`#IMPLIED`, `#REQUIRED`) reaches swift-corelibs-
/// foundation's callback as a null default value, which it reads as a C string: the process
/// crashed. Such a declaration is refused, and so is any parameter entity, whose replacement
/// text could spell one (or `SYSTEM`) in character references no scan of the bytes would see.
/// Editors write general entities (Illustrator's `<!ENTITY ns_svg "…">`), which stay.
enum SVGDocumentType {
    /// Whether the internal subset of the document type at the start of `bytes` holds the
    /// keyword `SYSTEM` or `PUBLIC` anywhere (in a declaration, a comment or a value: a false
    /// alarm costs a refusal, a miss would cost a file), or never ends.
    static func declaresExternalContent(_ bytes: [UInt8]) -> Bool {
        guard let subset = internalSubset(bytes) else { return false }
        guard let end = subset.end else { return true }
        let text = bytes[subset.start..<end]
        return contains(text, "SYSTEM") || contains(text, "PUBLIC")
    }

    /// Why the internal subset cannot be parsed, or `nil`: a parameter entity (a `%` outside
    /// quoted values, comments and processing instructions), or an `<!ATTLIST` declaration
    /// with `#IMPLIED` or `#REQUIRED` outside its quoted values.
    static func unreadDeclaration(_ bytes: [UInt8]) -> String? {
        guard let subset = internalSubset(bytes) else { return nil }
        let end = subset.end ?? bytes.count
        var position = subset.start
        var inAttributeList = false
        while position < end {
            let byte = bytes[position]
            if let skipped = skip(bytes, at: position) {
                guard let next = skipped else { return nil }   // never ends: libxml2 refuses it
                position = next
            } else if byte == UInt8(ascii: "%") {
                return "uses a parameter entity"
            } else if bytes[position...].starts(with: "<!ATTLIST".utf8) {
                inAttributeList = true
                position += 9
            } else if byte == UInt8(ascii: ">") {
                inAttributeList = false
                position += 1
            } else if inAttributeList, bytes[position...].starts(with: "#IMPLIED".utf8) || bytes[position...].starts(with: "#REQUIRED".utf8) {
                return "declares an attribute without a default value (#IMPLIED or #REQUIRED)"
            } else {
                position += 1
            }
        }
        return nil
    }

    /// A comment, a processing instruction or a quoted value at `index`: the index just past
    /// it (`.some(nil)` when it never ends); `nil` for anything else.
    private static func skip(_ bytes: [UInt8], at index: Int) -> Int?? {
        let byte = bytes[index]
        if bytes[index...].starts(with: "<!--".utf8) { return .some(find("-->", in: bytes, from: index)) }
        if bytes[index...].starts(with: "<?".utf8) { return .some(find("?>", in: bytes, from: index)) }
        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
            return .some(bytes[(index + 1)...].firstIndex(of: byte).map { $0 + 1 })
        }
        return nil
    }

    /// Where the internal subset starts (after `[`) and ends (at its `]`; `nil` when it never
    /// does), when the prolog has a document type with one.
    private static func internalSubset(_ bytes: [UInt8]) -> (start: Int, end: Int?)? {
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        func starts(_ text: String) -> Bool { bytes[index...].starts(with: text.utf8) }
        while true {
            while index < bytes.count, isSpace(bytes[index]) { index += 1 }
            if starts("<?") {
                guard let end = find("?>", in: bytes, from: index) else { return nil }
                index = end
            } else if starts("<!--") {
                guard let end = find("-->", in: bytes, from: index) else { return nil }
                index = end
            } else if starts("<!DOCTYPE") {
                break
            } else {
                return nil
            }
        }
        // The name and external identifier, up to `[` or the declaration's end.
        var position = index + 9
        var quote: UInt8?
        while position < bytes.count {
            let byte = bytes[position]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                return nil
            } else if byte == UInt8(ascii: "[") {
                break
            }
            position += 1
        }
        let start = position + 1
        // Declarations, comments, processing instructions and quoted values, up to `]`.
        position = start
        while position < bytes.count {
            if let skipped = skip(bytes, at: position) {
                guard let next = skipped else { return (start, nil) }
                position = next
            } else if bytes[position] == UInt8(ascii: "]") {
                return (start, position)
            } else {
                position += 1
            }
        }
        return (start, nil)
    }

    /// The index just past the first `pattern` at or after `index`.
    private static func find(_ pattern: String, in bytes: [UInt8], from index: Int) -> Int? {
        let pattern = Array(pattern.utf8)
        var position = index
        while position + pattern.count <= bytes.count {
            if bytes[position..<position + pattern.count].elementsEqual(pattern) { return position + pattern.count }
            position += 1
        }
        return nil
    }

    private static func contains(_ text: ArraySlice<UInt8>, _ word: String) -> Bool {
        let pattern = Array(word.utf8)
        guard text.count >= pattern.count else { return false }
        return (text.startIndex...(text.endIndex - pattern.count)).contains { text[$0..<$0 + pattern.count].elementsEqual(pattern) }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
