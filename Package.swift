// swift-tools-version: 6.2
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Imagery",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Imagery", targets: ["Imagery"]),
        .library(name: "ImageryCodecs", targets: ["ImageryCodecs"]),
        .library(name: "ImageryDiskCache", targets: ["ImageryDiskCache"]),
        .library(name: "ImageryUI", targets: ["ImageryUI"]),
        .library(name: "ImageryHTTPClient", targets: ["ImageryHTTPClient"]),
        .library(name: "ImageryImgproxy", targets: ["ImageryImgproxy"]),
        .executable(name: "imagery", targets: ["ImageryCLI"]),
        .executable(name: "imagery-server", targets: ["ImageryServerTool"]),
    ],
    traits: [
        .trait(
            name: "WebP",
            description: "WebP decoding and encoding through the system libwebp (apt-get install libwebp-dev)."
        ),
        .trait(
            name: "HEIF",
            description: "HEIC/HEIF decoding (libde265) and HEIC encoding (x265) through the system libheif (apt-get install libheif-dev)."
        ),
        .trait(
            name: "AVIF",
            description: "AVIF decoding (dav1d) and encoding (aom) through the system libavif (apt-get install libavif-dev)."
        ),
        .trait(
            name: "JPEGXL",
            description: "JPEG XL decoding and encoding through the system libjxl (apt-get install libjxl-dev)."
        ),
        .trait(
            name: "SVG",
            description: "SVG rasterizing through the system librsvg and cairo (apt-get install librsvg2-dev; fonts-dejavu-core for text)."
        ),
        .trait(
            name: "TIFF",
            description: "TIFF decoding and encoding through the system libtiff (apt-get install libtiff-dev)."
        ),
        .trait(
            name: "AllFormats",
            description: "Every format trait: WebP, HEIF, AVIF, JPEGXL, SVG and TIFF (apt-get install libwebp-dev libheif-dev libavif-dev libjxl-dev librsvg2-dev libtiff-dev).",
            enabledTraits: ["WebP", "HEIF", "AVIF", "JPEGXL", "SVG", "TIFF"]
        ),
        .trait(
            name: "OpenTelemetry",
            description: "imagery-server sends traces (and, when asked, metrics) over OTLP/HTTP through swift-otel. Off by default: its first build takes minutes."
        ),
        .trait(
            name: "HTTPClient",
            description: "The imagery tool loads http(s) with AsyncHTTPClient (NIO) instead of URLSession: bounded memory, a total deadline, no busy waiting. Off by default, so the Quick start builds no NIO."
        ),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.0"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: ["JSON", "YAML", "CommandLineArguments"]),
        .package(url: "https://github.com/apple/swift-system", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.0"),
        // OTLP over HTTP only: its default also builds gRPC, which would double the build.
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
        // Already in the graph through Hummingbird; named so the server can import them.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.34.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.29.0"),
    ],
    targets: [
        // The pipeline (loading, coalescing, caching, processing) and the platform-neutral
        // pixel types, resampling, orientation and colour: Swift and Foundation. No NIO, and no
        // swift-crypto, whose BoringSSL would be most of the Quick start's build on Linux (the
        // one digest the core takes is SHA256Digest).
        .target(
            name: "Imagery",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictSettings
        ),

        // The only code that touches libjpeg/libpng: it owns every setjmp so that
        // a longjmp never crosses a Swift frame.
        .target(
            name: "CImageryCodecs",
            linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("png16"), .linkedLibrary("z")]
        ),
        .systemLibrary(
            name: "CWebP",
            pkgConfig: "libwebp",
            providers: [.apt(["libwebp-dev"])]
        ),
        .systemLibrary(name: "CHeif", pkgConfig: "libheif", providers: [.apt(["libheif-dev"])]),
        // libavif's and libjxl's pkg-config flags are for Windows DLLs and libhwy's C++, which
        // SwiftPM refuses; their headers are on the default path.
        .systemLibrary(name: "CAvif", providers: [.apt(["libavif-dev"])]),
        .systemLibrary(name: "CJxl", providers: [.apt(["libjxl-dev"])]),
        // librsvg and libtiff behind C shims that keep GLib, cairo and libtiff's va_list
        // callbacks out of Swift. `swift build` compiles every C target whatever the traits, so
        // each shim's code is inside its trait's define and links its libraries only with it.
        .target(
            name: "CImagerySVG",
            cSettings: [.define("IMAGERY_SVG", .when(traits: ["SVG"]))],
            linkerSettings: ["rsvg-2", "gio-2.0", "gobject-2.0", "glib-2.0", "cairo"].map { .linkedLibrary($0, .when(traits: ["SVG"])) }
        ),
        .target(
            name: "CImageryTIFF",
            cSettings: [.define("IMAGERY_TIFF", .when(traits: ["TIFF"]))],
            linkerSettings: [.linkedLibrary("tiff", .when(traits: ["TIFF"]))]
        ),
        .target(
            name: "ImageryCodecs",
            dependencies: [
                "Imagery",
                "CImageryCodecs",
                .target(name: "CWebP", condition: .when(traits: ["WebP"])),
                .target(name: "CHeif", condition: .when(traits: ["HEIF"])),
                .target(name: "CAvif", condition: .when(traits: ["AVIF"])),
                .target(name: "CJxl", condition: .when(traits: ["JPEGXL"])),
                .target(name: "CImagerySVG", condition: .when(traits: ["SVG"])),
                .target(name: "CImageryTIFF", condition: .when(traits: ["TIFF"])),
            ],
            swiftSettings: strictSettings
        ),
        // The disk tier: SQLite through GRDB, kept out of the core so apps that want only the
        // memory cache do not build it.
        .target(
            name: "ImageryDiskCache",
            dependencies: [
                "Imagery",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings
        ),
        // HTTP on AsyncHTTPClient (NIO): streaming with backpressure, a total deadline, redirects
        // checked hop by hop. Its own product, so that apps and the Quick start build no NIO.
        .target(
            name: "ImageryHTTPClient",
            dependencies: [
                "Imagery",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictSettings
        ),
        // imgproxy's URL format, written once for the app's URL builder and the server: options
        // to path and back, signing, encrypted sources (AES-CBC from _CryptoExtras), the
        // processing order and every limit. No NIO.
        .target(
            name: "ImageryImgproxy",
            dependencies: [
                "Imagery",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        // The UI layer: a platform-neutral @Observable view model, thin SwiftUI views over it, and
        // Core Graphics glue. On Linux it builds against the stubs below, so CI
        // type-checks the views; on Apple platforms against the real frameworks.
        .target(
            name: "ImageryUI",
            dependencies: [
                "Imagery",
                .target(name: "ImageryCodecs", condition: .when(platforms: [.linux])),
                .target(name: "SwiftUIStub", condition: .when(platforms: [.linux])),
                .target(name: "UIKitStub", condition: .when(platforms: [.linux])),
                .target(name: "CoreGraphicsStub", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: strictSettings
        ),
        // Declarations of the SwiftUI, UIKit and Core Graphics symbols ImageryUI uses, written
        // from Apple's documentation; empty on Apple platforms (see Sources/Stubs/README.md).
        .target(name: "CoreGraphicsStub", path: "Sources/Stubs/CoreGraphicsStub", swiftSettings: strictSettings),
        .target(name: "SwiftUIStub", dependencies: ["CoreGraphicsStub"], path: "Sources/Stubs/SwiftUIStub", swiftSettings: strictSettings),
        .target(name: "UIKitStub", dependencies: ["CoreGraphicsStub"], path: "Sources/Stubs/UIKitStub", swiftSettings: strictSettings),
        .executableTarget(
            name: "ImageryCLI",
            dependencies: [
                "Imagery",
                "ImageryCodecs",
                "ImageryDiskCache",
                "ImageryGallery",
                .target(name: "ImageryHTTPClient", condition: .when(traits: ["HTTPClient"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        // The photos `imagery grid` and `imagery-server --demo` show by default.
        .target(name: "ImageryGallery", resources: [.copy("Gallery")], swiftSettings: strictSettings),
        // The imgproxy-compatible server: Hummingbird (NIO) over the pipeline. Only the
        // `imagery-server` product and its tests build it; the `imagery` tool never does.
        .target(
            name: "ImageryServer",
            dependencies: [
                "Imagery",
                "ImageryCodecs",
                "ImageryDiskCache",
                "ImageryHTTPClient",
                "ImageryImgproxy",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "OTel", package: "swift-otel", condition: .when(traits: ["OpenTelemetry"])),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "ImageryServerTool",
            dependencies: [
                "ImageryServer",
                "ImageryGallery",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: strictSettings
        ),

        // MARK: Benchmarks (no product ships them: `swift run -c release imagery-bench`)

        // The anchors and the codec floor the thumbnail figures are measured against, the
        // pipeline's hot paths and the disk cache against a file-per-entry baseline.
        .executableTarget(
            name: "imagery-bench",
            dependencies: [
                "Imagery",
                "ImageryCodecs",
                "CImageryCodecs",
                "CImageryBenchFloor",
                "ImageryDiskCache",
                "ImageryUI",
                // Its loopback HTTP server, for the progressive benchmark's slow network.
                "ImageryTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/imagery-bench",
            swiftSettings: strictSettings
        ),
        // Plain libjpeg-turbo and libpng decodes: the floor no thumbnailer can go under.
        .target(
            name: "CImageryBenchFloor",
            path: "Benchmarks/CImageryBenchFloor",
            linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("png16"), .linkedLibrary("z")]
        ),

        // MARK: Tests

        .testTarget(
            name: "ImageryTests",
            dependencies: ["Imagery", .product(name: "Crypto", package: "swift-crypto")],
            resources: [.copy("Resources")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ImageryImgproxyTests",
            dependencies: ["Imagery", "ImageryImgproxy", "ImageryTestSupport"],
            swiftSettings: strictSettings
        ),
        // Doubles and helpers shared by the test targets.
        .target(name: "ImageryTestSupport", dependencies: ["Imagery", "ImageryCodecs"], path: "Tests/ImageryTestSupport", swiftSettings: strictSettings),
        // The child process of the disk cache's crash and two-process tests.
        .executableTarget(
            name: "imagery-cache-stress",
            dependencies: [
                "Imagery",
                "ImageryDiskCache",
                "ImageryTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tests/ImageryCacheStress",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ImageryPipelineTests",
            dependencies: [
                "Imagery",
                "ImageryCodecs",
                "ImageryDiskCache",
                "ImageryTestSupport",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictSettings
        ),
        // The child process of the HTTP loader's memory and CPU tests.
        .executableTarget(
            name: "imagery-load-probe",
            dependencies: [
                "Imagery",
                "ImageryHTTPClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tests/ImageryLoadProbe",
            swiftSettings: strictSettings
        ),
        // Runs a child and reports its own peak memory (ChildProcess.measure says why).
        .executableTarget(name: "imagery-peak-memory", path: "Tests/ImageryPeakMemory", swiftSettings: strictSettings),
        .testTarget(
            name: "ImageryHTTPClientTests",
            dependencies: ["Imagery", "ImageryCodecs", "ImageryHTTPClient", "ImageryTestSupport", "imagery-load-probe", "imagery-peak-memory"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ImageryDiskCacheTests",
            dependencies: ["Imagery", "ImageryCodecs", "ImageryDiskCache", "ImageryTestSupport", "imagery-cache-stress"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ImageryUITests",
            dependencies: [
                "Imagery",
                "ImageryUI",
                "ImageryDiskCache",
                "ImageryTestSupport",
                .target(name: "SwiftUIStub", condition: .when(platforms: [.linux])),
                .target(name: "UIKitStub", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "ImageryCLITests", dependencies: ["ImageryCLI", "ImageryTestSupport", "imagery-peak-memory"], swiftSettings: strictSettings),
        // The README's and the DocC articles' examples, compiled, and checked against the documents.
        .testTarget(
            name: "ImageryDocsTests",
            dependencies: ["Imagery", "ImageryCodecs", "ImageryDiskCache", "ImageryHTTPClient", "ImageryImgproxy", "ImageryTestSupport"],
            swiftSettings: strictSettings
        ),
        // The URL-parser fuzz target (scripts/fuzz.sh url); built plainly, it replays inputs.
        .executableTarget(
            name: "imagery-url-fuzz",
            dependencies: ["ImageryServer"],
            path: "Tests/ImageryURLFuzz",
            swiftSettings: strictSettings
        ),
        // imagery-server's HTTP surface driven in process, with a loopback origin double: the
        // HTTP property tests and the HTTP fuzz target share it.
        .target(
            name: "ImageryHTTPSurface",
            dependencies: [
                "Imagery",
                "ImageryCodecs",
                "ImageryServer",
                "ImageryTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/ImageryHTTPSurface",
            swiftSettings: strictSettings
        ),
        // The HTTP fuzz target (scripts/fuzz.sh http); built plainly, it replays inputs.
        .executableTarget(
            name: "imagery-http-fuzz",
            dependencies: ["Imagery", "ImageryServer", "ImageryHTTPSurface"],
            path: "Tests/ImageryHTTPFuzz",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ImageryServerTests",
            dependencies: [
                "Imagery",
                "ImageryCodecs",
                "ImageryServer",
                "ImageryServerTool",
                "ImageryGallery",
                "ImageryDiskCache",
                "ImageryHTTPClient",
                "ImageryTestSupport",
                "imagery-url-fuzz",
                "imagery-http-fuzz",
                "ImageryHTTPSurface",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ImageryCodecsTests",
            dependencies: ["Imagery", "ImageryCodecs", "ImageryTestSupport"],
            resources: [.copy("Resources")],
            swiftSettings: strictSettings
        ),
    ]
)

// CI's ThreadSanitizer pass (`.ci/run`) instruments the concurrency of the pipeline, its disk
// cache, the app layer and the tool. IMAGERY_TSAN_SCOPE=core keeps those targets and their
// suites and leaves out the server and everything on NIO, whose instrumented build was a third
// of CI's time; their suites run uninstrumented in the passes before it. Nothing else sets it.
if Context.environment["IMAGERY_TSAN_SCOPE"] == "core" {
    let core: Set<String> = [
        "Imagery", "CImageryCodecs", "CWebP", "CHeif", "CAvif", "CJxl", "CImagerySVG", "CImageryTIFF", "ImageryCodecs",
        "ImageryDiskCache", "ImageryUI", "CoreGraphicsStub", "SwiftUIStub", "UIKitStub", "ImageryCLI", "ImageryGallery",
        "ImageryTestSupport", "imagery-cache-stress", "imagery-peak-memory",
        "ImageryPipelineTests", "ImageryDiskCacheTests", "ImageryUITests", "ImageryCLITests",
    ]
    package.targets.removeAll { !core.contains($0.name) }
    for target in package.targets {
        target.dependencies.removeAll { dependency in
            switch dependency {
            case let .targetItem(name, _), let .byNameItem(name, _): !core.contains(name)
            default: false
            }
        }
    }
    package.products.removeAll { !["Imagery", "ImageryCodecs", "ImageryDiskCache", "ImageryUI", "imagery"].contains($0.name) }
    let serverOnly: Set<Substring> = [
        "swift-nio", "swift-nio-extras", "swift-nio-ssl", "swift-http-types", "hummingbird", "async-http-client",
        "swift-service-lifecycle", "swift-configuration", "swift-system", "swift-prometheus", "swift-otel",
    ]
    package.dependencies.removeAll { dependency in
        guard case let .sourceControl(_, location, _) = dependency.kind, let name = location.split(separator: "/").last else { return false }
        return serverOnly.contains(name)
    }
}
