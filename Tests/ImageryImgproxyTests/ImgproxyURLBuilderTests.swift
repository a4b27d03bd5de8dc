import Foundation
import Imagery
import ImageryImgproxy
import Testing

@Suite("ImgproxyURLBuilder: imgproxy URLs for the size an app shows")
struct ImgproxyURLBuilderTests {
    static let photo = URL(string: "https://cdn.example.com/photos/a.jpg")!
    static let encoded = "aHR0cHM6Ly9jZG4uZXhhbXBsZS5jb20vcGhvdG9zL2EuanBn"   // base64url of `photo`
    static let builder = ImgproxyURLBuilder(baseURL: URL(string: "https://img.example.com/")!)

    @Test("The resize goes into the URL, unsigned as _")
    func unsigned() {
        let url = Self.builder.url(for: ImageRequest(url: Self.photo, resize: .fill(width: 240, height: 240)))
        #expect(url?.absoluteString == "https://img.example.com/_/rs:fill:240:240/\(Self.encoded)")
        #expect(Self.builder.url(for: ImageRequest(url: Self.photo, resize: .width(300)))?.absoluteString
            == "https://img.example.com/_/rs:fit:300:0/\(Self.encoded)")
        #expect(Self.builder.url(for: ImageRequest(url: Self.photo))?.absoluteString
            == "https://img.example.com/_/rs:fit:0:0/\(Self.encoded)")
    }

    @Test("Signed as imgproxy signs (value from Python's hmac); rotation swaps the box; the format is the extension")
    func signedWithProcessors() throws {
        let signing = ImgproxyURLBuilder(
            baseURL: URL(string: "https://img.example.com")!,
            signer: try ImgproxySigner(
                keysHex: "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881",
                saltsHex: "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
            )
        )
        var request = ImageRequest(url: Self.photo, resize: .fit(width: 300, height: 200))
        request.processors = [.rotate(degrees: 90), .blur(sigma: 2), .circle, .sharpen()]
        let url = signing.url(for: request, format: .webp)
        #expect(url?.absoluteString == "https://img.example.com/-1RdK7vUq4lK0faF4mKYbE8iDvuqz4nbrc3kLfYy9ow/rs:fit:200:300/rot:90/bl:2/\(Self.encoded).webp")

        // What the server does leaves the request; the circle and what follows it stay on the device.
        let routed = signing.route(request, format: .webp)
        #expect(routed.source.identity == url?.absoluteString)
        #expect(routed.resize == nil)
        #expect(routed.processors.map(\.identifier) == request.processors.dropFirst(2).map(\.identifier))
    }

    @Test("Processors out of the server's order, or ones it lacks, stay on the device")
    func prefixOnly() {
        var request = ImageRequest(url: Self.photo, resize: .width(100))
        request.processors = [.sharpen(), .blur(sigma: 1)]   // the server blurs before it sharpens
        let routed = Self.builder.route(request)
        #expect(routed.source.identity.contains("/rs:fit:100:0/sh:1/"))
        #expect(routed.processors.map(\.identifier) == ["blur(1.0)"])
        request.processors = [.roundedCorners(8), .blur(sigma: 1)]
        #expect(Self.builder.route(request).processors.count == 2)
        request.processors = [.blur(sigma: ImgproxyLimits.maximumBlurSigma + 1)]   // past the server's limit
        #expect(Self.builder.route(request).processors.count == 1)
        // Both mirrors in one flip step, after the rotation; a third mirror stays on the device.
        request.processors = [.rotate(degrees: 180), .flip(.vertical), .flip(.horizontal), .flip(.vertical)]
        let flipped = Self.builder.route(request)
        #expect(flipped.source.identity.contains("/rot:180/fl:1:1/"))
        #expect(flipped.processors.map(\.identifier) == ["flip(vertical)"])
    }

    @Test("Files, sources with their own headers, and routed requests are left as they are")
    func notRouted() {
        let file = ImageRequest(source: .file("/tmp/a.jpg"), resize: .width(10))
        #expect(Self.builder.route(file).source.identity == file.source.identity)
        let private_ = ImageRequest(source: .url(Self.photo, headers: ["Authorization": "Bearer x"]), resize: .width(10))
        #expect(Self.builder.route(private_).source.identity == private_.source.identity)
        let huge = ImageRequest(url: Self.photo, resize: .fit(width: ImgproxyLimits.maximumOutputSide + 1, height: 10))
        #expect(Self.builder.route(huge).source.identity == huge.source.identity)   // the server would refuse it
        let once = Self.builder.route(ImageRequest(url: Self.photo, resize: .width(10)))
        #expect(Self.builder.route(once).source.identity == once.source.identity)
    }

    @Test("A pipeline with a request router keys and loads the routed request")
    func pipelineRoutes() {
        let pipeline = ImagePipeline(configuration: ImagePipeline.Configuration(decoder: UnusedDecoder()).with {
            $0.requestRouter = Self.builder
        })
        let request = ImageRequest(url: Self.photo, resize: .width(10))
        #expect(pipeline.cacheKey(for: request) == pipeline.cacheKey(for: Self.builder.route(request)))
        #expect(pipeline.cacheKey(for: request).sourceKey.hasPrefix("https://img.example.com/_/rs:fit:10:0/"))
    }
}

/// A decoder the key test never calls.
private struct UnusedDecoder: ImageDecoding {
    func decode(_ data: [UInt8], options: DecodingOptions) throws(ImageError) -> Bitmap { throw .emptyData }
    func decode(_ data: [UInt8], resize: Resize, allowsUpscaling: Bool, options: DecodingOptions) throws(ImageError) -> Bitmap {
        throw .emptyData
    }
}
