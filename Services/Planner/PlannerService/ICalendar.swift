import Foundation

/// Writes RFC 5545 calendars: CRLF line endings, lines folded at 75 octets, TEXT values escaped,
/// times in UTC (so no VTIMEZONE is needed and every calendar app reads them the same way).
enum ICalendar {
    struct Event: Equatable {
        /// Globally unique and stable: the same slot exports with the same UID every time, so a
        /// subscribed calendar updates the event instead of duplicating it.
        var uid: String
        var start: Date
        var end: Date
        var summary: String
        var description: String?
    }

    static func calendar(name: String, events: [Event], stamp: Date) -> String {
        var lines = [
            "BEGIN:VCALENDAR",
            "VERSION:2.0",
            "PRODID:-//Sous//Planner 1.0//EN",
            "CALSCALE:GREGORIAN",
            "METHOD:PUBLISH",
            "X-WR-CALNAME:\(escape(name))",
        ]
        for event in events {
            lines += [
                "BEGIN:VEVENT",
                "UID:\(escape(event.uid))",
                "DTSTAMP:\(utc(stamp))",
                "DTSTART:\(utc(event.start))",
                "DTEND:\(utc(event.end))",
                "SUMMARY:\(escape(event.summary))",
            ]
            if let description = event.description { lines.append("DESCRIPTION:\(escape(description))") }
            lines.append("END:VEVENT")
        }
        lines.append("END:VCALENDAR")
        return lines.map(fold).joined(separator: "\r\n") + "\r\n"
    }

    /// TEXT escaping (RFC 5545 3.3.11): backslash, semicolon, comma and newlines.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "\\": result += "\\\\"
            case ";": result += "\\;"
            case ",": result += "\\,"
            case "\r\n", "\n", "\r": result += "\\n"
            default: result.append(character)
            }
        }
        return result
    }

    /// Splits a content line into lines of at most 75 octets, each continuation starting with a
    /// space (RFC 5545 3.1), never inside a UTF-8 sequence.
    static func fold(_ line: String) -> String {
        var lines: [String] = []
        var current = ""
        var octets = 0
        for scalar in line.unicodeScalars {
            let size = String(scalar).utf8.count
            if octets + size > 75 {
                lines.append(current)
                current = " "
                octets = 1
            }
            current.unicodeScalars.append(scalar)
            octets += size
        }
        lines.append(current)
        return lines.joined(separator: "\r\n")
    }

    /// `yyyyMMddTHHmmssZ`.
    static func utc(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
    }
}
