import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Imagery

/// One pass of Foundation's `XMLParser` (libxml2's SAX parser underneath, with its entity
/// amplification and nesting limits) over an SVG document, writing the document anew as it
/// goes: only what ``SVGSanitizer`` keeps, entities in attribute values already expanded, no document type,
/// comment or processing instruction. It counts the elements as they come and records what
/// references what for ``SVGReferenceGraph``.
final class SVGDocumentParser: NSObject, XMLParserDelegate {
    static let svgNamespace = "http://www.w3.org/2000/svg"
    static let xlinkNamespace = "http://www.w3.org/1999/xlink"
    static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"

    let limits: SVGLimits
    /// Pixels the document's embedded images may still hold.
    var imagePixelsLeft: Int
    /// The most bytes written before the parse stops: entities can make a document grow.
    let outputLimit: Int
    private(set) var output: [UInt8] = []
    private(set) var failure: ImageError?
    var graph = SVGReferenceGraph()
    private var parser: XMLParser?
    private var prefixes: [String: [String]] = [:]
    /// Above 0 inside an element that is dropped with everything in it.
    private var skipping = 0
    private var parsedElements = 0
    private var open: [(name: String, node: Int)] = []
    /// The filter whose primitives are being read, and its cost so far.
    private var currentFilter: (id: String, cost: SVGReferenceGraph.FilterCost)?
    /// Text of the `<style>` element being read, up to its first child element.
    private var style: String?
    /// Whether the `<style>` element being read has had a child element.
    private var styleHadChild = false
    private var sawRoot = false

    init(limits: SVGLimits, maximumImagePixels: Int, inputLength: Int) {
        self.limits = limits
        self.imagePixelsLeft = maximumImagePixels
        self.outputLimit = inputLength * 4 + (1 << 20)
    }

    func parse(_ bytes: [UInt8]) throws(ImageError) -> [UInt8] {
        // From a stream, which XMLParser feeds to libxml2 in chunks: given the whole document at
        // once, libxml2 refuses one over 10 MB ("huge input lookup") whatever SVG_UNLIMITED says.
        // An instruction without data crashed Foundation's XMLParser (SVGInstructions).
        let parser = XMLParser(stream: InputStream(data: Data(SVGInstructions.givenData(bytes))))
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = true
        parser.shouldResolveExternalEntities = false
        parser.externalEntityResolvingPolicy = .never
        parser.delegate = self
        self.parser = parser
        defer { self.parser = nil }
        let parsed = parser.parse()
        if let failure { throw failure }
        guard parsed, sawRoot, open.isEmpty else {
            throw .corrupt(.svg, detail: "not well-formed XML" + (parser.parserError.map { ": \($0.localizedDescription)" } ?? ""))
        }
        return output
    }

    var currentFilterIsParent: Bool { currentFilter != nil && open.last?.name == "filter" }

    func addToCurrentFilter(_ change: (inout SVGReferenceGraph.FilterCost) -> Void) {
        guard var filter = currentFilter else { return }
        change(&filter.cost)
        currentFilter = filter
    }

    func fail(_ detail: String) {
        guard failure == nil else { return }
        failure = .corrupt(.svg, detail: detail)
        parser?.abortParsing()
    }

    // MARK: Elements

    func parser(_ parser: XMLParser, didStartMappingPrefix prefix: String, toURI namespaceURI: String) {
        prefixes[prefix, default: []].append(namespaceURI)
    }

    func parser(_ parser: XMLParser, didEndMappingPrefix prefix: String) {
        prefixes[prefix]?.removeLast()
    }

    func namespace(ofPrefix prefix: String) -> String? {
        switch prefix {
        case "xml": Self.xmlNamespace
        default: prefixes[prefix]?.last
        }
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
        attributes attributeDict: [String: String]
    ) {
        guard failure == nil else { return }
        parsedElements += 1
        if parsedElements > limits.maximumElementCount { return fail("more than \(limits.maximumElementCount) elements") }
        if skipping > 0 {
            skipping += 1
            return
        }
        if style != nil {
            // A style sheet has no elements. Its text is flushed at its own end, but closing a
            // child flushed it early and wrote the text after that child raw, `@import` and all
            // (`<style><g/>@import …</style>`): a child goes, with the text after it.
            styleHadChild = true
            skipping = 1
            return
        }
        // Elements with no namespace render in librsvg as SVG's do; they are written as SVG's.
        let isSVG = (namespaceURI ?? "").isEmpty || namespaceURI == Self.svgNamespace
        if !sawRoot {
            guard isSVG, elementName == "svg" else { return fail("the root element is <\(elementName)>, not <svg>") }
            sawRoot = true
        }
        guard isSVG, keepsElement(elementName, attributes: attributeDict) else {
            skipping = 1
            return
        }
        let attributes = sanitizedAttributes(of: elementName, attributeDict)
        write("<" + elementName)
        if open.isEmpty { write(" xmlns=\"\(Self.svgNamespace)\" xmlns:xlink=\"\(Self.xlinkNamespace)\"") }
        for attribute in attributes.written {
            write(" " + attribute.name + "=\"")
            writeEscaped(attribute.value, inAttribute: true)
            write("\"")
        }
        write(">")
        recordFilterPrimitive(elementName, attributeDict)
        let node = graph.open(id: attributes.id, instantiates: attributes.instantiates, filter: attributes.filter)
        open.append((elementName, node))
        if elementName == "filter", let id = attributes.id { currentFilter = (id, SVGReferenceGraph.FilterCost()) }
        if elementName == "style" { style = "" }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        guard failure == nil else { return }
        if skipping > 0 {
            skipping -= 1
            return
        }
        guard let (name, node) = open.popLast() else { return }
        if let text = style {
            style = nil
            styleHadChild = false
            if let safe = SVGStyle.sanitized(text) { writeEscaped(safe, inAttribute: false) }
        }
        if name == "filter", let filter = currentFilter {
            if graph.filters[filter.id] == nil { graph.filters[filter.id] = filter.cost }
            currentFilter = nil
        }
        write("</" + name + ">")
        graph.close(node)
    }

    /// Scripts, embedded documents, forms (as imgproxy drops them) and animations that set a
    /// link or an event handler are dropped with their content.
    private func keepsElement(_ name: String, attributes: [String: String]) -> Bool {
        let lowered = name.lowercased()
        if Self.droppedElements.contains(lowered) { return false }
        if Self.animationElements.contains(lowered), let target = attributes["attributeName"] {
            let local = target.split(separator: ":").last.map { SVGText.trimmed(String($0)).lowercased() } ?? ""
            if local == "href" || local.hasPrefix("on") || local == "style" { return false }
        }
        return true
    }

    static let droppedElements: Set<String> = [
        "script", "foreignobject", "handler", "listener", "iframe", "embed", "object", "frame", "frameset",
        "audio", "video", "canvas", "base", "link", "meta", "form",
    ]
    static let animationElements: Set<String> = ["set", "animate", "animatetransform", "animatemotion", "animatecolor"]

    // MARK: Text

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard failure == nil, skipping == 0, !open.isEmpty else { return }
        if style != nil {
            if !styleHadChild { style? += string }
        } else {
            writeEscaped(string, inAttribute: false)
        }
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        self.parser(parser, foundCharacters: String(decoding: CDATABlock, as: UTF8.self))
    }

    func parser(_ parser: XMLParser, foundIgnorableWhitespace whitespaceString: String) {
        self.parser(parser, foundCharacters: whitespaceString)
    }

    // MARK: Document type and errors

    func parser(_ parser: XMLParser, foundExternalEntityDeclarationWithName name: String, publicID: String?, systemID: String?) {
        fail("an external entity (\(name.prefix(40)))")
    }

    func parser(
        _ parser: XMLParser, foundUnparsedEntityDeclarationWithName name: String, publicID: String?, systemID: String?, notationName: String?
    ) {
        fail("an unparsed entity (\(name.prefix(40)))")
    }

    func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
        fail("a reference to an external entity")
        return nil
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        let code = (parseError as NSError).code
        // libxml2's namespace warnings and errors (an undeclared or relative namespace): the
        // document is still well-formed XML, and librsvg reads it the same way.
        if code == 99 || code == 100 || (200...204).contains(code) { return }
        fail("not well-formed XML (libxml2 error \(code), line \(parser.lineNumber))")
    }

    // MARK: Output

    func write(_ text: String) {
        output.append(contentsOf: text.utf8)
        if output.count > outputLimit { fail("the document grows past \(outputLimit) bytes as its entities expand") }
    }

    func writeEscaped(_ text: String, inAttribute: Bool) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): output.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): output.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): output.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\"") where inAttribute: output.append(contentsOf: "&quot;".utf8)
            // Written as references so that the next parser keeps them, as this one read them.
            case 0x09 where inAttribute: output.append(contentsOf: "&#9;".utf8)
            case 0x0A where inAttribute: output.append(contentsOf: "&#10;".utf8)
            case 0x0D: output.append(contentsOf: "&#13;".utf8)
            default: output.append(byte)
            }
        }
        if output.count > outputLimit { fail("the document grows past \(outputLimit) bytes as its entities expand") }
    }
}
