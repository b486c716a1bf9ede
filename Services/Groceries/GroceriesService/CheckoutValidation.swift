import Foundation
public import SousSchema
public import SousWire

/// A checkout request whose every field was checked and normalized.
public struct ValidCheckout: Equatable, Sendable {
    public var phone: String
    public var street: String
    public var postalCode: String
    public var city: String
    public var note: String?
}

/// Checks a checkout's contact and address fields, reporting every problem at once.
public enum CheckoutValidation {
    /// The normalized phone number, or nil when it is neither form:
    /// - E.164: `+`, then 8–15 digits, the first not 0 (e.g. `+39 06 1234 5678` → `+390612345678`);
    /// - national: a leading 0, 6–15 digits in all (e.g. `030-123 4567` → `0301234567`).
    /// Spaces, dashes, dots and parentheses between digits are ignored; nothing else is allowed.
    public static func normalizedPhone(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let international = trimmed.hasPrefix("+")
        let body = international ? trimmed.dropFirst() : Substring(trimmed)
        var digits = ""
        for character in body {
            if character.isASCII, character.isNumber {
                digits.append(character)
            } else if !" -.()".contains(character) {
                return nil
            }
        }
        if international {
            guard (8...15).contains(digits.count), digits.first != "0" else { return nil }
            return "+" + digits
        }
        guard (6...15).contains(digits.count), digits.first == "0" else { return nil }
        return digits
    }

    /// The checked request, or one badRequest naming every missing or invalid field in its
    /// message (`field` is the first of them).
    public static func validate(_ request: Checkout) throws(ServiceError) -> ValidCheckout {
        var problems: [(field: String, message: String)] = []
        var phone = ""
        if let text = request.phone, !text.trimmingCharacters(in: .whitespaces).isEmpty {
            if let normalized = normalizedPhone(text) {
                phone = normalized
            } else {
                problems.append(("phone", "phone must be E.164 (+ and 8–15 digits) or a national number (0 first, 6–15 digits)"))
            }
        } else {
            problems.append(("phone", "phone is required"))
        }
        func required(_ value: String?, _ field: String, limit: Int) -> String {
            let trimmed = value?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            if trimmed.isEmpty {
                problems.append(("address.\(field)", "address.\(field) is required"))
            } else if trimmed.count > limit {
                problems.append(("address.\(field)", "address.\(field) is longer than \(limit) characters"))
            }
            return trimmed
        }
        let street = required(request.address?.street, "street", limit: 200)
        let postalCode = required(request.address?.postalCode, "postalCode", limit: 12)
        if !postalCode.isEmpty, postalCode.count <= 12,
            !postalCode.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == " " || $0 == "-") })
        {
            problems.append(("address.postalCode", "address.postalCode may hold only letters, digits, spaces and dashes"))
        }
        let city = required(request.address?.city, "city", limit: 100)
        let note = request.note?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let note, note.count > 500 {
            problems.append(("note", "note is longer than 500 characters"))
        }
        if let first = problems.first {
            throw .badRequest("checkout: " + problems.map(\.message).joined(separator: "; "), field: first.field)
        }
        return ValidCheckout(phone: phone, street: street, postalCode: postalCode, city: city, note: note?.isEmpty == true ? nil : note)
    }
}
