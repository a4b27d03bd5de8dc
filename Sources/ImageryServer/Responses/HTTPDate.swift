/// HTTP dates (`Last-Modified`, `Expires`, `If-Modified-Since`) and RFC 3339 times (imgproxy's
/// `IMGPROXY_LAST_MODIFIED_BUSTER`), to and from Unix seconds, by the calendar's arithmetic:
/// no formatter, no locale and no time zone database, so parsing costs nothing on a hit.
///
/// Every date comes from outside (a client, an origin, a stored answer), so a year outside
/// ``years`` is no date at all: the arithmetic below then never sees a number it could
/// overflow on, whatever the header says.
enum HTTPDate {
    /// The years a date may name: four digits, as every form spells them.
    static let years = 1...9999

    private static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The Unix seconds of those years' first and last seconds.
    static let seconds = -62_135_596_800...253_402_300_799

    /// RFC 9110's IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`; a time outside ``seconds`` is
    /// written as its nearest end.
    static func format(_ seconds: Int) -> String {
        let seconds = min(max(seconds, Self.seconds.lowerBound), Self.seconds.upperBound)
        let days = seconds.floorDivided(by: 86_400), time = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        let weekday = weekdays[(days + 3).floorModulo(7)]   // 1970-01-01 was a Thursday
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let fourDigits = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)   // as the form says
        return "\(weekday), \(two(day)) \(months[month - 1]) \(fourDigits) \(two(time / 3600)):\(two(time / 60 % 60)):\(two(time % 60)) GMT"
    }

    /// An HTTP date in any of RFC 9110's three forms (IMF-fixdate, RFC 850, asctime); `nil` for
    /// anything else, which a recipient must treat as no date.
    static func parse(_ text: String) -> Int? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        let day: Int?, month: Int?, year: Int?, clock: String
        switch words.count {
        case 6 where words[5] == "GMT":   // Sun, 06 Nov 1994 08:49:37 GMT
            (day, month, year, clock) = (Int(words[1]), monthNumber(words[2]), Int(words[3]), words[4])
        case 4 where words[3] == "GMT":   // Sunday, 06-Nov-94 08:49:37 GMT
            let parts = words[1].split(separator: "-").map(String.init)
            guard parts.count == 3, parts[2].utf8.count == 2, let short = Int(parts[2]), (0...99).contains(short) else { return nil }
            (day, month, year, clock) = (Int(parts[0]), monthNumber(parts[1]), short < 70 ? 2000 + short : 1900 + short, words[2])
        case 5:   // Sun Nov  6 08:49:37 1994
            (day, month, year, clock) = (Int(words[2]), monthNumber(words[1]), Int(words[4]), words[3])
        default:
            return nil
        }
        let time = clock.split(separator: ":").compactMap { Int($0) }
        guard let day, let month, let year, years.contains(year), time.count == 3, (1...31).contains(day), (0...23).contains(time[0]),
              (0...59).contains(time[1]), (0...60).contains(time[2])
        else { return nil }
        return days(year: year, month: month, day: day) * 86_400 + time[0] * 3600 + time[1] * 60 + time[2]
    }

    /// An RFC 3339 time (`2024-05-01T12:00:00Z`, `2024-05-01T14:00:00.5+02:00`) in Unix seconds,
    /// fractions dropped; `nil` for anything else.
    static func parseRFC3339(_ text: String) -> Int? {
        let utf8 = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= utf8.count else { return nil }
            return Int(String(decoding: utf8[range], as: UTF8.self)).flatMap { value in
                utf8[range].allSatisfy { (48...57).contains($0) } ? value : nil
            }
        }
        guard utf8.count >= 20, utf8[4] == UInt8(ascii: "-"), utf8[7] == UInt8(ascii: "-"), [UInt8(ascii: "T"), UInt8(ascii: "t")].contains(utf8[10]),
              utf8[13] == UInt8(ascii: ":"), utf8[16] == UInt8(ascii: ":"),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19), years.contains(year),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        var index = 19
        if utf8[index] == UInt8(ascii: ".") {
            index += 1
            let start = index
            while index < utf8.count, (48...57).contains(utf8[index]) { index += 1 }
            guard index > start, index < utf8.count else { return nil }
        }
        var offset = 0
        if [UInt8(ascii: "Z"), UInt8(ascii: "z")].contains(utf8[index]), index + 1 == utf8.count {
            offset = 0
        } else if [UInt8(ascii: "+"), UInt8(ascii: "-")].contains(utf8[index]), index + 6 == utf8.count, utf8[index + 3] == UInt8(ascii: ":"),
                  let hours = number(index + 1..<index + 3), let minutes = number(index + 4..<index + 6), hours < 24, minutes < 60 {
            offset = (hours * 3600 + minutes * 60) * (utf8[index] == UInt8(ascii: "+") ? 1 : -1)
        } else {
            return nil
        }
        return days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second - offset
    }

    private static func monthNumber(_ name: String) -> Int? {
        months.firstIndex(of: name).map { $0 + 1 }
    }

    /// Days since 1970-01-01 of a date in the proleptic Gregorian calendar (Howard Hinnant's
    /// `days_from_civil`).
    private static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = y.floorDivided(by: 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01 (`civil_from_days`).
    private static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = z.floorDivided(by: 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPart = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPart + 2) / 5 + 1
        let month = monthPart < 10 ? monthPart + 3 : monthPart - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

private extension Int {
    func floorDivided(by divisor: Int) -> Int {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }

    func floorModulo(_ divisor: Int) -> Int {
        self - floorDivided(by: divisor) * divisor
    }
}
