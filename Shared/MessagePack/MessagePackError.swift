/// A structural problem in MessagePack bytes. Decoding reports it as the `underlyingError` of a
/// `DecodingError.dataCorrupted`, with the coding path where it was found.
public enum MessagePackError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A value claims more bytes than remain in the input.
    case truncated(offset: Int, needed: Int, remaining: Int)
    /// A byte that starts no MessagePack value in this position (0xc1, or a reserved ext type).
    case invalidFormat(offset: Int, byte: UInt8)
    /// Arrays and maps nested deeper than the decoder's limit.
    case nestingTooDeep(limit: Int)
    /// Bytes left over after the top-level value.
    case trailingBytes(offset: Int, count: Int)
    /// A string that is not valid UTF-8.
    case invalidUTF8(offset: Int)
    /// A string holding the NUL character (U+0000), which no Sous text may hold: PostgreSQL
    /// cannot store it, and no field has a use for it.
    case nulInString(offset: Int)
    /// A map key that is not a string.
    case nonStringKey(offset: Int)
    /// A number that does not fit the requested Swift type.
    case numberOutOfRange(offset: Int, type: String)
    /// An extension value that is not the timestamp extension where a `Date` was expected.
    case invalidTimestamp(offset: Int)
    /// A timestamp before 0001-01-01 or after 9999-12-31 (UTC), which no field may hold.
    case timestampOutOfRange(offset: Int)

    public var description: String {
        switch self {
        case let .truncated(offset, needed, remaining):
            "truncated input at byte \(offset): needs \(needed) bytes, \(remaining) remain"
        case let .invalidFormat(offset, byte):
            "invalid MessagePack format byte 0x\(String(byte, radix: 16)) at byte \(offset)"
        case let .nestingTooDeep(limit):
            "arrays and maps nested deeper than \(limit) levels"
        case let .trailingBytes(offset, count):
            "\(count) unexpected bytes after the value, from byte \(offset)"
        case let .invalidUTF8(offset):
            "string at byte \(offset) is not valid UTF-8"
        case let .nulInString(offset):
            "string at byte \(offset) holds the NUL character (U+0000), which text may not hold"
        case let .nonStringKey(offset):
            "map key at byte \(offset) is not a string"
        case let .numberOutOfRange(offset, type):
            "number at byte \(offset) does not fit in \(type)"
        case let .invalidTimestamp(offset):
            "value at byte \(offset) is not a MessagePack timestamp"
        case let .timestampOutOfRange(offset):
            "timestamp at byte \(offset) is outside 0001-01-01T00:00:00Z...9999-12-31T23:59:59Z"
        }
    }
}
