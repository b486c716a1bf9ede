import Foundation

/// One plain-text mail: who it goes to, its subject and its text. Rendered as RFC 5322 with a
/// UTF-8 body in base64 (so any text survives any relay) and a subject encoded as RFC 2047
/// words when it is not ASCII.
public struct MailMessage: Sendable, Codable, Equatable {
    public var to: String
    public var subject: String
    public var text: String
    /// Stable across retries of one delivery, so a copy a relay accepted twice can be told apart.
    public var messageID: String

    public init(to: String, subject: String, text: String, messageID: String) {
        self.to = to
        self.subject = subject
        self.text = text
        self.messageID = messageID
    }

    /// The message's bytes for DATA, dot-stuffed and ending with the terminating line.
    func rendered(from sender: MailSender, date: Date) -> [UInt8] {
        let domain = sender.address.split(separator: "@").last.map(String.init) ?? "localhost"
        var lines = [
            "From: \(sender.header)",
            "To: <\(to)>",
            "Subject: \(Self.encodedWord(subject))",
            "Date: \(Self.rfc5322Date(date))",
            "Message-ID: <\(messageID)@\(domain)>",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: base64",
            "Auto-Submitted: auto-generated",
            "",
        ]
        let body = Data(text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n", with: "\r\n").utf8)
        lines += body.base64EncodedString(options: [.lineLength76Characters, .endLineWithCarriageReturn, .endLineWithLineFeed])
            .components(separatedBy: "\r\n")
        // Base64 lines never start with a dot: no dot-stuffing is needed past the headers, and the
        // headers' values were checked for line breaks when the message was made.
        return Array((lines.joined(separator: "\r\n") + "\r\n.\r\n").utf8)
    }

    /// `text` as one or more RFC 2047 encoded words when it is not plain printable ASCII.
    static func encodedWord(_ text: String) -> String {
        let flattened = text.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
        if flattened.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return flattened }
        // At most 45 bytes per word (60 in base64, within the 75 a word may have), split between characters.
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in flattened {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > 45 {
                words.append("=?UTF-8?B?\(Data(chunk).base64EncodedString())?=")
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append("=?UTF-8?B?\(Data(chunk).base64EncodedString())?=") }
        return words.joined(separator: "\r\n ")
    }

    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }
}

/// Who mail comes from: the envelope sender and the From header (`SOUS_MAIL_FROM`, as
/// `Sous <sous@example.org>` or a bare address).
public struct MailSender: Sendable, Equatable {
    public let address: String
    public let name: String?

    public init(_ text: String) throws(MailAddressError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let open = trimmed.lastIndex(of: "<"), trimmed.hasSuffix(">") {
            address = try MailAddress.checked(String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)]))
            let display = trimmed[..<open].trimmingCharacters(in: CharacterSet(charactersIn: " \""))
            guard !display.contains(where: { $0.isNewline || $0 == "\"" || $0 == "<" || $0 == ">" }) else {
                throw MailAddressError(text: text, reason: "the name before the address has characters a header cannot carry")
            }
            name = display.isEmpty ? nil : display
        } else {
            address = try MailAddress.checked(trimmed)
            name = nil
        }
    }

    var header: String {
        guard let name else { return "<\(address)>" }
        return "\(MailMessage.encodedWord("\"\(name)\"")) <\(address)>"
    }
}

/// The addresses Sous sends to: `local@domain`, nothing a header or an SMTP command could
/// be split on.
public enum MailAddress {
    public static func checked(_ address: String) throws(MailAddressError) -> String {
        guard address.utf8.count <= 254 else { throw MailAddressError(text: address, reason: "an address has at most 254 bytes") }
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].utf8.count <= 64, parts[1].contains("."),
            !parts[1].hasPrefix("."), !parts[1].hasSuffix(".")
        else {
            throw MailAddressError(text: address, reason: "an address is name@domain.example")
        }
        guard !address.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F || "<>()[]\\,;:\"".unicodeScalars.contains($0) })
        else {
            throw MailAddressError(text: address, reason: "an address has no spaces, line breaks, brackets, quotes, commas or semicolons")
        }
        return address
    }
}

public struct MailAddressError: Error, Sendable, CustomStringConvertible {
    public let text: String
    public let reason: String
    public var description: String { "\(reason) (not \"\(text.prefix(80))\")" }
}
