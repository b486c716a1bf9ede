/// Plain text out of the HTML fragments recipe sites put in JSON-LD text fields.
///
/// Entities are decoded first, then tags removed, so text that was HTML-escaped twice
/// ("&lt;b&gt;well&lt;/b&gt;") loses its tags too. A "<" not followed by a letter, "/" or "!"
/// is text ("cook < 5 min"). Entities need their ";"; numeric ones (`&#39;`, `&#x27;`) must name
/// a Unicode scalar other than NUL; unknown ones are kept as written.
public enum HTMLText {
    /// One line of text: entities decoded, tags removed, whitespace (line breaks included)
    /// collapsed to single spaces, trimmed.
    public static func plainText(_ html: String) -> String {
        collapsingWhitespace(removingTags(decodingEntities(html), blockSeparator: " "))
    }

    /// Lines of text: line breaks and block tags (`<br>`, `<p>`, `<li>`, `<div>`…) end a line;
    /// each line as ``plainText(_:)``; lines without a letter or a digit dropped.
    public static func lines(_ html: String) -> [String] {
        removingTags(decodingEntities(html), blockSeparator: "\n")
            .split(whereSeparator: { $0.isNewline })
            .map { collapsingWhitespace(String($0)) }
            // What stood between two blocks ("</li>,<li>") is no line: only letters or digits make one.
            .filter { $0.contains { $0.isLetter || $0.isNumber } }
    }

    /// `text` with its character references (`&amp;`, `&frac12;`, `&#39;`, `&#x27;`) decoded.
    public static func decodingEntities(_ text: String) -> String {
        guard text.contains(where: { $0 == "&" }) else { return text }
        let characters = Array(text)
        var result = ""
        var index = 0
        while index < characters.count {
            if characters[index] == "&", let semicolon = characters[index...].prefix(maximumEntityLength).firstIndex(of: ";"),
                let decoded = entity(String(characters[(index + 1)..<semicolon]))
            {
                result.append(decoded)
                index = semicolon + 1
            } else {
                result.append(characters[index])
                index += 1
            }
        }
        return result
    }

    /// Characters from "&" to ";" in the longest reference looked for ("&#x0001F600;").
    private static let maximumEntityLength = 12

    private static func entity(_ name: String) -> String? {
        guard name.hasPrefix("#") else { return namedEntities[name] }
        let digits = name.dropFirst()
        let value: UInt32?
        if digits.first == "x" || digits.first == "X" {
            value = UInt32(digits.dropFirst(), radix: 16)
        } else {
            value = UInt32(digits, radix: 10)
        }
        guard let value, value != 0, let scalar = Unicode.Scalar(value) else { return nil }
        return String(Character(scalar))
    }

    /// The named references recipe text uses: markup, punctuation, fractions, accented letters.
    private static let namedEntities: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{00A0}",
        "ndash": "\u{2013}", "mdash": "\u{2014}", "hellip": "\u{2026}", "lsquo": "\u{2018}", "rsquo": "\u{2019}",
        "ldquo": "\u{201C}", "rdquo": "\u{201D}", "laquo": "\u{00AB}", "raquo": "\u{00BB}", "bull": "\u{2022}",
        "middot": "\u{00B7}", "deg": "\u{00B0}", "times": "\u{00D7}", "divide": "\u{00F7}", "plusmn": "\u{00B1}",
        "frac12": "\u{00BD}", "frac14": "\u{00BC}", "frac34": "\u{00BE}", "frac13": "\u{2153}", "frac23": "\u{2154}",
        "frac15": "\u{2155}", "frac18": "\u{215B}", "frac38": "\u{215C}", "frac58": "\u{215D}", "frac78": "\u{215E}",
        "copy": "\u{00A9}", "reg": "\u{00AE}", "trade": "\u{2122}",
        "aacute": "\u{00E1}", "agrave": "\u{00E0}", "acirc": "\u{00E2}", "auml": "\u{00E4}", "ccedil": "\u{00E7}",
        "eacute": "\u{00E9}", "egrave": "\u{00E8}", "ecirc": "\u{00EA}", "euml": "\u{00EB}", "iacute": "\u{00ED}",
        "icirc": "\u{00EE}", "iuml": "\u{00EF}", "ntilde": "\u{00F1}", "oacute": "\u{00F3}", "ocirc": "\u{00F4}", "ouml": "\u{00F6}",
        "oslash": "\u{00F8}", "aring": "\u{00E5}", "uacute": "\u{00FA}", "ugrave": "\u{00F9}", "ucirc": "\u{00FB}", "uuml": "\u{00FC}",
        "szlig": "\u{00DF}", "Eacute": "\u{00C9}", "Auml": "\u{00C4}", "Ouml": "\u{00D6}", "Uuml": "\u{00DC}",
    ]

    /// Tags that end a line or a paragraph; other tags (`<b>`, `<a>`, `<span>`) are removed
    /// without a trace, so "<b>3</b>cups" stays one word.
    private static let blockTags: Set<String> = [
        "br", "p", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "td", "th", "table", "section", "article", "hr",
    ]

    /// `text` without tags; block tags become `blockSeparator`.
    private static func removingTags(_ text: String, blockSeparator: Character) -> String {
        guard text.contains(where: { $0 == "<" }) else { return text }
        let characters = Array(text)
        var result = ""
        var index = 0
        while index < characters.count {
            if characters[index] == "<", index + 1 < characters.count,
                characters[index + 1].isLetter || characters[index + 1] == "/" || characters[index + 1] == "!",
                let close = characters[(index + 1)...].firstIndex(of: ">")
            {
                if blockTags.contains(tagName(characters[(index + 1)..<close])) { result.append(blockSeparator) }
                index = close + 1
            } else {
                result.append(characters[index])
                index += 1
            }
        }
        return result
    }

    /// "p" for "/p", "br" for "br /", lowercased.
    private static func tagName(_ inside: ArraySlice<Character>) -> String {
        String(inside.drop(while: { $0 == "/" }).prefix(while: { $0.isLetter || $0.isNumber })).lowercased()
    }

    /// Runs of whitespace (non-breaking spaces and line breaks included) as single spaces, trimmed.
    private static func collapsingWhitespace(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}
