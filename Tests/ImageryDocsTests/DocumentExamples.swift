// The README's and the DocC articles' code, compiled by every build. Each marked block must
// appear in its document (DocumentSnippetTests): change the code here, then the document.
import Foundation
import Imagery
import ImageryCodecs
import ImageryDiskCache
import ImageryHTTPClient
import ImageryImgproxy

// Stand-ins for the app around the examples.
struct AvatarDatabase: Sendable { func avatar(_ id: Int) async throws -> [UInt8] { [] } }
struct CoverStore: Sendable { func coverData(for id: Int) async throws -> Data { Data() } }
struct Cell { func show(_ image: Bitmap) {} }
struct AuthService: Sendable {
    struct Reply { let accessToken: String; let expiresIn: Int }
    func refresh() async throws -> Reply { Reply(accessToken: "", expiresIn: 0) }
}
struct Session { let userID: String }

func libraryExample(url: URL, cell: Cell, userID: Int, database: AvatarDatabase, upcoming: [URL], scrolledAway: [ImageRequest]) async throws {
    // Example: library begin
    let pipeline = ImagePipeline(configuration: .standard)   // ImageryCodecs supplies the decoder

    // One call: memory cache, else one shared download and one shared decode, at the size asked.
    let request = ImageRequest(url: url, resize: .fit(width: 256, height: 256))
    let response = try await pipeline.response(for: request)
    print(response.image.width, response.origin)            // 256 source   (then: memory)

    // A list cell: a hit is synchronous, with no hop and no suspension, so it shows in the same frame.
    if let hit = pipeline.cachedImage(for: request) { cell.show(hit.image) }

    // Any async source, named by an id that keys coalescing and caching.
    let avatar = ImageRequest(source: .custom(id: "avatar-\(userID)") { try await database.avatar(userID) })

    // Explicit control: priority changes move queued work; cancel detaches only this caller.
    let task = pipeline.imageTask(with: request)
    task.priority = .veryHigh
    task.cancel()

    // Progress, then the image; the error is typed, as everywhere in the pipeline.
    for try await event in pipeline.events(for: request) {
        if case .progress(let progress) = event { print(progress.fraction ?? 0) }
    }

    // Warm the cache for rows about to appear; one failure does not stop the rest.
    let report = await pipeline.prefetch(upcoming.map { ImageRequest(url: $0, resize: .width(320)) })
    pipeline.cancelPrefetch(scrolledAway)

    // Completion handlers for code not yet on async/await: called exactly once, on the queue given.
    let loading = pipeline.loadImage(with: request, queue: .main) { result in /* ... */ }
    // Example: library end
    _ = (avatar, report, loading)
}

func foundationExample(photoURL: URL, exportURL: URL, albumID: Int, store: CoverStore) async throws {
    // Example: foundation begin
    // The shared pipeline decodes with no setup: ImageIO on Apple platforms, ImageryCodecs on Linux.
    let pipeline = ImagePipeline.shared

    let photo = try await pipeline.image(for: photoURL)                   // a URL, full size: the image
    let thumbnail = ImageRequest(url: "https://example.com/p/42.jpg",     // a String from JSON
                                 resize: .fill(width: 240, height: 240))

    // Sources may return Data, and the original bytes come back as Data.
    let cover = ImageRequest(source: .custom(id: "cover-\(albumID)") { try await store.coverData(for: albumID) })
    try await pipeline.data(for: ImageRequest(url: photoURL)).write(to: exportURL)

    // Typed errors all the way: no casting in the catch.
    do {
        _ = try await pipeline.response(for: thumbnail)
    } catch .loadingFailed(.notFound) {
        print("gone")
    } catch {
        print(error.kind)   // error is ImagePipelineError
    }
    // Example: foundation end
    _ = (photo, cover)
}

func loadersExample(session: Session, authService: AuthService) {
    // Example: loaders begin
    // Bearer tokens: refreshed before expiry, one refresh however many requests need it,
    // and on HTTP 401 one refresh and one retry. The account is part of every cache key.
    let tokens = TokenProvider(account: session.userID) {
        let reply = try await authService.refresh()
        return TokenProvider.Token(reply.accessToken, expiresIn: .seconds(reply.expiresIn))
    }
    var configuration = ImagePipeline.Configuration.standard
    configuration.dataLoader = RetryingDataLoader(                   // 5xx, timeouts, connection errors
        wrapping: AuthorizingDataLoader(wrapping: DataLoader(), tokens: tokens)
    )
    configuration.maximumConcurrentDownloads = 6                      // the default
    configuration.imageCache = ImageCache(costLimit: 200 << 20, timeToLive: .seconds(600))

    // A slow network for demos and tests: 0.3–1.5 s before each load.
    configuration.dataLoader = LatencySimulatingDataLoader(
        wrapping: DataLoader(), delay: .milliseconds(300)...(.milliseconds(1500))
    )
    // Example: loaders end
}

func diskCacheExample(request: ImageRequest) async throws {
    // Example: disk cache begin
    let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]
    var configuration = ImagePipeline.Configuration.standard
    configuration.useDiskCache(directory: caches.appendingPathComponent("images"))   // logs one warning and goes on without it if it cannot open
    let pipeline = ImagePipeline(configuration: configuration)

    let response = try await pipeline.response(for: request)   // next launch: response.origin == .disk, no download
    await pipeline.removeCachedImage(for: request)          // both tiers
    print(pipeline.statistics.diskHits, pipeline.statistics.diskEvictions)   // one statistics type, disk counts included
    // Example: disk cache end
    _ = response
}

func gettingStartedLoad(url: URL) async throws {
    // Example: getting started load begin
    let pipeline = ImagePipeline(configuration: .standard)
    let request = ImageRequest(url: url, resize: .fit(width: 256, height: 256))
    let response = try await pipeline.response(for: request)
    print(response.image.width, response.origin)   // 256 source; the next call says memory
    // Example: getting started load end
}

func gettingStartedDecode() throws {
    // Example: getting started decode begin
    let data = try Data(contentsOf: URL(fileURLWithPath: "photo.jpg"))
    let bitmap = try ImageDecoder().decode(data)
    print(bitmap.width, bitmap.height, bitmap.metadata.format!)   // upright, sRGB, straight alpha
    // Example: getting started decode end

    // Example: getting started thumbnail begin
    let thumbnailer = Thumbnailer(resize: .fill(width: 200, height: 200))
    let square = try thumbnailer.thumbnail(from: data)
    try ImageEncoder(format: .png).encodedData(square).write(to: URL(fileURLWithPath: "square.png"))
    // Example: getting started thumbnail end
}

/// An app's own async photo effects, for the processing example.
protocol PhotoEffects: Sendable {
    func comic(_ bitmap: Bitmap) async throws -> Bitmap
}

func processingExample(pipeline: ImagePipeline, avatarURL: URL, photoURL: URL, effects: some PhotoEffects) async throws {
    // Example: processing begin
    // A round avatar and a blurred backdrop of one photo: one download, one decode per size.
    var avatar = ImageRequest(url: avatarURL, resize: .fill(width: 96, height: 96))
    avatar.processors = [.circle]
    var backdrop = ImageRequest(url: avatarURL, resize: .fit(width: 480, height: 480))
    backdrop.processors = [.blur(sigma: 16)]

    // A card: the most detailed 3:2 window, sharpened, with rounded corners.
    var card = ImageRequest(url: photoURL, resize: .fit(width: 900, height: 900))
    card.processors = [.fill(width: 300, height: 200, gravity: .smart), .sharpen(), .roundedCorners(12)]

    // The app's own async effect: its id goes into the cache keys, so bump it when it changes.
    var comic = ImageRequest(url: photoURL, resize: .fit(width: 600, height: 600))
    comic.processors = [.custom(id: "comic-v1") { bitmap in try await effects.comic(bitmap) }]

    async let round = pipeline.response(for: avatar), blurred = pipeline.response(for: backdrop)
    async let cardImage = pipeline.response(for: card), comicImage = pipeline.response(for: comic)
    let responses = try await (round, blurred, cardImage, comicImage)
    // Example: processing end
    _ = responses
}

func pixelsExample() throws {
    // Example: pixels begin
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "photo.jpg")))

    // Full decode: upright (EXIF applied), sRGB, 8-bit RGBA with straight alpha.
    let bitmap = try ImageDecoder().decode(bytes)

    // A thumbnail the fast way: DCT scaling or streaming box reduction while decoding,
    // then Lanczos-3 to the exact size, then colour conversion and rotation of the small result.
    let thumbnail = try Thumbnailer(resize: .fit(width: 256, height: 256)).thumbnail(from: bytes)
    let jpeg = try ImageEncoder(format: .jpeg, quality: 85).encode(thumbnail)

    // Damaged files throw by default; ask for what libjpeg could recover explicitly.
    var options = DecodingOptions()
    options.policy = .lenient                 // metadata.warnings lists the damage
    options.maximumPixelCount = 50_000_000    // checked from the header, before any allocation
    let partial = try ImageDecoder().decode(bytes, options: options)
    // Example: pixels end
    _ = (bitmap, jpeg, partial)
}

func animationExample() async throws {
    // Example: animation begin
    let gif = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "loop.gif")))

    // Every frame, composed, resized and processed alike, with its duration and the loop count.
    var options = DecodingOptions()
    options.animation = AnimationLimits(maximumFrameCount: 100)   // later frames are dropped
    let thumbnailer = Thumbnailer(resize: .fit(width: 320, height: 320), decodingOptions: options, processors: [.circle])
    if let animation = try thumbnailer.animatedThumbnail(from: gif) {
        print(animation.frames.count, animation.duration, animation.loopCount)
        let webp = try ImageEncoder(format: .webp, quality: 80).encode(animation)   // or .gif
        try Data(webp).write(to: URL(fileURLWithPath: "loop.webp"))
    }

    // Through the pipeline: ask for the animation, and the memory cache keeps it whole.
    var request = ImageRequest(url: URL(fileURLWithPath: "loop.gif"), resize: .fit(width: 320, height: 320))
    request.animation = AnimationLimits()
    let frames = try await ImagePipeline.shared.response(for: request).animation?.frames

    // Or as a stream: each frame decoded, processed and written as it is read, never all at once.
    request.animation = AnimationLimits(delivery: .stream)
    if let stream = try await ImagePipeline.shared.response(for: request).animationStream {
        var writer = try ImageEncoder(format: .gif).animationWriter(loopCount: stream.loopCount)
        var reader = stream.frames()
        while let frame = try await reader.next() { try writer.add(frame) }
        try Data(try writer.finish()).write(to: URL(fileURLWithPath: "loop-small.gif"))
    }
    // Example: animation end
    _ = frames
}

func httpClientExample(guard allowed: @escaping @Sendable (URL) -> Bool) async throws {
    // Example: http client begin
    var http = HTTPClientDataLoader.Configuration()
    http.maximumResponseSize = 32 << 20          // refused from Content-Length, or stopped at the limit
    http.totalDeadline = .seconds(20)            // a trickling source never holds a slot longer
    http.hopCheck = { url throws(DataLoadingError) in   // every URL of a redirect chain, before it is requested
        guard allowed(url) else { throw .redirectRefused(source: url.absoluteString, detail: "not an allowed origin") }
    }
    let loader = HTTPClientDataLoader(configuration: http)
    let pipeline = ImagePipeline(configuration: .standard.with { $0.dataLoader = RetryingDataLoader(wrapping: loader) })
    // … use the pipeline; before the loader goes away:
    try await loader.shutdown()
    // Example: http client end
    _ = pipeline
}

func imageServerExample() {
    // Example: image server begin
    var configuration = ImagePipeline.Configuration.standard
    configuration.requestRouter = ImgproxyURLBuilder(baseURL: URL(string: "https://img.example.com")!)
    // Example: image server end
    _ = configuration
}

/// The README's one short example per product.
func readmeExamples(photoURL: URL, bytes: [UInt8], cachesURL: URL) async throws {
    // Example: readme pipeline begin
    let pipeline = ImagePipeline(configuration: .standard)
    let request = ImageRequest(url: photoURL, resize: .fill(width: 240, height: 240))
    let image = try await pipeline.image(for: request)            // one download, one decode, however many ask
    if let hit = pipeline.cachedImage(for: request) { print(hit.image.width) }   // no suspension: the same frame
    // Example: readme pipeline end

    // Example: readme codecs begin
    let thumbnail = try Thumbnailer(resize: .fit(width: 256, height: 256)).thumbnail(from: bytes)
    let jpeg = try ImageEncoder(format: .jpeg, quality: 85).encode(thumbnail)
    // Example: readme codecs end

    // Example: readme disk cache begin
    var withDisk = ImagePipeline.Configuration.standard
    withDisk.useDiskCache(directory: cachesURL.appendingPathComponent("images"))   // crash-safe SQLite, shared by processes
    // Example: readme disk cache end

    // Example: readme http client begin
    let http = HTTPClientDataLoader()   // bounded memory, a total deadline; a ConnectionGuard checks each connection
    let server = ImagePipeline(configuration: .standard.with { $0.dataLoader = RetryingDataLoader(wrapping: http) })
    // Example: readme http client end

    // Example: readme imgproxy begin
    var routed = ImagePipeline.Configuration.standard
    routed.requestRouter = ImgproxyURLBuilder(baseURL: URL(string: "https://img.example.com")!)   // download the size you show
    // Example: readme imgproxy end
    _ = (image, jpeg, withDisk, server, routed)
    try await http.shutdown()
}

// Example: placeholder request begin
struct Photo: Decodable { let url: URL; let thumbHash: String }

func request(for photo: Photo) -> ImageRequest {
    var request = ImageRequest(url: photo.url)
    request.placeholder = PlaceholderHash(thumbHashBase64: photo.thumbHash)   // nil if malformed: no placeholder
    return request
}
// Example: placeholder request end

/// A device whose pictures arrive in chunks, for the streaming loader's example.
struct Camera: Sendable {
    struct Stream { let length: Int64?; func read() async throws(DataLoadingError) -> [UInt8]? { nil } }
    func open(_ source: ImageSource) async throws(DataLoadingError) -> Stream { Stream(length: nil) }
}

// Example: bundle loader begin
struct BundleLoader: DataLoading {
    let bundle: Bundle

    func response(for source: ImageSource) async throws(DataLoadingError) -> DataResponse {
        guard let url = bundle.url(forResource: source.description, withExtension: nil),
              let data = try? Data(contentsOf: url) else { throw .notFound(source: source.description) }
        return DataResponse(bytes: [UInt8](data))
    }
}
// Example: bundle loader end

// Example: streaming loader begin
struct CameraLoader: DataLoading {
    let camera: Camera

    func response(for source: ImageSource) async throws(DataLoadingError) -> DataResponse {
        try await DataResponse.streaming { sink throws(DataLoadingError) in
            let stream = try await camera.open(source)
            sink.begin(expectedLength: stream.length)
            while let chunk = try await stream.read() {
                try await sink.send(chunk)
            }
        }
    }
}
// Example: streaming loader end

// Example: loader decorator begin
struct HeaderAddingLoader: DataLoading {
    let base: any DataLoading
    let headers: [String: String]

    func response(for source: ImageSource) async throws(DataLoadingError) -> DataResponse {
        guard case let .url(url, own) = source.kind else { return try await base.response(for: source) }
        return try await base.response(for: .url(url, headers: own.merging(headers) { mine, _ in mine }))
    }

    func cachePartition(for source: ImageSource) -> String? { base.cachePartition(for: source) }
}
// Example: loader decorator end
