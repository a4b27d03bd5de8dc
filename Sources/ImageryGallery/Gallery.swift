import Foundation

/// The embedded gallery: 15 real photos (downscaled, licences in `Gallery/MANIFEST.tsv`) that
/// `imagery grid` and `imagery-server --demo` show with no setup and no network.
package enum Gallery {
    /// The folder of the photos, or `nil` when this build lacks its resources.
    package static var directory: URL? {
        Bundle.module.url(forResource: "Gallery", withExtension: nil)
    }

    /// ``directory`` as a file-system path.
    package static var path: String? { directory?.path }

    /// The photos' file names, sorted.
    package static var imageNames: [String] {
        guard let directory,
              let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [] }
        return names.filter { $0.hasSuffix(".jpg") }.sorted()
    }
}
