import Foundation
import Imagery
import ImageryGallery

/// What `imagery grid` loads: one labelled request per cell.
struct GridItem: Sendable {
    var label: String
    var source: String
    var request: ImageRequest
}

enum GridSources {
    /// Resolves command-line sources: http(s) URLs, files, directories (every image inside),
    /// and `-` for one source per line from standard input.
    static func resolve(_ arguments: [String], cell: Int, standardInput: () -> [String]) -> [GridItem] {
        var items: [GridItem] = []
        for argument in arguments {
            if argument == "-" {
                items += resolve(standardInput(), cell: cell, standardInput: { [] })
            } else if let url = URL(string: argument), ["http", "https"].contains(url.scheme?.lowercased()) {
                let label = url.lastPathComponent.isEmpty || url.lastPathComponent == "/" ? (url.host ?? argument) : url.lastPathComponent
                items.append(item(label: label, source: argument, .url(url), cell: cell))
            } else {
                let expanded = InputFiles.expand([argument])
                for path in expanded.paths {
                    items.append(item(label: (path as NSString).lastPathComponent, source: path, .file(path), cell: cell))
                }
                for failure in expanded.failures {
                    items.append(item(label: (failure.path as NSString).lastPathComponent, source: failure.path, .file(failure.path), cell: cell))
                }
            }
        }
        return items
    }

    /// The embedded gallery (real photos shipped with the CLI), with some repeated so that
    /// coalescing shows.
    static func gallery(cell: Int) throws -> [GridItem] {
        let names = Gallery.imageNames
        guard let directory = Gallery.directory, !names.isEmpty else { throw GridError.noGallery }
        let repeated = names + names.prefix(5)
        return repeated.map { name in
            let path = directory.appendingPathComponent(name).path
            return item(label: name, source: "gallery/\(name)", .file(path), cell: cell)
        }
    }

    /// Whether this build loads http(s). On Linux that takes the `HTTPClient` trait: the
    /// URLSession of FoundationNetworking neither holds a response-size limit at loopback speed
    /// nor waits without spinning a core, so the tool does not fall back on it there.
    #if HTTPClient || canImport(Darwin)
    static let loadsHTTP = true
    #else
    static let loadsHTTP = false
    #endif

    /// Why `items` cannot be loaded by this build, before any of them is: `nil` when they can.
    static func httpRefusal(for items: [GridItem], loadsHTTP: Bool = loadsHTTP) -> String? {
        let remote = items.filter { item in
            guard case let .url(url, _) = item.request.source.kind else { return false }
            return ["http", "https"].contains(url.scheme?.lowercased())
        }
        guard !loadsHTTP, let first = remote.first else { return nil }
        let count = remote.count == 1 ? "1 source is an http(s) URL" : "\(remote.count) sources are http(s) URLs"
        return "\(count) (\(first.source)), and this build of imagery loads no http(s): on Linux that needs "
            + "AsyncHTTPClient, which is the HTTPClient trait. Build it with: "
            + "swift run -c release --traits HTTPClient imagery grid ..."
    }

    private static func item(label: String, source: String, _ imageSource: ImageSource, cell: Int) -> GridItem {
        GridItem(label: label, source: source, request: ImageRequest(source: imageSource, resize: .fit(width: cell, height: cell)))
    }
}

enum GridError: Error, CustomStringConvertible {
    case noGallery
    case noSources
    case sheetTooLarge(String)
    case noHTTP(String)

    var description: String {
        switch self {
        case .noGallery: "the embedded gallery is missing from this build"
        case .noSources: "no images found in the given sources"
        case let .sheetTooLarge(reason), let .noHTTP(reason): reason
        }
    }
}
