import Foundation
import ImageryTestSupport

/// The HTTP property tests' inputs: a thousand extreme values (``ExtremeValues``) for every
/// header the server reads from a client, every header it reads from an origin, and every
/// numeric argument of every option, each as a ``HostileExchange``.
///
/// `imagery-http-fuzz --property NAME` asks one batch through an ``HTTPSurface`` in its own
/// process, so that its thousands of renders neither wait behind other suites' work nor make
/// them wait, and a trap is reported with the test rather than ending the test run.
package enum PropertyBatch: String, CaseIterable, Sendable {
    case requestHeaders = "request-headers"
    case originHeaders = "origin-headers"
    case numericOptions = "numeric-options"

    /// Values per header, and per numeric option.
    package static let valuesEach = 1000

    /// Every header the server reads from a request, with the values that fit it.
    static let requestHeaderValues: [(name: String, values: @Sendable (Int) -> [String])] = [
        ("If-Modified-Since", { ExtremeValues.dates(count: $0, seed: 1) }),
        ("If-None-Match", { ExtremeValues.texts(count: $0, seed: 2) }),
        ("Accept", { ExtremeValues.texts(count: $0, seed: 3) }),
        ("DPR", { ExtremeValues.numbers(count: $0, seed: 4) }),
        ("Width", { ExtremeValues.numbers(count: $0, seed: 5) }),
        ("Sec-CH-DPR", { ExtremeValues.numbers(count: $0, seed: 6) }),
        ("Sec-CH-Width", { ExtremeValues.numbers(count: $0, seed: 7) }),
        ("Cookie", { ExtremeValues.texts(count: $0, seed: 8) }),
        ("X-Forwarded-Host", { ExtremeValues.texts(count: $0, seed: 9) }),
        ("X-Request-ID", { ExtremeValues.texts(count: $0, seed: 10) }),
        ("traceparent", { ExtremeValues.texts(count: $0, seed: 11) }),
        ("Authorization", { ExtremeValues.texts(count: $0, seed: 12) }),
        ("Origin", { ExtremeValues.texts(count: $0, seed: 13) }),
    ]

    /// Every header the server reads from an origin, with the values that fit it and the
    /// status that makes it read.
    static let originHeaderValues: [(name: String, status: Int, values: @Sendable (Int) -> [String])] = [
        ("Last-Modified", 200, { ExtremeValues.dates(count: $0, seed: 21) }),
        ("Expires", 200, { ExtremeValues.dates(count: $0, seed: 22) }),
        ("Cache-Control", 200, { ExtremeValues.cacheControls(count: $0, seed: 23) }),
        ("ETag", 200, { ExtremeValues.texts(count: $0, seed: 24) }),
        ("Content-Type", 200, { ExtremeValues.texts(count: $0, seed: 25) }),
        ("Location", 302, { ExtremeValues.texts(count: $0 - 50, seed: 26) + ExtremeValues.numbers(count: 50, seed: 27).map { "/o/\($0)" } }),
    ]

    /// The headers or options the batch covers, each with a thousand values.
    package var targets: [String] {
        switch self {
        case .requestHeaders: Self.requestHeaderValues.map(\.name)
        case .originHeaders: Self.originHeaderValues.map(\.name)
        case .numericOptions: Self.numericArguments.map { "\($0.path.hasPrefix("/info") ? "info " : "")\($0.option)" }.uniqued
        }
    }

    /// The batch's exchanges.
    package var exchanges: [HostileExchange] {
        switch self {
        case .requestHeaders:
            Self.requestHeaderValues.flatMap { header in
                header.values(Self.valuesEach).enumerated().map { index, value in
                    // Most ask one stored answer (the validators' path); every tenth a source
                    // of its own, so that the header is read on the way to a render too.
                    var exchange = HostileExchange(path: "/insecure/rs:fit:32:32/plain/\(index % 10 == 0 ? "ORIGIN" : "SHARED")@png")
                    exchange.originHeaders = [("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT"), ("Cache-Control", "public, max-age=60")]
                    exchange.headers = [(header.name, value)]
                    return exchange
                }
            }
        case .originHeaders:
            Self.originHeaderValues.flatMap { header in
                // Read back from the tiers at once, within their lifetimes, just past them, and
                // past the ten years an age is held to.
                let laters = [0, 1, 2, 59, 61, 86_400, 11 * 365 * 86_400]
                return header.values(Self.valuesEach).enumerated().map { index, value in
                    var exchange = HostileExchange(path: index % 2 == 0 ? "/insecure/rs:fit:32:32/plain/ORIGIN@png" : "/info/insecure/s:1/plain/ORIGIN")
                    exchange.originStatus = header.status
                    exchange.originHeaders = [(header.name, value)]
                    exchange.later = laters[index % laters.count]
                    return exchange
                }
            }
        case .numericOptions:
            Self.numericOptionExchanges
        }
    }

    /// Each numeric argument of every processing and `/info` option, with every other argument
    /// a valid one drawn by ``ImgproxyArgumentGenerators``.
    static var numericArguments: [(path: String, option: String, arguments: [String], position: Int)] {
        var random = SplitMix64(state: 45)
        var found: [(String, String, [String], Int)] = []
        let tables = [
            (ImgproxyArgumentGenerators.processing, "/insecure/OPTION/rs:fit:48:48/plain/LOCAL@png"),
            (ImgproxyArgumentGenerators.info, "/info/insecure/OPTION/plain/LOCAL"),
        ]
        for (table, path) in tables {
            for name in table.keys.sorted() {
                // Drawn until every numeric position has shown up.
                var positions: [Int: [String]] = [:]
                for _ in 0..<50 {
                    let arguments = table[name]!(&random)
                    for (index, value) in arguments.enumerated() where Double(value) != nil && positions[index] == nil {
                        positions[index] = arguments
                    }
                }
                for (position, arguments) in positions.sorted(by: { $0.key < $1.key }) { found.append((path, name, arguments, position)) }
            }
        }
        return found
    }

    /// A thousand values per option, shared among its numeric arguments.
    private static var numericOptionExchanges: [HostileExchange] {
        let byOption = Dictionary(grouping: numericArguments, by: { $0.path + " " + $0.option })
        return byOption.keys.sorted().enumerated().flatMap { index, key in
            let cases = byOption[key]!
            return ExtremeValues.numbers(count: valuesEach, seed: 100 + UInt64(index)).enumerated().map { number, value in
                let argument = cases[number % cases.count]
                var written = argument.arguments
                written[argument.position] = value
                let option = ([argument.option] + written).joined(separator: ":")
                return HostileExchange(path: argument.path.replacing("OPTION", with: option))
            }
        }
    }
}

private extension [String] {
    /// The elements in order, each once.
    var uniqued: [String] {
        var seen = Set<String>()
        return filter { seen.insert($0).inserted }
    }
}
