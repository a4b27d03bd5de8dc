import Foundation
import Imagery
@testable import ImageryImgproxy
import Testing

/// URLs quoted from imgproxy's documentation and its parser tests, with the plans they must
/// give: the shared model checked against imgproxy itself, not only against its other half.
@Suite("imgproxy's own URLs give the plans imgproxy documents")
struct ImgproxyGoldenTests {
    struct Golden: Sendable, CustomTestStringConvertible {
        /// The path after the host, as the source quotes it.
        var path: String
        var source: String
        /// The decode stage's resize identifier, or "original".
        var resize: String
        var upscaling = false
        /// The processors' identifiers, in order.
        var processors: [String] = []
        var format: ImageFormat?
        var quality = 80
        var testDescription: String { path }
    }

    static let defaults = ImgproxyPlan.Defaults(quality: 80, maximumPixelCount: 50_000_000, writableFormats: [.jpeg, .png, .webp])

    static let goldens: [Golden] = [
        // docs: "Signing the URL", and processing.mdx "Example": fill 300×400, no enlarge, smart gravity, PNG.
        Golden(
            path: "/insecure/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png",
            source: "http://example.com/images/curiosity.jpg", resize: "original",
            processors: ["imgproxy-resize(fill,300x400,false,sm)"], format: .png
        ),
        Golden(
            path: "/insecure/rs:fill:300:400:0/g:sm/plain/http://example.com/images/curiosity.jpg@png",
            source: "http://example.com/images/curiosity.jpg", resize: "original",
            processors: ["imgproxy-resize(fill,300x400,false,sm)"], format: .png
        ),
        // docs: "Getting started": fill 300×400 with smart gravity, JPEG.
        Golden(
            path: "/insecure/rs:fill:300:400/g:sm/aHR0cHM6Ly9tLm1l/ZGlhLWFtYXpvbi5j/b20vaW1hZ2VzL00v/TVY1QllUY3hOamhr/WmpndE5Ea3dPQzAw/TXpReUxUaGxaRFV0/Tm1OaU1UaGtZek5r/T0dKbFhrRXlYa0Zx/Y0djQC5fVjFfRk1q/cGdfVVgyMTYwXy5q/cGc.jpg",
            source: "https://m.media-amazon.com/images/M/MV5BYTcxNjhkZjgtNDkwOC00MzQyLThlZDUtNmNiMThkYzNkOGJlXkEyXkFqcGc@._V1_FMjpg_UX2160_.jpg",
            resize: "original", processors: ["imgproxy-resize(fill,300x400,false,sm)"], format: .jpeg
        ),
        // docs: "Serving local files": fit 300×200 from the local root, JPEG.
        Golden(
            path: "/insecure/rs:fit:300:200/plain/local:///logos/imgproxy.png@jpg",
            source: "local:///logos/imgproxy.png", resize: "fit 300x200", format: .jpeg
        ),
        // imgproxy's options/processing_options_test.go.
        Golden(
            path: "/unsafe/resize:fill:100:200:1/plain/http://images.dev/lorem/ipsum.jpg",
            source: "http://images.dev/lorem/ipsum.jpg", resize: "fill 100x200", upscaling: true
        ),
        Golden(
            path: "/unsafe/size:100:200:1/plain/http://images.dev/lorem/ipsum.jpg",
            source: "http://images.dev/lorem/ipsum.jpg", resize: "fit 100x200", upscaling: true
        ),
        Golden(path: "/unsafe/gravity:fp:0.5:0.75/plain/http://images.dev/lorem/ipsum.jpg", source: "http://images.dev/lorem/ipsum.jpg", resize: "original"),
        Golden(path: "/unsafe/quality:55/plain/http://images.dev/lorem/ipsum.jpg", source: "http://images.dev/lorem/ipsum.jpg", resize: "original", quality: 55),
        Golden(
            path: "/unsafe/background:128:129:130/plain/http://images.dev/lorem/ipsum.jpg", source: "http://images.dev/lorem/ipsum.jpg",
            resize: "original", processors: ["background(rgba(128, 129, 130, 255))"]
        ),
        Golden(
            path: "/unsafe/background:ffddee/plain/http://images.dev/lorem/ipsum.jpg", source: "http://images.dev/lorem/ipsum.jpg",
            resize: "original", processors: ["background(rgba(255, 221, 238, 255))"]
        ),
        Golden(path: "/unsafe/blur:0.2/plain/http://images.dev/lorem/ipsum.jpg", source: "http://images.dev/lorem/ipsum.jpg", resize: "original", processors: ["blur(0.2)"]),
        Golden(
            path: "/unsafe/sharpen:0.2/plain/http://images.dev/lorem/ipsum.jpg", source: "http://images.dev/lorem/ipsum.jpg", resize: "original",
            processors: ["sharpen(0.2,1.0,0)"]
        ),
        Golden(path: "/unsafe/dpr:2/w:100/plain/http://images.dev/lorem/ipsum.jpg", source: "http://images.dev/lorem/ipsum.jpg", resize: "width 200"),
        Golden(path: "/unsafe/cachebuster:123/plain/http://images.dev/lorem/ipsum.jpg", source: "http://images.dev/lorem/ipsum.jpg", resize: "original"),
        Golden(path: "/unsafe/format:webp/plain/http://images.dev/lorem/ipsum.jpg", source: "http://images.dev/lorem/ipsum.jpg", resize: "original", format: .webp),
        // The resize box applies to the rotated image (imgproxy's prepare.go swaps the source's sides).
        Golden(
            path: "/unsafe/rs:fit:100:200/rot:90/plain/http://images.dev/lorem/ipsum.jpg", source: "http://images.dev/lorem/ipsum.jpg",
            resize: "fit 200x100", processors: ["rotate(90)"]
        ),
    ]

    @Test("Each documented URL parses to its plan", arguments: goldens)
    func golden(_ golden: Golden) throws {
        let path = try ImgproxyPath(parsing: golden.path)
        #expect(path.source == golden.source)
        let options = try ImgproxyOptions(segments: path.options)
        let plan = try ImgproxyPlan(
            options: options, source: .url(URL(string: "http://placeholder.test/")!), fileExtension: path.fileExtension, defaults: Self.defaults
        )
        #expect(plan.request.resize?.identifier ?? "original" == golden.resize)
        #expect(plan.request.allowsUpscaling == golden.upscaling)
        #expect(plan.request.processors.map(\.identifier) == golden.processors)
        #expect(plan.format == golden.format)
        #expect(plan.quality == golden.quality)
    }

    @Test("The documented example's options, signed with the documented key, give the documented URL")
    func documentedURLFromOptions() throws {
        var options = ImgproxyOptions()
        options.resizingType = .fill
        options.width = 300
        options.height = 400
        options.gravity = .smart
        let builder = ImgproxyURLBuilder(
            baseURL: URL(string: "http://imgproxy.example.com")!,
            signer: try ImgproxySigner(keysHex: "736563726574", saltsHex: "68656C6C6F")
        )
        // imgproxy writes "rs:fill:300:400:0"; the builder leaves the default enlarge out, so
        // its path differs, and so does its signature: check both against a fresh verify.
        let path = builder.path(source: "http://example.com/images/curiosity.jpg", options: options, format: .png)
        let parsed = try ImgproxyPath(parsing: path)
        #expect(try ImgproxyOptions(segments: parsed.options) == options)
        #expect(parsed.source == "http://example.com/images/curiosity.jpg" && parsed.fileExtension == "png")
        #expect(try ImgproxySigner(keysHex: "736563726574", saltsHex: "68656C6C6F").isValid(parsed.signature, for: parsed.signedPart))
    }

    @Test("A format this build does not write is refused by the plan, whichever way it is asked")
    func unwritableFormat() throws {
        for (segments, fileExtension) in [(["f:tiff"], nil), ([], "tiff"), ([], "bogus")] as [([String], String?)] {
            #expect(throws: ImgproxyError.self) {
                try ImgproxyPlan(
                    options: ImgproxyOptions(segments: segments), source: .file("/x"), fileExtension: fileExtension, defaults: Self.defaults
                )
            }
        }
    }
}
