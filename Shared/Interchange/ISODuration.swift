import Foundation

/// Durations as recipe sites write them, in whole minutes.
///
/// ISO 8601 ("PT1H30M", "PT45M", "P0DT0H20M", "PT90M", "P1D", "PT0.5H",
/// "P0Y0M0DT0H35M0.000S"): designators in order, each at most once, decimals with "." or ",",
/// lowercase accepted. Years and months have no fixed length, so only zero ones are accepted.
///
/// Plain text too ("30 minutes", "1 hour 20 min", "1 hr, 15 mins", "1h30m", "1.5 hours"):
/// number and unit pairs (days, hours, minutes, seconds; "and" and commas between are ignored).
/// A bare number ("30") is not a duration; neither are fractions ("1 1/2 hours") or words
/// ("half an hour").
///
/// Seconds are rounded to the nearest minute, halves up ("PT30S" is 1). Negative durations
/// and any longer than `Int32.max` minutes are refused, so converting to `Int` cannot trap.
public enum ISODuration {
    /// The longest duration accepted, in minutes (about 4,000 years).
    public static let maximumMinutes = Int(Int32.max)

    /// Minutes in `text` (ISO 8601 or plain), or nil when it is not a duration.
    public static func minutes(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let first = trimmed.first else { return nil }
        let seconds = first == "P" || first == "p" ? isoSeconds(trimmed) : plainSeconds(trimmed)
        return seconds.flatMap(wholeMinutes)
    }

    /// "PT20M", "PT1H", "PT1H30M" ("PT0M" for 0); nil for a negative duration.
    public static func string(minutes: Int) -> String? {
        guard minutes >= 0 else { return nil }
        let hours = minutes / 60
        let rest = minutes % 60
        if hours == 0 { return "PT\(minutes)M" }
        return rest == 0 ? "PT\(hours)H" : "PT\(hours)H\(rest)M"
    }

    /// Whole minutes in `seconds`, nil when out of range.
    static func wholeMinutes(_ seconds: Double) -> Int? {
        let minutes = (seconds / 60).rounded()
        guard minutes.isFinite, minutes >= 0, minutes <= Double(maximumMinutes) else { return nil }
        return Int(minutes)
    }

    /// Seconds in an ISO 8601 duration ("P…").
    private static func isoSeconds(_ text: String) -> Double? {
        let characters = Array(text.uppercased())
        var index = 1
        var inTimePart = false
        var lastRank = -1
        var components = 0
        var timeComponents = 0
        var seconds = 0.0
        while index < characters.count {
            if characters[index] == "T" {
                guard !inTimePart else { return nil }
                inTimePart = true
                index += 1
                continue
            }
            var digits = ""
            while index < characters.count, characters[index].isASCIIDigit || characters[index] == "." || characters[index] == "," {
                digits.append(characters[index] == "," ? "." : characters[index])
                index += 1
            }
            guard !digits.isEmpty, index < characters.count, let value = Double(digits), value.isFinite else { return nil }
            let designator = characters[index]
            index += 1
            // The rank keeps the designators in ISO order; years and months have no length.
            let component: (rank: Int, seconds: Double?)
            switch (inTimePart, designator) {
            case (false, "Y"): component = (0, nil)
            case (false, "M"): component = (1, nil)
            case (false, "W"): component = (2, 604_800)
            case (false, "D"): component = (3, 86_400)
            case (true, "H"): component = (4, 3_600)
            case (true, "M"): component = (5, 60)
            case (true, "S"): component = (6, 1)
            default: return nil
            }
            guard component.rank > lastRank else { return nil }
            lastRank = component.rank
            components += 1
            if inTimePart { timeComponents += 1 }
            if let unitSeconds = component.seconds {
                seconds += value * unitSeconds
            } else if value != 0 {
                return nil
            }
        }
        // "P" and "PT" alone, or a "T" with nothing after it, are not durations.
        guard components > 0, !inTimePart || timeComponents > 0 else { return nil }
        return seconds
    }

    /// Seconds per plain-text unit word.
    private static let plainUnits: [String: Double] = [
        "d": 86_400, "day": 86_400, "days": 86_400,
        "h": 3_600, "hr": 3_600, "hrs": 3_600, "hour": 3_600, "hours": 3_600,
        "m": 60, "min": 60, "mins": 60, "minute": 60, "minutes": 60,
        "s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
    ]

    /// Seconds in "1 hour 20 min" and the like.
    private static func plainSeconds(_ text: String) -> Double? {
        let characters = Array(text.lowercased())
        var index = 0
        var pendingNumber: Double?
        var pairs = 0
        var seconds = 0.0
        while index < characters.count {
            let character = characters[index]
            if character.isASCIIDigit {
                guard pendingNumber == nil else { return nil }
                var digits = ""
                var hasDecimalMark = false
                while index < characters.count {
                    let next = characters[index]
                    // "1.5" and "1,5", but a comma before a space separates ("1 hr, 15 mins").
                    let isDecimalMark =
                        !hasDecimalMark && (next == "." || next == ",") && index + 1 < characters.count && characters[index + 1].isASCIIDigit
                    guard next.isASCIIDigit || isDecimalMark else { break }
                    digits.append(isDecimalMark ? "." : next)
                    hasDecimalMark = hasDecimalMark || isDecimalMark
                    index += 1
                }
                guard let value = Double(digits), value.isFinite else { return nil }
                pendingNumber = value
            } else if character.isLetter {
                var word = ""
                while index < characters.count, characters[index].isLetter {
                    word.append(characters[index])
                    index += 1
                }
                if word == "and" { continue }
                guard let number = pendingNumber, let unitSeconds = plainUnits[word] else { return nil }
                seconds += number * unitSeconds
                pendingNumber = nil
                pairs += 1
            } else {
                index += 1
            }
        }
        guard pairs > 0, pendingNumber == nil else { return nil }
        return seconds
    }
}
