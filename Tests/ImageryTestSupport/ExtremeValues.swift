/// Values from outside at their extremes, for the property tests and the HTTP fuzz target's
/// seeds: what a hostile client or origin would put in a number, a date or a header.
///
/// Each list starts with the fixed cases every run must see (the bounds of `Int`, years 0,
/// 10000 and 10¹², NaN, ±inf, 1e-300, empty, 64 KB) and goes on with values drawn from a
/// seeded generator around them, so a run repeats exactly.
package enum ExtremeValues {
    /// Numbers as text: integers past every bound, floats past every range, and what is not
    /// quite a number.
    package static let fixedNumbers: [String] = [
        "0", "-0", "1", "-1", "2", "0.5", "-0.5", "+5", "1.", ".5", "00001", "1e", "--1", "0x10", "1_000", " 5", "5 ",
        String(Int.min), String(Int.max), "-9223372036854775809", "9223372036854775808", String(UInt64.max),
        "18446744073709551616", "2147483647", "2147483648", "-2147483649", "4294967296", "65535", "65536",
        "8191", "8192", "8193", "100000", "100001", "1000000", "99999999999999999999999999999999",
        "1e-300", "-1e-300", "4.9e-324", "-4.9e-324", "5e-324", "2.2250738585072014e-308", "1e-20", "0.0000001",
        "1e308", "-1e308", "1.7976931348623157e308", "1.8e308", "1e400", "-1e400", "1e-400",
        "nan", "NaN", "-nan", "snan", "inf", "-inf", "+inf", "infinity", "-Infinity",
        "", String(repeating: "9", count: 65_536), String(repeating: "0", count: 4_096) + "1",
    ]

    /// HTTP dates in every form, with years 0, 10000, 10¹² and past `Int`, and fields out of range.
    package static let fixedDates: [String] = [
        "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
        "Sun, 06 Nov 0 08:49:37 GMT", "Sun, 06 Nov 0000 08:49:37 GMT", "Sun, 06 Nov 10000 08:49:37 GMT",
        "Sun, 06 Nov 999999999999 08:49:37 GMT", "Sun, 06 Nov 9223372036854775807 08:49:37 GMT",
        "Sun, 06 Nov -9223372036854775808 08:49:37 GMT", "Sun, 06 Nov -1 08:49:37 GMT",
        "Sunday, 06-Nov-9223372036854775807 08:49:37 GMT", "Sunday, 06-Nov--1 08:49:37 GMT",
        "Sun Nov  6 08:49:37 999999999999", "Sun Nov  6 08:49:37 -9223372036854775808",
        "Sun, 99 Nov 1994 99:99:99 GMT", "Sun, 06 Nov 1994 08:49:37", "Sun, 31 Feb 9999 23:59:60 GMT",
        "Mon, 01 Jan 0001 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", "Thu, 01 Jan 1970 00:00:00 GMT",
        "", "yesterday", String(repeating: "Sun, ", count: 13_108),
    ]

    /// `Cache-Control` values whose ages are at and past every bound.
    package static var fixedCacheControls: [String] {
        ["no-store", "private", "no-cache", "public", "max-age", "max-age=", "max-age=\"\"", "s-maxage=60, max-age=-9223372036854775808"]
            + fixedNumbers.prefix(60).flatMap { ["max-age=\($0)", "public, s-maxage=\($0)", "max-age=\"\($0)\", s-maxage=1"] }
    }

    /// Free text for headers that hold lists or tokens (`Accept`, `Cookie`, `X-Request-ID`,
    /// `traceparent`, `Authorization`): empty, long, many parts, and odd quality values.
    package static let fixedTexts: [String] = [
        "", " ", ",", ";", "=", "*/*", "image/*", "image/webp,image/avif,image/jxl,*/*;q=0.8",
        "image/webp;q=nan", "image/avif;q=1e-300", "image/webp;q=-1", "image/avif;q=9223372036854775808", "image/jxl;q=",
        String(repeating: "image/webp,", count: 6_000), String(repeating: "a", count: 65_536),
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "00-00000000000000000000000000000000-0000000000000000-01",
        "ff-" + String(repeating: "f", count: 32) + "-" + String(repeating: "f", count: 16) + "-ff", "00--",
        "Bearer ", "Bearer " + String(repeating: "x", count: 8_192), "Basic Og==",
        "a=b", "a=" + String(repeating: "b", count: 8_192), String(repeating: "a=b; ", count: 4_000),
        "bytes=0-", "bytes=-9223372036854775808-9223372036854775807", "bytes=9223372036854775807-",
    ]

    /// `count` numbers: the fixed ones, then drawn by `seed`.
    package static func numbers(count: Int, seed: UInt64) -> [String] {
        var random = SplitMix64(state: seed)
        return fill(fixedNumbers, to: count) { randomNumber(&random) }
    }

    /// `count` HTTP dates: the fixed ones, then each form with a drawn year and fields.
    package static func dates(count: Int, seed: UInt64) -> [String] {
        var random = SplitMix64(state: seed)
        return fill(fixedDates, to: count) {
            let year = random.chance(0.5) ? randomNumber(&random) : String(Int.random(in: -10...20_000, using: &random))
            let day = String(Int.random(in: -1...99, using: &random)), clock = "\(Int.random(in: 0...99, using: &random)):49:37"
            switch Int.random(in: 0...2, using: &random) {
            case 0: return "Sun, \(day) Nov \(year) \(clock) GMT"
            case 1: return "Sunday, \(day)-Nov-\(year) \(clock) GMT"
            default: return "Sun Nov \(day) \(clock) \(year)"
            }
        }
    }

    /// `count` `Cache-Control` values: the fixed ones, then ages drawn among the numbers.
    package static func cacheControls(count: Int, seed: UInt64) -> [String] {
        var random = SplitMix64(state: seed)
        return fill(fixedCacheControls, to: count) {
            let name = ["max-age", "s-maxage", "MAX-AGE", "stale-while-revalidate"].randomElement(using: &random)!
            let other = random.chance(0.3) ? ", " + ["public", "immutable", "max-age=\(randomNumber(&random))"].randomElement(using: &random)! : ""
            return "\(name)=\(randomNumber(&random))\(other)"
        }
    }

    /// `count` free texts: the fixed ones, then numbers and parts repeated.
    package static func texts(count: Int, seed: UInt64) -> [String] {
        var random = SplitMix64(state: seed)
        return fill(fixedTexts, to: count) {
            let part = ["image/webp;q=\(randomNumber(&random))", "a=\(randomNumber(&random))", randomNumber(&random), "*/*"].randomElement(using: &random)!
            return Array(repeating: part, count: Int.random(in: 1...64, using: &random)).joined(separator: random.chance(0.5) ? "," : "; ")
        }
    }

    /// One number near an extreme: long digit runs, signs, exponents past `Double`'s range,
    /// tiny fractions, and the named values.
    package static func randomNumber(_ random: inout SplitMix64) -> String {
        let sign = ["", "-", "+"].randomElement(using: &random)!
        switch Int.random(in: 0...5, using: &random) {
        case 0: return sign + String((0..<Int.random(in: 1...40, using: &random)).map { _ in "0123456789".randomElement(using: &random)! })
        case 1: return sign + "\(Int.random(in: 1...9, using: &random))e\(Int.random(in: -400...400, using: &random))"
        case 2: return sign + "0." + String(repeating: "0", count: Int.random(in: 0...330, using: &random)) + "1"
        case 3: return sign + String(Int.random(in: Int.min...Int.max, using: &random).magnitude)
        case 4: return fixedNumbers.randomElement(using: &random)!
        default: return sign + String(Double.random(in: -1e6...1e6, using: &random))
        }
    }

    private static func fill(_ fixed: [String], to count: Int, _ draw: () -> String) -> [String] {
        var values = Array(fixed.prefix(count))
        while values.count < count { values.append(draw()) }
        return values
    }
}
