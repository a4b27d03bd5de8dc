import Foundation
import Imagery

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
        guard let directory = Bundle.module.url(forResource: "Gallery", withExtension: nil) else {
            throw GridError.noGallery
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".jpg") }.sorted()
        guard !names.isEmpty else { throw GridError.noGallery }
        let repeated = names + names.prefix(5)
        return repeated.map { name in
            let path = directory.appendingPathComponent(name).path
            return item(label: name, source: "gallery/\(name)", .file(path), cell: cell)
        }
    }

    private static func item(label: String, source: String, _ imageSource: ImageSource, cell: Int) -> GridItem {
        GridItem(label: label, source: source, request: ImageRequest(source: imageSource, resize: .fit(width: cell, height: cell)))
    }
}

enum GridError: Error, CustomStringConvertible {
    case noGallery
    case noSources
    case sheetTooLarge(String)

    var description: String {
        switch self {
        case .noGallery: "the embedded gallery is missing from this build"
        case .noSources: "no images found in the given sources"
        case let .sheetTooLarge(reason): reason
        }
    }
}
