public import MessagePack

/// Barcode check digits (GS1): EAN-13, EAN-8 and UPC-A.
public enum Barcode {
    @MessagePackCodable
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case ean13, ean8, upcA
    }

    /// The kind of a well-formed code, or a reason it is not one (non-digits, wrong length or a
    /// wrong check digit).
    public static func check(_ code: String) -> Result<Kind, BarcodeProblem> {
        guard !code.isEmpty, code.utf8.allSatisfy({ (48...57).contains($0) }) else {
            return .failure(BarcodeProblem(message: "a barcode is 8, 12 or 13 digits"))
        }
        let kind: Kind
        switch code.utf8.count {
        case 13: kind = .ean13
        case 12: kind = .upcA
        case 8: kind = .ean8
        default: return .failure(BarcodeProblem(message: "a barcode is 8 (EAN-8), 12 (UPC-A) or 13 (EAN-13) digits, not \(code.utf8.count)"))
        }
        let digits = code.utf8.map { Int($0) - 48 }
        let expected = checkDigit(for: digits.dropLast())
        guard digits.last == expected else {
            return .failure(BarcodeProblem(message: "check digit of \(code) should be \(expected)"))
        }
        return .success(kind)
    }

    /// `digits` (7, 11 or 12 of them) with their check digit added: a valid EAN-8, UPC-A or EAN-13.
    public static func completing(_ digits: String) -> String {
        digits + String(checkDigit(for: digits.compactMap(\.wholeNumberValue)))
    }

    /// The GS1 check digit for the digits before it: weights 3 and 1 alternate from the right,
    /// starting with 3 next to the check digit; the check digit tops the sum up to a multiple of 10.
    public static func checkDigit<C: BidirectionalCollection>(for digits: C) -> Int where C.Element == Int {
        var sum = 0
        for (index, digit) in digits.reversed().enumerated() {
            sum += digit * (index % 2 == 0 ? 3 : 1)
        }
        return (10 - sum % 10) % 10
    }
}

/// Why a barcode is not valid.
public struct BarcodeProblem: Error, Equatable, Sendable {
    public var message: String

    public init(message: String) { self.message = message }
}
