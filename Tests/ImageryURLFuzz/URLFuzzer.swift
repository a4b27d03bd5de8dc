import Foundation
import ImageryServer

/// The URL-parser fuzz target: any bytes, as a request path, through everything imagery-server
/// does before it loads anything (path, signature, options, source policy, plan). A path is
/// served or refused with a 4xx and one short line that names no local path; anything else (a
/// trap, a 5xx, a leak) is a finding.
///
/// Built by `scripts/fuzz.sh url` with `-D FUZZING` and libFuzzer, whose runtime provides
/// `main`. Built plainly (as `swift build` does), it replays inputs: `imagery-url-fuzz FILE...`.
enum URLFuzzer {
    static let localRoot = "/nonexistent-imagery-fuzz-root"

    /// Unsigned and signed; then with presets and the security options allowed; then with
    /// presets only, and a list of allowed options.
    static let preflights: [RequestPreflight] = (0..<4).map { variant in
        var configuration = ServerConfiguration()
        configuration.localRoot = localRoot
        configuration.allowedSourcePrefixes = variant == 1 ? [] : ["http://a.test/", "local:///"]
        if variant == 1 {
            configuration.keyHex = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
            configuration.saltHex = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
        }
        if variant >= 2 {
            configuration.presets = "default=q:70/sm:1,thumb=rs:fill:300:300/g:sm,blurry=bl:2/wm:0.5:re"
            configuration.allowSecurityOptions = variant == 2
            configuration.onlyPresets = variant == 3
            configuration.allowedProcessingOptions = variant == 3 ? ["w", "pr"] : []
        }
        return try! RequestPreflight(configuration: configuration, resolved: configuration.resolve())   // fixed, valid settings
    }

    static func check(_ bytes: UnsafeBufferPointer<UInt8>) {
        let path = String(decoding: bytes, as: UTF8.self)
        for preflight in preflights {
            guard let refusal = preflight.refusal(of: path) else { continue }
            precondition((400..<500).contains(refusal.status), "status \(refusal.status) for \(path.debugDescription)")
            precondition(refusal.message.utf8.count <= 200, "a long error line for \(path.debugDescription)")
            precondition(!refusal.message.contains(localRoot), "the local root leaked for \(path.debugDescription)")
        }
    }
}

#if FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzURLParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    URLFuzzer.check(UnsafeBufferPointer(start: data, count: size))
    return 0
}
#else
@main
struct URLFuzzReplay {
    static func main() throws {
        for file in CommandLine.arguments.dropFirst() {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
            bytes.withUnsafeBufferPointer(URLFuzzer.check)
            print("ok \(file)")
        }
    }
}
#endif
