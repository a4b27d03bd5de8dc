import Imagery

/// Makes an SVG document safe to serve as it is and to render: the document is parsed as XML
/// (Foundation's `XMLParser`, libxml2's parser with its entity-expansion and depth limits),
/// held to ``SVGLimits``, and written anew with only what draws.
///
/// What goes: scripts, `<foreignObject>` and other embedded documents, and `<form>` (with
/// their content), event-handler attributes (`onload` …), any attribute whose value names a
/// script scheme (`javascript:` in any case, with entities, tabs or newlines inside), `<set>`
/// and `<animate…>` elements that change a link, an event handler or a style, links that leave
/// the document (`href` but to `#fragment`, and any `url()` in CSS but to a fragment), CSS
/// with `@import` or escapes (a presentation attribute or animation value whose escapes,
/// comments or case spell `url(`, `image-set(`, `expression(` or `@import` too), child
/// elements of `<style>` and its text after them, attributes of editors' namespaces, comments, processing
/// instructions (`xml-stylesheet`) and the document type: its internal entities are expanded in
/// attribute values first, and one that declares an external entity (`SYSTEM` or `PUBLIC` in
/// its internal subset) is refused, as is one with a parameter entity or an attribute declared
/// without a default (``SVGDocumentType``). In text, Linux's `XMLParser` reports no entity reference
/// but the five predefined and character references, so `&name;` there is dropped.
/// `<image>` keeps a `data:` URL only of a PNG or baseline JPEG whose size fits the pixel
/// limit. A document declared in an encoding libxml2 does not decode itself (UTF-7, Shift_JIS
/// …) is refused (``SVGEncoding``); a processing instruction without data is given a space
/// before libxml2 reads it (``SVGInstructions``). What stays is well-formed SVG that renders as the original
/// did without its scripts and outside references; the same document always gives the same
/// bytes.
///
/// ```swift
/// let safe = try SVGSanitizer.sanitize(uploadedBytes)          // serve as image/svg+xml
/// ```
public enum SVGSanitizer {
    /// The sanitized document.
    ///
    /// - Throws: `ImageError.unrecognizedFormat` for bytes that are not an SVG document,
    ///   `.corrupt(.svg, …)` for malformed XML, external entities, a declared encoding it does
    ///   not read, or a document over `limits`.
    public static func sanitize(_ bytes: [UInt8], limits: SVGLimits = SVGLimits()) throws(ImageError) -> [UInt8] {
        try document(bytes, limits: limits, maximumImagePixels: DecodingOptions().maximumPixelCount).bytes
    }

    /// A sanitized document, and what rendering it runs.
    struct Document {
        var bytes: [UInt8]
        var measure: SVGReferenceGraph.Measure
    }

    static func document(_ bytes: [UInt8], limits: SVGLimits, maximumImagePixels: Int) throws(ImageError) -> Document {
        try limits.checkSize(bytes.count)
        guard ImageFormat(sniffing: bytes) == .svg else {
            throw .unrecognizedFormat(signature: ImageError.signature(of: bytes))
        }
        try SVGEncoding.check(bytes)
        if SVGDocumentType.declaresExternalContent(bytes) {
            throw .corrupt(.svg, detail: "the document type declares an external entity (SYSTEM or PUBLIC in its internal subset)")
        }
        if let declaration = SVGDocumentType.unreadDeclaration(bytes) {
            throw .corrupt(.svg, detail: "the document type \(declaration), which Foundation's XMLParser cannot read")
        }
        let parser = SVGDocumentParser(limits: limits, maximumImagePixels: maximumImagePixels, inputLength: bytes.count)
        let output = try parser.parse(bytes)
        return Document(bytes: output, measure: try parser.graph.measure(limits: limits))
    }
}
