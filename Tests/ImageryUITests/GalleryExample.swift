// The SwiftUI article's examples, compiled in every build so the docs cannot drift from the
// API: on Linux against the SwiftUI stub, on Apple platforms against SwiftUI itself.
import Foundation
import Imagery
import ImageryDiskCache
import ImageryUI
#if canImport(SwiftUI)
import SwiftUI
#else
import SwiftUIStub
#endif

// Example: gallery begin
struct Photo: Identifiable, Sendable {
    let id: Int
    let url: URL

    /// One size for the grid and for prefetching, so a prefetched thumbnail is a memory hit.
    var thumbnail: ImageRequest {
        ImageRequest(url: url, resize: .fill(width: 240, height: 240))
    }
}

struct GalleryView: View {
    let photos: [Photo]
    @Environment(\.imagePipeline) private var pipeline
    private let columns = Array(repeating: GridItem(.flexible(), spacing: 2), count: 5)

    var body: some View {
        ScrollView {
            LazyVGrid(columns: columns, spacing: 2) {
                ForEach(photos) { photo in
                    AsyncPhoto(request: photo.thumbnail, scale: 2) { image in
                        image.resizable().aspectRatio(contentMode: .fill)
                    } placeholder: {
                        Color.gray.opacity(0.2)
                    } failure: { _ in
                        Image(systemName: "exclamationmark.triangle")
                    }
                    .disappearBehavior(.lowerPriority(.veryLow))
                    .aspectRatio(1, contentMode: .fill)
                    .clipped()
                }
            }
        }
        .task {
            // Warm the first screens at low priority; visible cells still go first.
            _ = await pipeline.prefetch(photos.prefix(60).map(\.thumbnail))
        }
    }
}

struct ContentView: View {
    let photos: [Photo]

    // One pipeline for the app: memory cache, disk cache, eight downloads at once.
    private static let pipeline = ImagePipeline(configuration: .platformDefault.with {
        $0.maximumConcurrentDownloads = 8
        let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]
        $0.useDiskCache(directory: caches.appendingPathComponent("images").path)
    })

    var body: some View {
        GalleryView(photos: photos)
            .imagePipeline(Self.pipeline)
    }
}
// Example: gallery end

// Example: custom source begin
/// Album art from the app's own database: any async closure is a source, cached and shared
/// like a URL.
struct AlbumArt: View {
    let albumID: Int64
    let database: any ArtworkStore

    var body: some View {
        AsyncPhoto(request: ImageRequest(source: .custom(id: "album-art/\(albumID)") { [database, albumID] in
            try await database.artwork(for: albumID)
        })) { phase in
            switch phase {
            case .empty: Color.gray.opacity(0.2)
            case .loading(let progress, _): ProgressView(value: progress?.fraction ?? 0)
            case .success(let image): image.resizable()
            case .failure: Image(systemName: "music.note")
            }
        }
    }
}
// Example: custom source end

// Example: fetched image begin
struct Avatar: View {
    @FetchedImage var photo: ImagePhase

    init(url: URL) {
        _photo = FetchedImage(ImageRequest(url: url, resize: .fill(width: 96, height: 96)))
    }

    var body: some View {
        if let response = photo.response, let cgImage = response.image.makeCGImage() {
            Image(decorative: cgImage, scale: 2)
        } else {
            ProgressView()
        }
    }
}
// Example: fetched image end

// Example: round avatar begin
struct RoundAvatar: View {
    let url: URL

    var body: some View {
        // Sized to the 48-point frame at the display's scale, then cut to a circle.
        AsyncPhoto(url: url) { image in
            image.resizable()
        } placeholder: {
            Color.gray.opacity(0.2)
        }
        .processors([.circle])
        .frame(width: 48, height: 48)
    }
}
// Example: round avatar end

// Example: animated sticker begin
struct Sticker: View {
    let url: URL

    var body: some View {
        // Frames decoded at 160 points times the display scale, at most 12 held at once;
        // it pauses off screen and stays on its first frame with Reduce Motion.
        AsyncPhoto(url: url) { image in
            image.resizable()
        } placeholder: {
            Color.gray.opacity(0.2)
        }
        .animated(frameBudget: 12)
        .frame(width: 160, height: 160)
    }
}
// Example: animated sticker end

protocol ArtworkStore: Sendable {
    func artwork(for albumID: Int64) async throws -> [UInt8]
}
