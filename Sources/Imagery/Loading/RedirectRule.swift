import Foundation

/// Which redirects a loader follows: to http(s) only, never back to a URL of the chain, at
/// most a set number. One rule for every HTTP loader, tested as a pure function.
package enum RedirectRule {
    /// Why a redirect to `target` must not be followed after `chain` (the first URL and every
    /// redirect so far), or `nil` to follow it.
    package static func refusal(to target: URL?, after chain: [URL], maximum: Int) -> String? {
        guard let target else { return "to no URL" }
        guard let scheme = target.scheme?.lowercased(), ["http", "https"].contains(scheme) else {
            return "to a \(target.scheme ?? "schemeless") URL (only http and https are followed)"
        }
        if chain.contains(target) { return "a redirect loop after \(chain.count - 1) redirects" }
        if chain.count > maximum { return "more than \(maximum) redirects" }
        return nil
    }
}
