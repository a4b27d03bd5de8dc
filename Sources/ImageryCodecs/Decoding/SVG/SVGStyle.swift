/// The CSS of `<style>` elements, `style` attributes and presentation attributes, made safe: a
/// `url()` may name only a fragment of the document itself, and CSS that could load or run
/// anything another way is dropped whole. What is kept is read again as CSS reads names
/// (``readings(of:)``), so that no escape, comment or case spells a load the scan missed.
enum SVGStyle {
    /// Names that drop a style whole: each loads or runs something wherever it stands.
    static let loading = ["@import", "expression", "javascript:", "vbscript:", "behavior", "-moz-binding", "image-set", "@namespace"]

    /// `css` with every `url()` that is not a fragment replaced by `none`, or `nil` when it must
    /// be dropped.
    ///
    /// The rewrite is checked as well as `css`: what is returned passes unchanged, so the
    /// sanitizer's output sanitizes to itself (replacing `url(x)` in `expressiourl(x)` spells
    /// `expressionone`).
    static func sanitized(_ css: String) -> String? {
        guard isAllowed(css) else { return nil }
        let rewritten = rewritingURLs(css)
        guard rewritten == css || isAllowed(rewritten), !loadsOutside(rewritten) else { return nil }
        return rewritten
    }

    /// Whether `css` is free of ``loading``, script schemes and backslashes. An escape could
    /// spell `url(` or any of those in a way the rewrite would not see, so a style that has
    /// one goes whole; the backslash is looked for in bytes, since one joined by a combining
    /// mark makes a character of its own that a search of characters passes over.
    private static func isAllowed(_ css: String) -> Bool {
        guard !css.utf8.contains(UInt8(ascii: "\\")) else { return false }
        let lowered = css.lowercased()
        return !loading.contains(where: { lowered.contains($0) }) && !SVGText.hasScriptScheme(css)
    }

    /// The `url(#id)` fragment named by the first `url()` in `value`, if any (a `filter`).
    static func fragmentURL(in value: String) -> String? {
        let scalars = Array(value.unicodeScalars)
        guard let start = urlStart(in: scalars, from: 0) else { return nil }
        let (argument, _) = urlArgument(scalars, from: start + 4)
        guard argument.hasPrefix("#") else { return nil }
        return String(argument.dropFirst())
    }

    private static func rewritingURLs(_ css: String) -> String {
        let scalars = Array(css.unicodeScalars)
        var result = String.UnicodeScalarView()
        var index = 0
        while let start = urlStart(in: scalars, from: index) {
            result.append(contentsOf: scalars[index..<start])
            let (argument, end) = urlArgument(scalars, from: start + 4)
            if isFragment(argument) {
                result.append(contentsOf: "url(\(argument))".unicodeScalars)
            } else {
                result.append(contentsOf: "none".unicodeScalars)
            }
            index = end
        }
        result.append(contentsOf: scalars[index...])
        return String(result)
    }

    /// Where the next `url(`, in any case, begins.
    static func urlStart(in scalars: [Unicode.Scalar], from index: Int) -> Int? {
        var position = index
        while position + 4 <= scalars.count {
            // CSS names are ASCII case-insensitive.
            if scalars[position] == "u" || scalars[position] == "U", scalars[position + 1] == "r" || scalars[position + 1] == "R",
               scalars[position + 2] == "l" || scalars[position + 2] == "L", scalars[position + 3] == "(" {
                return position
            }
            position += 1
        }
        return nil
    }

    /// A `url(` argument as CSS reads it: quoted up to its closing quote, else up to the first
    /// `)`; and the index after the closing `)`.
    static func urlArgument(_ scalars: [Unicode.Scalar], from index: Int) -> (String, Int) {
        var position = index
        while position < scalars.count, scalars[position].properties.isWhitespace { position += 1 }
        var argument = String.UnicodeScalarView()
        if position < scalars.count, scalars[position] == "\"" || scalars[position] == "'" {
            let quote = scalars[position]
            position += 1
            while position < scalars.count, scalars[position] != quote {
                argument.append(scalars[position])
                position += 1
            }
            position += 1
        }
        while position < scalars.count, scalars[position] != ")" {
            if !scalars[position].properties.isWhitespace { argument.append(scalars[position]) }
            position += 1
        }
        return (String(argument), min(scalars.count, position + 1))
    }

    /// Whether a `url()` argument names an element of the document itself.
    static func isFragment(_ argument: String) -> Bool {
        argument.hasPrefix("#") && argument.count > 1 && argument.dropFirst().allSatisfy(isIDCharacter)
    }

    private static func isIDCharacter(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "-" || character == "_" || character == "." || character == ":"
    }
}

/// Checks on attribute and URL text.
enum SVGText {
    /// Whether `value` names a script scheme once whitespace and control characters (which
    /// browsers skip inside a URL) are removed and case is folded: `java&#x09;Script:` too,
    /// since the parser has already turned entities into characters. ASCII folding is enough:
    /// browsers read a scheme's letters as ASCII, and no other character folds onto these.
    static func hasScriptScheme(_ value: String) -> Bool {
        // Every such scheme ends in a colon, which folding neither adds nor removes; most values
        // (path data, lengths, colours) have none, and path data is most of a drawing's bytes.
        guard value.utf8.contains(UInt8(ascii: ":")) else { return false }
        var folded: [UInt8] = []
        folded.reserveCapacity(value.utf8.count)
        for byte in value.utf8 where byte > 0x20 && byte != 0x7F {
            folded.append(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte)
        }
        return scriptSchemes.contains { scheme in
            folded.count >= scheme.count && (0...(folded.count - scheme.count)).contains { start in
                folded[start] == scheme[0] && folded[start..<start + scheme.count].elementsEqual(scheme)
            }
        }
    }

    private static let scriptSchemes: [[UInt8]] = [
        "javascript:", "vbscript:", "livescript:", "data:text/html", "data:application/", "data:text/xml", "data:image/svg",
    ].map { Array($0.utf8) }

    /// `value` without the XML whitespace around it.
    static func trimmed(_ value: String) -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        var text = Substring(value)
        while let first = text.first, isSpace(first) { text.removeFirst() }
        while let last = text.last, isSpace(last) { text.removeLast() }
        return String(text)
    }
}
