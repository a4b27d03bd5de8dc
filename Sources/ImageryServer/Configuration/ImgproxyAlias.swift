/// An imgproxy setting with the same meaning as one of ours under another name or unit:
/// `IMAGERY_` in place of `IMGPROXY_` works too, in imgproxy's units, so an operator moving from
/// imgproxy keeps their environment. Read from the environment only.
package struct ImgproxyAlias: Sendable {
    /// imgproxy's name without its prefix (`MAX_SRC_RESOLUTION`).
    package let name: String
    package let kind: ServerSetting.Kind
    /// The settings it sets (by name): where a value disagrees with one of these set under its
    /// own name, the server refuses to start.
    package let settings: [String]
    /// Its unit or form, for the docs.
    package let note: String
    let apply: @Sendable (inout ServerConfiguration, ServerSetting.Value) throws(SettingError.Reason) -> Void

    /// The environment variable.
    package var variable: String { "IMAGERY_" + name }

    /// Every alias.
    package static let all: [ImgproxyAlias] = [
        ImgproxyAlias(name: "BIND", kind: .text, settings: ["host", "port"], note: "host:port, or :port for every interface") { configuration, value throws(SettingError.Reason) in
            guard case let .text(bind) = value, let colon = bind.lastIndex(of: ":"), let port = Int(bind[bind.index(after: colon)...]),
                  (0...65535).contains(port)
            else { throw .invalid("expected host:port or :port") }
            var host = String(bind[..<colon])
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            configuration.host = host.isEmpty ? "0.0.0.0" : host
            configuration.port = port
        },
        ImgproxyAlias(name: "MAX_SRC_RESOLUTION", kind: .number, settings: ["max-source-pixels"], note: "megapixels") { configuration, value throws(SettingError.Reason) in
            guard case let .number(megapixels) = value, megapixels > 0, megapixels <= 1_000_000 else { throw .outOfRange("above 0, in megapixels") }
            configuration.maximumSourcePixels = Int((megapixels * 1_000_000).rounded())
        },
        ImgproxyAlias(name: "MAX_ANIMATION_FRAME_RESOLUTION", kind: .number, settings: ["max-animation-frame-pixels"], note: "megapixels; 0 sums all frames") { configuration, value throws(SettingError.Reason) in
            guard case let .number(megapixels) = value, megapixels >= 0, megapixels <= 1_000_000 else { throw .outOfRange("0 or more, in megapixels") }
            configuration.maximumAnimationFramePixels = Int((megapixels * 1_000_000).rounded())
        },
        ImgproxyAlias(name: "MAX_SRC_FILE_SIZE", kind: .whole, settings: ["max-source-bytes"], note: "bytes; imgproxy's 0 (no limit) is refused") { configuration, value throws(SettingError.Reason) in
            guard case let .whole(bytes) = value, bytes > 0 else { throw .invalid("0 means no limit in imgproxy; imagery-server always has one: give a size in bytes") }
            configuration.maximumSourceBytes = bytes
        },
        ImgproxyAlias(name: "DOWNLOAD_TIMEOUT", kind: .number, settings: ["upstream-timeout"], note: "seconds") { configuration, value throws(SettingError.Reason) in
            guard case let .number(seconds) = value, seconds > 0, seconds <= 3600 else { throw .outOfRange("above 0, at most 3600 seconds") }
            configuration.upstreamTimeout = .seconds(seconds)
        },
        ImgproxyAlias(name: "WORKERS", kind: .whole, settings: ["concurrency"], note: "decodes and processing runs at once") { configuration, value throws(SettingError.Reason) in
            guard case let .whole(workers) = value, (1...1024).contains(workers) else { throw .outOfRange("1...1024") }
            configuration.concurrentProcessing = workers
        },
        ImgproxyAlias(name: "TTL", kind: .whole, settings: ["cache-control"], note: "seconds of max-age; 0 sends no-cache") { configuration, value throws(SettingError.Reason) in
            guard case let .whole(seconds) = value, seconds >= 0 else { throw .outOfRange("0 or more seconds") }
            configuration.cacheControl = seconds == 0 ? "no-cache" : "max-age=\(seconds), public"
        },
        ImgproxyAlias(name: "LOCAL_FILESYSTEM_ROOT", kind: .text, settings: ["local-root"], note: "a directory") { configuration, value throws(SettingError.Reason) in
            guard case let .text(path) = value else { throw .invalid("expected a directory") }
            try ServerSettings.setting(named: "local-root").apply(&configuration, .text(path))
        },
        ImgproxyAlias(name: "ALLOW_LOOPBACK_SOURCE_ADDRESSES", kind: .flag, settings: ["allow-loopback-sources"], note: "true or false") { configuration, value throws(SettingError.Reason) in
            guard case let .flag(allowed) = value else { throw .invalid("expected true or false") }
            configuration.allowLoopbackSources = allowed
        },
    ]
}
