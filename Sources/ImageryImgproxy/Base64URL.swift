import Foundation

/// Base64 with the URL alphabet (`-`, `_`) and no padding, as imgproxy's signatures and
/// encoded sources use.
package enum Base64URL {
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Accepts padded and unpadded input; `nil` for anything outside the alphabet.
    package static func decode(_ string: some StringProtocol) -> [UInt8]? {
        var base64 = String(string.reversed().drop { $0 == "=" }.reversed())
            .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !base64.contains("="), base64.count % 4 != 1 else { return nil }
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map { [UInt8]($0) }
    }
}
