import Foundation

/// A `Cache-Control` value as the server reads it from an origin or a stored answer: its
/// directives, lowercased, with their values unquoted, and its ages as numbers that every
/// later sum can hold.
///
/// An age is RFC 9111's delta-seconds, digits only. One past ``maximumAge`` (ten years) is held
/// there, as RFC 9111 asks a cache to hold an age it cannot represent; one that is not digits
/// (`-1`, `1e9`, empty) counts as 0, so the answer is stale at once rather than kept forever.
///
/// ```swift
/// let control = CacheControl("public, max-age=9223372036854775807")
/// control.age   // 315_360_000: ten years, however many digits the origin sent
/// ```
struct CacheControl: Sendable, Equatable {
    /// The longest age kept: ten years, in seconds.
    static let maximumAge = 315_360_000

    /// The directives, by lowercased name; `nil` for one without a value (`no-store`).
    let directives: [String: String?]

    init(_ value: String) {
        var directives: [String: String?] = [:]
        for part in value.split(separator: ",") {
            let pieces = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard let name = pieces.first?.lowercased(), !name.isEmpty, directives[name] == nil else { continue }
            directives[name] = pieces.count > 1 ? String(pieces[1].filter { $0 != "\"" }) : String?.none
        }
        self.directives = directives
    }

    /// Whether a shared cache must not keep it: `no-store`, `private` or `no-cache`.
    var forbidsStoring: Bool {
        directives.keys.contains { ["no-store", "private", "no-cache"].contains($0) }
    }

    /// How long a shared cache may keep it: `s-maxage`, else `max-age`; `nil` when it says
    /// neither.
    var age: Int? {
        guard let value = directives["s-maxage"] ?? directives["max-age"] else { return nil }
        return Self.seconds(value ?? "")
    }

    /// `text` as delta-seconds: 0 … ``maximumAge``, 0 for anything but digits.
    static func seconds(_ text: some StringProtocol) -> Int {
        guard !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }) else { return 0 }
        // Digits only, so a failed conversion means more than Int holds: past the maximum.
        return min(Int(text) ?? maximumAge, maximumAge)
    }

    /// `value` with its `max-age` and `s-maxage` lowered by `age` seconds (never below 0, and
    /// never above ``maximumAge``), for a stored copy of a response whose source's
    /// `Cache-Control` is passed through.
    static func aged(_ value: String, by age: Int) -> String {
        guard age > 0 else { return value }
        return value.split(separator: ",", omittingEmptySubsequences: false).map { part -> String in
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            for name in ["max-age=", "s-maxage="] where trimmed.lowercased().hasPrefix(name) {
                let seconds = seconds(trimmed.dropFirst(name.count).filter { $0 != "\"" })
                return (part.hasPrefix(" ") ? " " : "") + name + String(max(0, seconds - min(age, maximumAge)))
            }
            return String(part)
        }.joined(separator: ",")
    }

    /// The `max-age` of a value this server wrote or passed through, if it has one.
    static func maximumAge(in value: String) -> Int? {
        guard let range = value.range(of: "max-age=") else { return nil }
        let digits = value[range.upperBound...].prefix { $0.isASCII && $0.isNumber }
        return digits.isEmpty ? nil : seconds(digits)
    }
}
