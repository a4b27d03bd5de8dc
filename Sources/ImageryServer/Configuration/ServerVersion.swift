/// The server's version, as `User-Agent` (imgproxy's `%current_version`) and `--version` say it.
package enum ServerVersion {
    package static let current = "0.1.0"
}
