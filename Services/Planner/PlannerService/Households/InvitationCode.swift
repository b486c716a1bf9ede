import SousCrypto
import SousRuntime

/// Invitation codes: 12 characters of Crockford's base 32 (60 random bits), shown as
/// `XXXX-XXXX-XXXX`. Only their digest is stored.
enum InvitationCode {
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

    static func random() -> String {
        let characters = Sodium.randomBytes(12).map { alphabet[Int($0 & 31)] }
        return String(characters[0..<4]) + "-" + String(characters[4..<8]) + "-" + String(characters[8..<12])
    }

    /// The code as typed, in any case, with or without dashes and spaces, and with the letters
    /// Crockford reads as digits (O as 0; I and L as 1): its 12 characters, or nil.
    static func normalized(_ typed: String) -> String? {
        guard typed.utf8.count <= 64 else { return nil }
        var characters: [Character] = []
        for character in typed.uppercased() where character != "-" && !character.isWhitespace {
            switch character {
            case "O": characters.append("0")
            case "I", "L": characters.append("1")
            default:
                guard alphabet.contains(character) else { return nil }
                characters.append(character)
            }
        }
        guard characters.count == 12 else { return nil }
        return String(characters[0..<4]) + "-" + String(characters[4..<8]) + "-" + String(characters[8..<12])
    }

    static func digest(_ code: String) -> String {
        Hex.encode(Sodium.digest([Array("sous-invitation".utf8), Array(code.utf8)]))
    }
}
