import Imagery

extension SVGDocumentParser {
    /// An element's attributes as written, in name order (so that the same document always
    /// gives the same bytes), and what they make it refer to.
    struct Attributes {
        var written: [(name: String, value: String)] = []
        var id: String?
        var instantiates: String?
        var filter: String?
    }

    /// Keeps attributes without a namespace, `xlink:href` (in whatever prefix the document
    /// bound to XLink) and `xml:space`/`xml:lang`; drops event handlers, script schemes, links
    /// out of the document and CSS that loads anything, however escapes, comments or case
    /// spell it (``SVGStyle/mayLoad(_:)``).
    ///
    /// The output is a fixed point: sanitizing it again gives the same bytes. So attributes are
    /// written in the order of the names written, a name with an empty prefix or local part
    /// (`:x`, which libxml2 reports as it is) goes rather than being read as `x`, and of two
    /// prefixes bound to XLink the first `href` (by qualified name) stays: a second
    /// `xlink:href` would make the output malformed.
    func sanitizedAttributes(of element: String, _ attributes: [String: String]) -> Attributes {
        var result = Attributes()
        var names: Set<String> = []
        for (qualified, original) in attributes.sorted(by: { $0.key < $1.key }) {
            let parts = qualified.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard !parts.contains(where: \.isEmpty) else { continue }
            let local = parts[parts.count - 1]
            var name = local
            if parts.count == 2 {
                let uri = namespace(ofPrefix: parts[0])
                if local == "href", uri == Self.xlinkNamespace || (uri == nil && parts[0] == "xlink") {
                    // librsvg reads an undeclared `xlink:` prefix as XLink; so does the output.
                    name = "xlink:href"
                } else if uri == Self.xmlNamespace, local == "space" || local == "lang" {
                    name = "xml:" + local
                } else {
                    continue   // editors' own namespaces (Inkscape, Illustrator, RDF)
                }
            } else if local.lowercased().hasPrefix("on") {
                continue   // event handlers
            }
            guard !names.contains(name) else { continue }
            var value = original
            if local == "href" {
                guard let kept = reference(value, of: element, into: &result) else { continue }
                value = kept
            } else {
                if SVGText.hasScriptScheme(value) { continue }
                // Read as CSS reads names, since renderers parse presentation attributes and
                // animation values (`values`, `from`, `to`, `by`) as CSS: `u\72l(` is `url(`.
                if name == "style" || SVGStyle.mayLoad(value) {
                    guard let safe = SVGStyle.sanitized(value), !safe.isEmpty else { continue }
                    value = safe
                }
            }
            switch name {
            case "id": result.id = SVGText.trimmed(value)
            case "filter": result.filter = SVGStyle.fragmentURL(in: value) ?? result.filter
            case "style": result.filter = Self.filterProperty(in: value) ?? result.filter
            default: break
            }
            names.insert(name)
            result.written.append((name, value))
        }
        result.written.sort { $0.name < $1.name }
        return result
    }

    /// A link that stays inside the document, or a raster image in a `data:` URL on `<image>`
    /// and `<feImage>`; `nil` for anything else (librsvg would refuse it without a base, but a
    /// browser showing the document would follow it).
    private func reference(_ value: String, of element: String, into attributes: inout Attributes) -> String? {
        let link = SVGText.trimmed(value)
        if link.hasPrefix("#"), link.count > 1 {
            if element == "use" || element == "feImage" { attributes.instantiates = String(link.dropFirst()) }
            return link
        }
        guard element == "image" || element == "feImage", link.lowercased().hasPrefix("data:") else { return nil }
        return SVGDataImage.checked(link, pixelsLeft: &imagePixelsLeft)
    }

    /// The fragment of a `filter` declaration in a `style` attribute.
    static func filterProperty(in style: String) -> String? {
        for declaration in style.split(separator: ";") {
            let pair = declaration.split(separator: ":", maxSplits: 1)
            guard pair.count == 2, SVGText.trimmed(String(pair[0])).lowercased() == "filter" else { continue }
            return SVGStyle.fragmentURL(in: String(pair[1]))
        }
        return nil
    }

    /// Adds a primitive of the `<filter>` being read to its cost, by how its time grows.
    func recordFilterPrimitive(_ element: String, _ attributes: [String: String]) {
        guard currentFilterIsParent, element.hasPrefix("fe") else { return }
        func numbers(_ name: String) -> [Double] {
            (attributes[name] ?? "").split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" || $0 == "\n" })
                .compactMap { Double($0) }.filter { $0.isFinite && $0 >= 0 }
        }
        addToCurrentFilter { cost in
            cost.primitives += 1
            switch element {
            case "feTurbulence":
                cost.weight += min(1_000_000, max(1, numbers("numOctaves").first ?? 1))
            case "feConvolveMatrix":
                let order = numbers("order")
                let (x, y) = (order.first ?? 3, order.count > 1 ? order[1] : order.first ?? 3)
                cost.weight += max(1, min(1e12, x * y) / 8)
            case "feMorphology":
                cost.morphologyRadii.append(min(1e9, numbers("radius").max() ?? 0))
            default:
                cost.weight += 1
            }
        }
    }
}
