import Foundation
import Imagery
import ImageryCodecs
@testable import ImageryServer
import ImageryTestSupport
import Testing

/// SVG sources as imgproxy answers them: as SVG unless a raster format is asked for
/// (`--always-rasterize-svg` asks for one whenever the URL names none), sanitized
/// (`--sanitize-svg`), within a byte limit (`--svg-unlimited`), and sent with headers that
/// keep a browser from running anything in them. Passing through needs no SVG decoder, so
/// these run in every build; rasterizing needs the SVG trait.
extension ServerTests {
    static let svgRenders = CIRun.runs(needingTrait: "SVG", compiled: ImageDecoder.supportedFormats.contains(.svg))

    /// A drawing with everything a hostile SVG carries: a script, an event handler, a
    /// `javascript:` link in mixed case, an embedded HTML document and a reference to
    /// another URL (on the test's own origin, which counts what it is asked for).
    static func hostileSVG(_ origin: TestHTTPServer) -> [UInt8] {
        Array("""
        <svg xmlns="http://www.w3.org/2000/svg" width="100" height="50" onload="document.documentElement.setAttribute('data-onload', 'alert(1)')">
        <script>document.documentElement.setAttribute('data-ran', 'alert(2)')</script>
        <rect width="100" height="50" fill="#33aa77"/>
        <a href="JaVaScRiPt:alert(3)"><circle cx="25" cy="25" r="10" fill="#ffffff"/></a>
        <image href="http://127.0.0.1:\(origin.port)/secret.png" width="10" height="10"/>
        <foreignObject width="10" height="10"><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>
        </svg>
        """.utf8)
    }

    static func svgOrigin(_ documents: [String: [UInt8]] = [:]) throws -> TestHTTPServer {
        // The drawing names its origin's port, which exists only once the origin does.
        let served = Locked(documents)
        let origin = try TestHTTPServer { request in
            switch request.path {
            case "/rocket.jpg": .ok(Fixtures.rocket)
            // Served as an SVG, for a browser to run: what a page would be without the server.
            case "/control.svg": served.withLock { $0["/drawing.svg"] }.map { .headers(200, [(name: "Content-Type", value: "image/svg+xml")], $0) } ?? .status(404)
            default: served.withLock { $0[request.path] }.map { .ok($0) } ?? .status(404)
            }
        }
        served.withLock { $0["/drawing.svg"] = Self.hostileSVG(origin) }
        return origin
    }

    /// A server whose SVG settings come from `environment`, as an operator's would.
    static func svgServer(_ environment: [String: String]) async throws -> (server: ServerHarness, svg: SVGSettings) {
        let svg = try await ServerSettingsTests.load(environment: environment).configuration.svg
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.svg = svg
        }
        return (server, svg)
    }

    static func expectSVGAnswer(_ reply: ServerHarness.Reply, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == 200, "\(reply.status) \(reply.text.prefix(200))", sourceLocation: sourceLocation)
        #expect(reply.header("Content-Type") == "image/svg+xml", sourceLocation: sourceLocation)
        #expect(reply.header("Content-Security-Policy") == "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox", sourceLocation: sourceLocation)
        #expect(reply.header("X-Content-Type-Options") == "nosniff", sourceLocation: sourceLocation)
        #expect(ImageFormat(sniffing: reply.body) == .svg, sourceLocation: sourceLocation)
    }

    @Test("An SVG source is answered as SVG, sanitized, when the URL names no format or asks for svg; a raster format rasterizes it")
    func svgPassesThroughSanitized() async throws {
        let origin = try Self.svgOrigin()
        defer { origin.stop() }
        let server = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { server.cancel() }

        for options in ["rs:fit:300:300", "rs:fit:10:10/f:svg", "w:20"] {
            let reply = try await server.get(Self.plain(origin, "/drawing.svg", options: options))
            Self.expectSVGAnswer(reply)
            let text = reply.text.lowercased()
            for removed in ["script", "alert", "onload", "javascript", "foreignobject", "secret.png"] {
                #expect(!text.contains(removed), "\(options): \(removed) is still there: \(reply.text)")
            }
            // What draws stays, untouched by the URL's processing options.
            #expect(text.contains("<rect") && text.contains("<circle") && text.contains("width=\"100\""), "\(options): \(reply.text)")
        }
        let png = try await server.get(Self.plain(origin, "/drawing.svg", options: "w:20/f:png"))
        if Self.svgRenders {
            #expect(ServerHarness.expectImage(png, .png)?.width == 20)
        } else {
            #expect(png.status == 415, "a build without the SVG trait cannot rasterize: \(png.status)")
        }
        #expect(origin.events.count("request:/secret.png") == 0)
    }

    @Test("--sanitize-svg=false (IMGPROXY_SANITIZE_SVG) sends the document as it is, still under a policy that runs no script")
    func svgUnsanitized() async throws {
        let origin = try Self.svgOrigin()
        defer { origin.stop() }
        let (server, svg) = try await Self.svgServer(["IMGPROXY_SANITIZE_SVG": "false"])
        defer { server.cancel() }
        #expect(svg.sanitizes == false)
        let reply = try await server.get(Self.plain(origin, "/drawing.svg", options: "w:20"))
        Self.expectSVGAnswer(reply)
        #expect(reply.body == Self.hostileSVG(origin))
    }

    @Test("--always-rasterize-svg (IMGPROXY_ALWAYS_RASTERIZE_SVG): no format rasterizes, svg is still SVG; skip_processing:svg and raw are sanitized too")
    func svgAlwaysRasterized() async throws {
        let origin = try Self.svgOrigin()
        defer { origin.stop() }
        let (server, svg) = try await Self.svgServer(["IMGPROXY_ALWAYS_RASTERIZE_SVG": "true"])
        defer { server.cancel() }
        #expect(svg.alwaysRasterizes)

        let raster = try await server.get(Self.plain(origin, "/drawing.svg", options: "w:20"))
        if Self.svgRenders {
            // Negotiated as for any source: the drawing is opaque, so JPEG, the first preferred format.
            #expect(ServerHarness.expectImage(raster, .jpeg)?.width == 20)
        } else {
            #expect(raster.status == 415, "a build without the SVG trait cannot rasterize: \(raster.status)")
        }
        for options in ["w:20/f:svg", "skp:svg/w:20", "raw:1"] {
            let reply = try await server.get(Self.plain(origin, "/drawing.svg", options: options))
            Self.expectSVGAnswer(reply)
            #expect(!reply.text.contains("script") && reply.text.contains("<rect"), "\(options): \(reply.text)")
        }
    }

    @Test("A raster source asked for as svg is 422; a document over 10 MiB is 422 unless --svg-unlimited (IMGPROXY_SVG_UNLIMITED)")
    func svgLimits() async throws {
        // Comments, which the sanitizer drops, make the document large and its answer small; 1 MiB
        // each, since libxml2 refuses any one text node over 10 MB.
        let comment = "<!--" + String(repeating: "a", count: 1 << 20) + "-->"
        let large = Array(("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"8\" height=\"8\">" + String(repeating: comment, count: 11)
            + "<rect width=\"8\" height=\"8\"/></svg>").utf8)
        let origin = try Self.svgOrigin(["/large.svg": large])
        defer { origin.stop() }
        let limited = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { limited.cancel() }
        let (unlimited, svg) = try await Self.svgServer(["IMGPROXY_SVG_UNLIMITED": "true"])
        defer { unlimited.cancel() }
        #expect(svg.unlimited)

        let raster = try await limited.get(Self.plain(origin, "/rocket.jpg", options: "w:20/f:svg"))
        #expect(raster.status == 422 && raster.text.contains("only an SVG source"), "\(raster.status) \(raster.text)")
        let refused = try await limited.get(Self.plain(origin, "/large.svg", options: "f:svg"))
        #expect(refused.status == 422, "\(refused.status) \(refused.text.prefix(200))")
        let served = try await unlimited.get(Self.plain(origin, "/large.svg", options: "f:svg"))
        Self.expectSVGAnswer(served)
        #expect(served.body.count < 1_000 && served.text.contains("<rect"), "\(served.body.count) bytes")
    }
}
