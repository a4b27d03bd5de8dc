/// CSS read the way its tokenizer reads names, for the checks that a spelling must not get
/// past: `u\72l(`, `\75rl(` and `@\69mport` are `url(` and `@import` to librsvg's cssparser and
/// to browsers alike, in presentation attributes and animation values as in style sheets.
///
/// A reading decodes escapes everywhere, comments included (a backslash there is no escape,
/// but decoding one only ever shows more), folds ASCII case and drops the spaces before `(`.
/// A second reading also removes comments, so that a name split by one (`u/**/rl(`, which CSS
/// itself reads as two tokens) counts as whole: a false alarm costs a declaration, a miss a
/// request to another host. Neither reading is ever written out: what is kept is the text
/// as it came, or rewritten by ``sanitized(_:)``, which checks its own output the same way.
extension SVGStyle {
    /// Whether `value`, read as CSS, names `url(`, `image-set(` (with `-webkit-image-set(`),
    /// `expression(` or `@import`: an attribute that does goes through ``sanitized(_:)``.
    static func mayLoad(_ value: String) -> Bool {
        // Each of those holds `(` or `@`, and only an escape spells either without them: path
        // data, most of a drawing's bytes, has none of the three.
        let marks: [UInt8] = [UInt8(ascii: "("), UInt8(ascii: "@"), UInt8(ascii: "\\")]
        guard value.utf8.contains(where: { marks.contains($0) }) else { return false }
        return readings(of: value).contains { reading in
            loadingCalls.contains { holds(reading, $0) }
        }
    }

    /// Whether `css`, read as CSS, names any of ``loading`` or a `url()` of anything but a
    /// fragment of the document.
    static func loadsOutside(_ css: String) -> Bool {
        readings(of: css).contains { reading in
            loadingNames.contains { holds(reading, $0) } || hasOutsideURL(reading)
        }
    }

    /// `css` with escapes decoded, ASCII letters in lower case and no space before `(`; and,
    /// when it has comments, the same without them.
    static func readings(of css: String) -> [[Unicode.Scalar]] {
        let decoded = decodingEscapes(Array(css.unicodeScalars))
        let uncommented = removingComments(decoded)
        guard uncommented.count != decoded.count else { return [closingUp(decoded)] }
        return [closingUp(decoded), closingUp(uncommented)]
    }

    private static let loadingCalls: [[Unicode.Scalar]] = ["url(", "image-set(", "expression(", "@import"].map { Array($0.unicodeScalars) }
    private static let loadingNames: [[Unicode.Scalar]] = SVGStyle.loading.map { Array($0.unicodeScalars) }

    private static func hasOutsideURL(_ reading: [Unicode.Scalar]) -> Bool {
        var index = 0
        while let start = urlStart(in: reading, from: index) {
            let (argument, end) = urlArgument(reading, from: start + 4)
            if !isFragment(argument) { return true }
            index = end
        }
        return false
    }

    /// CSS Syntax's escapes: a backslash and one to six hex digits (then one optional space),
    /// or a backslash and any other character but a newline, which stands for itself. A
    /// backslash before a newline, or at the end, stands for nothing here.
    private static func decodingEscapes(_ scalars: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var result: [Unicode.Scalar] = []
        result.reserveCapacity(scalars.count)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            guard scalar == "\\" else {
                result.append(folded(scalar))
                continue
            }
            guard index < scalars.count else { break }
            if let first = hexValue(scalars[index]) {
                var value = first
                var digits = 1
                index += 1
                while digits < 6, index < scalars.count, let next = hexValue(scalars[index]) {
                    value = value << 4 | next
                    digits += 1
                    index += 1
                }
                if index < scalars.count, isSpace(scalars[index]) { index = afterSpace(scalars, at: index) }
                result.append(folded(codePoint(value)))
            } else if isNewline(scalars[index]) {
                index = afterSpace(scalars, at: index)
            } else {
                result.append(folded(scalars[index]))
                index += 1
            }
        }
        return result
    }

    /// `scalars` without `/* … */`; an unclosed comment runs to the end.
    private static func removingComments(_ scalars: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var result: [Unicode.Scalar] = []
        result.reserveCapacity(scalars.count)
        var index = 0
        while index < scalars.count {
            guard scalars[index] == "/", index + 1 < scalars.count, scalars[index + 1] == "*" else {
                result.append(scalars[index])
                index += 1
                continue
            }
            index += 2
            while index < scalars.count, !(scalars[index] == "*" && index + 1 < scalars.count && scalars[index + 1] == "/") {
                index += 1
            }
            index += 2
        }
        return result
    }

    /// `scalars` without the spaces before each `(`: `url (x)` is no call in CSS, but a
    /// renderer that reads it as one must not find a link there.
    private static func closingUp(_ scalars: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var result: [Unicode.Scalar] = []
        result.reserveCapacity(scalars.count)
        for scalar in scalars {
            if scalar == "(" {
                while let last = result.last, isSpace(last) { result.removeLast() }
            }
            result.append(scalar)
        }
        return result
    }

    private static func holds(_ reading: [Unicode.Scalar], _ name: [Unicode.Scalar]) -> Bool {
        guard let first = name.first, reading.count >= name.count else { return false }
        var index = 0
        while index + name.count <= reading.count {
            if reading[index] == first, reading[index..<index + name.count].elementsEqual(name) { return true }
            index += 1
        }
        return false
    }

    /// CSS names are ASCII case-insensitive, and no other letter folds onto an ASCII one there.
    private static func folded(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        guard (0x41...0x5A).contains(scalar.value) else { return scalar }
        return Unicode.Scalar(UInt8(truncatingIfNeeded: scalar.value) | 0x20)
    }

    /// What an escape's digits stand for: zero, a surrogate or a value past Unicode stand for
    /// U+FFFD, as in CSS Syntax.
    private static func codePoint(_ value: UInt32) -> Unicode.Scalar {
        let replacement: Unicode.Scalar = "\u{FFFD}"
        guard value != 0 else { return replacement }
        return Unicode.Scalar(value) ?? replacement
    }

    private static func hexValue(_ scalar: Unicode.Scalar) -> UInt32? {
        switch scalar.value {
        case 0x30...0x39: scalar.value - 0x30
        case 0x41...0x46: scalar.value - 0x41 + 10
        case 0x61...0x66: scalar.value - 0x61 + 10
        default: nil
        }
    }

    /// CSS's whitespace: space, tab and its newlines.
    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || isNewline(scalar)
    }

    private static func isNewline(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\n" || scalar == "\r" || scalar == "\u{0C}"
    }

    /// The index after the whitespace character at `index`, a CR LF pair counting as one.
    private static func afterSpace(_ scalars: [Unicode.Scalar], at index: Int) -> Int {
        scalars[index] == "\r" && index + 1 < scalars.count && scalars[index + 1] == "\n" ? index + 2 : index + 1
    }
}
