public import Foundation

/// Derives a type's direct MessagePack coding from its `Codable` declaration (see
/// `MessagePackCodableMacro`): the same bytes as ``MessagePackEncoder`` writes through `Encodable`,
/// the same values and errors as ``MessagePackDecoder`` reads through `Decodable`, without the
/// generic containers' boxing and per-value allocations.
@attached(
    extension, conformances: MessagePackEncodable, MessagePackDecodable,
    names: named(writeMessagePack), named(init(messagePack:)), named(messagePackKeys), named(messagePackRawValues)
)
public macro MessagePackCodable() = #externalMacro(module: "SousMacros", type: "MessagePackCodableMacro")

/// A type that writes its MessagePack form directly. It must write exactly what its `Encodable`
/// conformance writes through ``MessagePackEncoder``.
public protocol MessagePackEncodable: Encodable {
    func writeMessagePack(to writer: inout MessagePackWriter) throws
}

/// A type that reads its MessagePack form directly.
///
/// The direct path is optimistic: it accepts only what the `Decodable` path accepts, and any
/// failure (a wrong type, a missing key, damaged bytes, a duplicate key) makes the decoder read
/// the value again through `Decodable`, which reports the error with its coding path. So errors
/// are written once, in one place, and bad input costs two passes instead of one.
public protocol MessagePackDecodable: Decodable {
    init(messagePack reader: inout MessagePackFastReader) throws
}

/// Why the direct path gave a value back to the `Decodable` path. Never reaches a caller.
public struct MessagePackFastPathMiss: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }

    public static func missing(_ key: String) -> Self { Self("no value for key \"\(key)\"") }
}

// MARK: - Writing

extension MessagePackWriter {
    /// A map key the macro knows at compile time.
    @inlinable @inline(__always)
    public mutating func writeKey(_ key: StaticString) {
        key.withUTF8Buffer { utf8 in writeString(utf8) }
    }

    /// A string known when the code was generated (a map key, an enumeration's raw value) as
    /// its `length` encoded bytes (header included, at most 32) in little-endian words, as the
    /// macro writes them: whole words stored, no string's bytes copied.
    @inlinable @inline(__always)
    public mutating func writeShortString(_ length: Int, _ w0: UInt64, _ w1: UInt64 = 0, _ w2: UInt64 = 0, _ w3: UInt64 = 0) {
        reserve(32)
        let target = UnsafeMutableRawPointer(start + written)
        target.storeBytes(of: w0.littleEndian, as: UInt64.self)
        if length > 8 { target.storeBytes(of: w1.littleEndian, toByteOffset: 8, as: UInt64.self) }
        if length > 16 { target.storeBytes(of: w2.littleEndian, toByteOffset: 16, as: UInt64.self) }
        if length > 24 { target.storeBytes(of: w3.littleEndian, toByteOffset: 24, as: UInt64.self) }
        written += length
    }

    @inlinable @inline(__always)
    public mutating func writeField<T: MessagePackEncodable>(_ value: T) throws {
        try value.writeMessagePack(to: &self)
    }

    /// A field whose type has no direct coding: through its `Encodable` conformance.
    public mutating func writeField<T: Encodable>(_ value: T) throws {
        if let direct = value as? any MessagePackEncodable {
            try direct.writeMessagePack(to: &self)
        } else {
            try MessagePackEncoder().encodeWithCodable(value, into: &self)
        }
    }

    /// For a type whose hand-written `encode(to:)` the macro does not derive.
    public mutating func writeWithCodable<T: Encodable>(_ value: T) throws {
        try MessagePackEncoder().encodeWithCodable(value, into: &self)
    }
}

// MARK: - Reading

/// Reads MessagePack values in order for ``MessagePackDecodable`` types. Like
/// ``MessagePackReader`` it trusts no length; unlike it, it walks the input once.
public struct MessagePackFastReader: ~Copyable {
    @usableFromInline let storage: [UInt8]
    @usableFromInline let bytes: UnsafeBufferPointer<UInt8>
    @usableFromInline var position: Int
    @usableFromInline var depth: Int
    @usableFromInline let maxDepth: Int
    @usableFromInline let rejectsNUL: Bool

    init(storage: [UInt8], bytes: UnsafeBufferPointer<UInt8>, position: Int, depth: Int, maxDepth: Int, rejectsNUL: Bool) {
        self.storage = storage
        self.bytes = bytes
        self.position = position
        self.depth = depth
        self.maxDepth = maxDepth
        self.rejectsNUL = rejectsNUL
    }

    @usableFromInline var miss: MessagePackFastPathMiss { MessagePackFastPathMiss("unexpected value at byte \(position)") }

    @inlinable @inline(__always)
    mutating func byte() throws(MessagePackFastPathMiss) -> UInt8 {
        guard position < bytes.count else { throw miss }
        let value = bytes[position]
        position += 1
        return value
    }

    @inlinable @inline(__always)
    mutating func bigEndian<T: FixedWidthInteger & UnsignedInteger>(_ type: T.Type) throws(MessagePackFastPathMiss) -> T {
        let size = MemoryLayout<T>.size
        guard bytes.count - position >= size, let base = bytes.baseAddress else { throw miss }
        let value = T(bigEndian: UnsafeRawPointer(base + position).loadUnaligned(as: T.self))
        position += size
        return value
    }

    /// `count` bytes of payload at the current position.
    @inlinable @inline(__always)
    mutating func payload(_ count: Int) throws(MessagePackFastPathMiss) -> Range<Int> {
        guard count >= 0, bytes.count - position >= count else { throw miss }
        defer { position += count }
        return position..<(position + count)
    }

    @inlinable public var isAtNil: Bool { position < bytes.count && bytes[position] == Format.nil }

    @inlinable public mutating func readMapHeader() throws -> Int {
        guard depth < maxDepth else { throw miss }
        let format = try byte()
        let count: Int
        switch format {
        case 0x80...0x8f: count = Int(format & 0x0f)
        case Format.map16: count = Int(try bigEndian(UInt16.self))
        case Format.map32: count = Int(try bigEndian(UInt32.self))
        default: throw miss
        }
        guard bytes.count - position >= count * 2 else { throw miss }
        return count
    }

    @inlinable public mutating func readArrayHeader() throws -> Int {
        guard depth < maxDepth else { throw miss }
        let format = try byte()
        let count: Int
        switch format {
        case 0x90...0x9f: count = Int(format & 0x0f)
        case Format.array16: count = Int(try bigEndian(UInt16.self))
        case Format.array32: count = Int(try bigEndian(UInt32.self))
        default: throw miss
        }
        guard bytes.count - position >= count else { throw miss }
        return count
    }

    @inlinable @inline(__always) mutating func stringRange() throws(MessagePackFastPathMiss) -> Range<Int> {
        let format = try byte()
        switch format {
        case 0xa0...0xbf: return try payload(Int(format & 0x1f))
        case Format.str8: return try payload(Int(try bigEndian(UInt8.self)))
        case Format.str16: return try payload(Int(try bigEndian(UInt16.self)))
        case Format.str32: return try payload(Int(try bigEndian(UInt32.self)))
        default: throw miss
        }
    }

    /// A string; one holding NUL misses when NUL is refused (the Codable path then names the
    /// field: ``MessagePackError/nulInString(offset:)``).
    @inlinable public mutating func readString() throws -> String {
        let range = try stringRange()
        let text = UnsafeBufferPointer(rebasing: bytes[range])
        // ASCII, almost every string here, is valid UTF-8 as it stands: `String(validating:)` is
        // generic and looks up its metadata on every call.
        let (ascii, nul) = Self.scan(text)
        guard !(rejectsNUL && nul) else { throw miss }
        if ascii { return String(decoding: text, as: UTF8.self) }
        guard let string = String(validating: text, as: UTF8.self) else { throw miss }
        return string
    }

    /// Whether `text` is all ASCII and whether it holds a NUL byte, eight bytes at a time (a
    /// byte at a time, this scan was an eighth of decoding a recipe).
    @inlinable @inline(__always)
    static func scan(_ text: UnsafeBufferPointer<UInt8>) -> (ascii: Bool, nul: Bool) {
        guard let base = text.baseAddress else { return (true, false) }
        let count = text.count
        let high: UInt64 = 0x8080_8080_8080_8080
        let ones: UInt64 = 0x0101_0101_0101_0101
        var bits: UInt64 = 0
        var zero: UInt64 = 0
        var offset = 0
        while count - offset >= 8 {
            let word = UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self)
            bits |= word
            // Nonzero exactly when some byte of the word is zero.
            zero |= (word &- ones) & ~word & high
            offset += 8
        }
        var nul = zero != 0
        while offset < count {
            let byte = base[offset]
            bits |= UInt64(byte)
            nul = nul || byte == 0
            offset += 1
        }
        return (bits & high == 0, nul)
    }

    /// Hands the next string's UTF-8 bytes to `body` without making a `String` (they are valid
    /// only inside it, and not checked: `body` decides what it accepts).
    @inlinable public mutating func withStringBytes<T>(_ body: (UnsafeBufferPointer<UInt8>) throws -> T) throws -> T {
        let range = try stringRange()
        return try body(UnsafeBufferPointer(rebasing: bytes[range]))
    }

    /// The index of the next map key in `table`, -1 for a key the type does not know. The hint
    /// (where the previous key was, plus one) makes keys in declaration order one comparison each.
    @inlinable @inline(__always)
    public mutating func readKeyIndex(in table: MessagePackKeyTable, hint: inout Int, seen: inout UInt64) throws -> Int {
        let range = try stringRange()
        let index = table.index(of: UnsafeBufferPointer(rebasing: bytes[range]), hint: hint)
        guard index >= 0 else { return -1 }
        let bit: UInt64 = 1 << UInt64(index)
        // The Decodable path decides what a repeated key means.
        guard seen & bit == 0 else { throw MessagePackFastPathMiss("repeated key") }
        seen |= bit
        hint = index + 1
        return index
    }

    /// Moves past the next map key (or short string) if it is the one of `length` bytes (header
    /// included, at most 32) given as little-endian words, as the macro passes its keys; false,
    /// and nothing read, for any other (or too near the end of the input to compare a word at
    /// a time).
    @inlinable @inline(__always)
    public mutating func nextKey(_ length: Int, _ w0: UInt64, _ w1: UInt64 = 0, _ w2: UInt64 = 0, _ w3: UInt64 = 0) -> Bool {
        guard bytes.count - position >= (length + 7) & ~7, let base = bytes.baseAddress else { return false }
        let source = UnsafeRawPointer(base + position)
        @inline(__always) func word(_ index: Int, _ expected: UInt64) -> Bool {
            let remaining = length - 8 * index
            let mask: UInt64 = remaining >= 8 ? ~0 : (1 << UInt64(8 * remaining)) &- 1
            return source.loadUnaligned(fromByteOffset: 8 * index, as: UInt64.self).littleEndian & mask == expected
        }
        guard word(0, w0) else { return false }
        if length > 8 { guard word(1, w1) else { return false } }
        if length > 16 { guard word(2, w2) else { return false } }
        if length > 24 { guard word(3, w3) else { return false } }
        position += length
        return true
    }

    /// The position in `table` of the string that comes next (an enumeration's raw value).
    @inlinable @inline(__always) public mutating func readCaseIndex(in table: MessagePackKeyTable) throws -> Int {
        let range = try stringRange()
        let index = table.index(of: UnsafeBufferPointer(rebasing: bytes[range]), hint: table.count)
        guard index >= 0 else { throw MessagePackFastPathMiss("not a case") }
        return index
    }

    @inlinable public mutating func readBool() throws -> Bool {
        switch try byte() {
        case Format.true: return true
        case Format.false: return false
        default: throw miss
        }
    }

    /// Any MessagePack integer, as the widest type of its sign: exactly one of the two is set.
    @inlinable mutating func readInteger() throws(MessagePackFastPathMiss) -> (unsigned: UInt64?, signed: Int64?) {
        let format = try byte()
        switch format {
        case 0x00...0x7f: return (UInt64(format), nil)
        case 0xe0...0xff: return (nil, Int64(Int8(bitPattern: format)))
        case Format.uint8: return (UInt64(try bigEndian(UInt8.self)), nil)
        case Format.uint16: return (UInt64(try bigEndian(UInt16.self)), nil)
        case Format.uint32: return (UInt64(try bigEndian(UInt32.self)), nil)
        case Format.uint64: return (try bigEndian(UInt64.self), nil)
        case Format.int8: return (nil, Int64(Int8(bitPattern: try bigEndian(UInt8.self))))
        case Format.int16: return (nil, Int64(Int16(bitPattern: try bigEndian(UInt16.self))))
        case Format.int32: return (nil, Int64(Int32(bitPattern: try bigEndian(UInt32.self))))
        case Format.int64: return (nil, Int64(bitPattern: try bigEndian(UInt64.self)))
        default:
            position -= 1
            throw miss
        }
    }

    @inlinable public mutating func readInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let (unsigned, signed) = try readInteger()
        if let unsigned, let value = T(exactly: unsigned) { return value }
        if let signed, let value = T(exactly: signed) { return value }
        throw miss
    }

    @inlinable @inline(__always) public mutating func readDouble() throws -> Double {
        // A float64, as this schema's encoders write every Double, inline; anything else below.
        if bytes.count - position >= 9, bytes[position] == Format.float64 {
            position += 1
            return Double(bitPattern: try bigEndian(UInt64.self))
        }
        return try readOtherDouble()
    }

    @inlinable mutating func readOtherDouble() throws -> Double {
        guard position < bytes.count else { throw miss }
        switch bytes[position] {
        case Format.float64:
            position += 1
            return Double(bitPattern: try bigEndian(UInt64.self))
        case Format.float32:
            position += 1
            return Double(Float(bitPattern: try bigEndian(UInt32.self)))
        default:
            // Clients in other languages often send whole numbers as integers.
            let (unsigned, signed) = try readInteger()
            if let unsigned { return Double(unsigned) }
            return Double(signed ?? 0)
        }
    }

    @inlinable public mutating func readFloat() throws -> Float {
        guard position < bytes.count else { throw miss }
        switch bytes[position] {
        case Format.float32:
            position += 1
            return Float(bitPattern: try bigEndian(UInt32.self))
        case Format.float64:
            position += 1
            let value = Double(bitPattern: try bigEndian(UInt64.self))
            let narrowed = Float(value)
            guard !value.isFinite || narrowed.isFinite else { throw miss }
            return narrowed
        default:
            let (unsigned, signed) = try readInteger()
            if let unsigned { return Float(unsigned) }
            return Float(signed ?? 0)
        }
    }

    public mutating func readBinary() throws -> Data {
        let format = try byte()
        let range: Range<Int>
        switch format {
        case Format.bin8: range = try payload(Int(try bigEndian(UInt8.self)))
        case Format.bin16: range = try payload(Int(try bigEndian(UInt16.self)))
        case Format.bin32: range = try payload(Int(try bigEndian(UInt32.self)))
        default: throw miss
        }
        return Data(UnsafeBufferPointer(rebasing: bytes[range]))
    }

    public mutating func readDate() throws -> Date {
        let start = position
        let end = try endOfValue()
        let reader = MessagePackReader(bytes: storage, maxDepth: maxDepth, rejectsNUL: rejectsNUL)
        guard case .ext(let type, let payload)? = try? reader.header(at: start).header, type == Format.timestampType,
            let (seconds, nanoseconds) = try? reader.timestamp(payload)
        else { throw miss }
        position = end
        return Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1_000_000_000)
    }

    /// Moves past one value (a key the type does not know), checking its structure.
    public mutating func skipValue() throws {
        position = try endOfValue()
    }

    private func endOfValue() throws -> Int {
        do {
            return try MessagePackReader(bytes: storage, maxDepth: maxDepth, rejectsNUL: rejectsNUL).skip(at: position, depth: depth + 1)
        } catch {
            throw miss
        }
    }

    /// A nested value: one level deeper, as the `Decodable` path counts.
    @inlinable @inline(__always)
    public mutating func decode<T: MessagePackDecodable>(_ type: T.Type) throws -> T {
        depth += 1
        defer { depth -= 1 }
        return try T(messagePack: &self)
    }

    /// A nested value of a type with no direct coding: through its `Decodable` conformance.
    public mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let direct = T.self as? any MessagePackDecodable.Type {
            depth += 1
            defer { depth -= 1 }
            return try direct.init(messagePack: &self) as! T
        }
        return try decodeWithCodable(T.self, nested: true)
    }

    /// `decodeIfPresent`: nil for an explicit nil.
    @inlinable @inline(__always)
    public mutating func decodeIfPresent<T: MessagePackDecodable>(_ type: T.Type) throws -> T? {
        if isAtNil {
            position += 1
            return nil
        }
        return try decode(T.self)
    }

    public mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
        if isAtNil {
            position += 1
            return nil
        }
        return try decode(T.self)
    }

    /// For a type whose hand-written `init(from:)` the macro does not derive.
    public mutating func decodeWithCodable<T: Decodable>(_ type: T.Type) throws -> T {
        try decodeWithCodable(T.self, nested: false)
    }

    private mutating func decodeWithCodable<T: Decodable>(_ type: T.Type, nested: Bool) throws -> T {
        let end = try endOfValue()
        let decoder = _MessagePackDecoder(
            reader: MessagePackReader(bytes: storage, maxDepth: maxDepth, rejectsNUL: rejectsNUL), offset: position, depth: depth + (nested ? 1 : 0),
            parent: nil, key: nil, userInfo: [:], usesDirectCoding: true)
        let value = nested ? try decoder.decodeValue(T.self) : try T(from: decoder)
        position = end
        return value
    }
}

/// The keys of a type's fields (or the raw values of an enumeration), compared as bytes.
///
/// A class with its keys back to back in memory of its own: one array per key made every
/// comparison retain and release that array and call `memcmp` for a few bytes. A key not at
/// the hint (an enumeration's raw value always) is found through a small hash of its length
/// and end bytes instead of trying every key in turn.
public final class MessagePackKeyTable: Sendable {
    /// Every key's bytes back to back.
    @usableFromInline nonisolated(unsafe) let bytes: UnsafeMutablePointer<UInt8>
    /// Where key `i` starts in `bytes`; `starts[count]` is the end of the last.
    @usableFromInline nonisolated(unsafe) let starts: UnsafeMutablePointer<Int>
    @usableFromInline let count: Int
    /// Open addressing: a slot holds a key's index plus one, 0 when empty.
    @usableFromInline nonisolated(unsafe) let slots: UnsafeMutablePointer<Int>
    @usableFromInline let slotMask: Int

    public init(_ keys: [StaticString]) {
        let starts = UnsafeMutablePointer<Int>.allocate(capacity: keys.count + 1)
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: max(keys.reduce(0) { $0 + $1.utf8CodeUnitCount }, 1))
        var offset = 0
        for (index, key) in keys.enumerated() {
            starts[index] = offset
            key.withUTF8Buffer { utf8 in
                if let source = utf8.baseAddress { (bytes + offset).initialize(from: source, count: utf8.count) }
            }
            offset += key.utf8CodeUnitCount
        }
        starts[keys.count] = offset
        var slotCount = 8
        while slotCount < keys.count * 2 { slotCount *= 2 }
        let slots = UnsafeMutablePointer<Int>.allocate(capacity: slotCount)
        slots.initialize(repeating: 0, count: slotCount)
        for index in 0..<keys.count {
            let key = UnsafeBufferPointer(start: bytes + starts[index], count: starts[index + 1] - starts[index])
            var slot = Self.hash(key) & (slotCount - 1)
            while slots[slot] != 0 { slot = (slot + 1) & (slotCount - 1) }
            slots[slot] = index + 1
        }
        self.bytes = bytes
        self.starts = starts
        self.slots = slots
        slotMask = slotCount - 1
        count = keys.count
    }

    deinit {
        bytes.deallocate()
        starts.deallocate()
        slots.deallocate()
    }

    @inlinable @inline(__always) static func hash(_ key: UnsafeBufferPointer<UInt8>) -> Int {
        guard let first = key.first, let last = key.last else { return 0 }
        return key.count &* 31 &+ Int(first) &* 7 &+ Int(last)
    }

    /// Whether key `index` is exactly `candidate`: eight bytes at a time.
    @inlinable @inline(__always) func matches(_ index: Int, _ candidate: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = starts[index]
        let length = starts[index + 1] - start
        guard length == candidate.count else { return false }
        guard let other = candidate.baseAddress else { return true }
        let known = UnsafeRawPointer(bytes + start)
        let given = UnsafeRawPointer(other)
        var offset = 0
        while length - offset >= 8 {
            guard known.loadUnaligned(fromByteOffset: offset, as: UInt64.self) == given.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            else { return false }
            offset += 8
        }
        while offset < length {
            guard known.load(fromByteOffset: offset, as: UInt8.self) == given.load(fromByteOffset: offset, as: UInt8.self) else { return false }
            offset += 1
        }
        return true
    }

    /// The index of `candidate`, trying `hint` first; -1 if it is none of the keys.
    @inlinable @inline(__always) func index(of candidate: UnsafeBufferPointer<UInt8>, hint: Int) -> Int {
        if hint < count, matches(hint, candidate) { return hint }
        var slot = Self.hash(candidate) & slotMask
        while true {
            let entry = slots[slot]
            if entry == 0 { return -1 }
            if matches(entry - 1, candidate) { return entry - 1 }
            slot = (slot + 1) & slotMask
        }
    }
}

// MARK: - Entry points from the Codable path

extension _MessagePackDecoder {
    /// Reads the value at `offset` directly; nil when the direct path missed, and the caller
    /// reads it through `Decodable`.
    func decodeDirectly<T: Decodable>(_ type: T.Type, at offset: Int, depth: Int) -> T? {
        guard usesDirectCoding, let direct = T.self as? any MessagePackDecodable.Type else { return nil }
        let storage = reader.bytes
        return storage.withUnsafeBufferPointer { buffer -> T? in
            var fast = MessagePackFastReader(
                storage: storage, bytes: buffer, position: offset, depth: depth, maxDepth: reader.maxDepth, rejectsNUL: reader.rejectsNUL)
            return try? direct.init(messagePack: &fast) as? T
        }
    }
}

extension MessagePackDecoder {
    /// The whole input through the direct path, or nil if it missed anywhere (including bytes
    /// left over), so the `Decodable` path reports the error.
    func decodeDirectly<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) -> T? {
        guard userInfo.isEmpty, let direct = T.self as? any MessagePackDecodable.Type else { return nil }
        return decodeDirectly(direct, as: T.self, from: bytes)
    }

    /// For a type already known to read itself: `Direct` is `T` (its conformance, found from the
    /// type). The value is read as `Direct` and handed back as `T` without an existential box
    /// (casting one back to `T` was a tenth of a small call's decoding), and moved, not copied:
    /// a copy retained and released every string and array of a recipe once more.
    func decodeDirectly<T, Direct: MessagePackDecodable>(_: Direct.Type, as _: T.Type, from bytes: [UInt8]) -> T? {
        precondition(T.self == Direct.self)
        return bytes.withUnsafeBufferPointer { buffer -> T? in
            var fast = MessagePackFastReader(storage: bytes, bytes: buffer, position: 0, depth: 0, maxDepth: maxDepth, rejectsNUL: rejectsNUL)
            return withUnsafeTemporaryAllocation(of: Direct.self, capacity: 1) { slot -> T? in
                guard let slot = slot.baseAddress else { return nil }
                do {
                    slot.initialize(to: try Direct(messagePack: &fast))
                } catch {
                    return nil
                }
                let value = UnsafeMutableRawPointer(slot).assumingMemoryBound(to: T.self).move()
                return fast.position == bytes.count ? value : nil
            }
        }
    }
}

// MARK: - Standard types, written as the Codable path writes them

extension String: MessagePackEncodable, MessagePackDecodable {
    @inlinable public func writeMessagePack(to writer: inout MessagePackWriter) { writer.write(self) }
    @inlinable public init(messagePack reader: inout MessagePackFastReader) throws { self = try reader.readString() }
}

extension Bool: MessagePackEncodable, MessagePackDecodable {
    @inlinable public func writeMessagePack(to writer: inout MessagePackWriter) { writer.write(self) }
    @inlinable public init(messagePack reader: inout MessagePackFastReader) throws { self = try reader.readBool() }
}

extension Double: MessagePackEncodable, MessagePackDecodable {
    @inlinable public func writeMessagePack(to writer: inout MessagePackWriter) { writer.write(self) }
    @inlinable public init(messagePack reader: inout MessagePackFastReader) throws { self = try reader.readDouble() }
}

extension Float: MessagePackEncodable, MessagePackDecodable {
    @inlinable public func writeMessagePack(to writer: inout MessagePackWriter) { writer.write(self) }
    @inlinable public init(messagePack reader: inout MessagePackFastReader) throws { self = try reader.readFloat() }
}

/// Integers as the Codable path writes them (the smallest format that holds the value, through
/// the widest type of their sign), read from any integer format that holds the value exactly.
extension MessagePackEncodable where Self: FixedWidthInteger & SignedInteger {
    @inlinable public func writeMessagePack(to writer: inout MessagePackWriter) { writer.write(Int64(self)) }
}

extension MessagePackEncodable where Self: FixedWidthInteger & UnsignedInteger {
    @inlinable public func writeMessagePack(to writer: inout MessagePackWriter) { writer.write(UInt64(self)) }
}

extension MessagePackDecodable where Self: FixedWidthInteger {
    @inlinable public init(messagePack reader: inout MessagePackFastReader) throws { self = try reader.readInteger(Self.self) }
}

extension Int: MessagePackEncodable, MessagePackDecodable {}
extension Int64: MessagePackEncodable, MessagePackDecodable {}
extension Int32: MessagePackEncodable, MessagePackDecodable {}
extension UInt64: MessagePackEncodable, MessagePackDecodable {}
extension UInt32: MessagePackEncodable, MessagePackDecodable {}
extension UInt8: MessagePackEncodable, MessagePackDecodable {}

extension Date: MessagePackEncodable, MessagePackDecodable {
    public func writeMessagePack(to writer: inout MessagePackWriter) { _MessagePackEncoder.writeDate(self, into: &writer) }
    public init(messagePack reader: inout MessagePackFastReader) throws { self = try reader.readDate() }
}

extension Data: MessagePackEncodable, MessagePackDecodable {
    @inlinable public func writeMessagePack(to writer: inout MessagePackWriter) { writer.writeBinary(self) }
    @inlinable public init(messagePack reader: inout MessagePackFastReader) throws { self = try reader.readBinary() }
}

extension Optional: MessagePackEncodable where Wrapped: MessagePackEncodable {
    @inlinable public func writeMessagePack(to writer: inout MessagePackWriter) throws {
        if let self { try self.writeMessagePack(to: &writer) } else { writer.writeNil() }
    }
}

extension Optional: MessagePackDecodable where Wrapped: MessagePackDecodable {
    @inlinable public init(messagePack reader: inout MessagePackFastReader) throws {
        if reader.isAtNil {
            reader.position += 1
            self = nil
        } else {
            self = try Wrapped(messagePack: &reader)
        }
    }
}

/// Arrays and sets as the Codable path writes them: an array of their elements, in iteration order.
extension MessagePackEncodable where Self: Collection, Element: MessagePackEncodable {
    @inlinable public func writeMessagePack(to writer: inout MessagePackWriter) throws {
        writer.writeArrayHeader(count: count)
        for element in self { try element.writeMessagePack(to: &writer) }
    }
}

extension Array: MessagePackEncodable where Element: MessagePackEncodable {
    /// Each element borrowed from the array's storage: iterating copied every element (a
    /// retain and a release of each of its references).
    @inlinable public func writeMessagePack(to writer: inout MessagePackWriter) throws {
        writer.writeArrayHeader(count: count)
        try withUnsafeBufferPointer { elements in
            for index in elements.indices { try elements[index].writeMessagePack(to: &writer) }
        }
    }
}

extension Array: MessagePackDecodable where Element: MessagePackDecodable {
    @inlinable public init(messagePack reader: inout MessagePackFastReader) throws {
        let count = try reader.readArrayHeader()
        self = []
        reserveCapacity(count)
        for _ in 0..<count { append(try reader.decode(Element.self)) }
    }
}

extension Set: MessagePackEncodable where Element: MessagePackEncodable {}

extension Set: MessagePackDecodable where Element: MessagePackDecodable {
    @inlinable public init(messagePack reader: inout MessagePackFastReader) throws {
        let count = try reader.readArrayHeader()
        self = []
        reserveCapacity(count)
        for _ in 0..<count { insert(try reader.decode(Element.self)) }
    }
}

extension Dictionary: MessagePackEncodable where Key == String, Value: MessagePackEncodable {
    @inlinable public func writeMessagePack(to writer: inout MessagePackWriter) throws {
        writer.writeMapHeader(count: count)
        for (key, value) in self {
            writer.write(key)
            try value.writeMessagePack(to: &writer)
        }
    }
}

extension Dictionary: MessagePackDecodable where Key == String, Value: MessagePackDecodable {
    @inlinable public init(messagePack reader: inout MessagePackFastReader) throws {
        let count = try reader.readMapHeader()
        // No reserveCapacity: built as `Decodable` builds it, a dictionary iterates (and is written
        // again) in the same order.
        self = [:]
        for _ in 0..<count {
            let key = try reader.readString()
            let value = try reader.decode(Value.self)
            // The Decodable path decides what a repeated key means.
            guard updateValue(value, forKey: key) == nil else { throw MessagePackFastPathMiss("repeated key") }
        }
    }
}

// MARK: - Enumerations with String raw values

extension MessagePackEncodable where Self: RawRepresentable, RawValue == String {
    @inlinable public func writeMessagePack(to writer: inout MessagePackWriter) { writer.write(rawValue) }
}

extension MessagePackDecodable where Self: RawRepresentable, RawValue == String {
    @inlinable public init(messagePack reader: inout MessagePackFastReader) throws {
        guard let value = Self(rawValue: try reader.readString()) else { throw MessagePackFastPathMiss("not a case") }
        self = value
    }
}

// MARK: - Checking the direct path

/// With `SOUS_MESSAGEPACK_CHECK=1` in the environment (the test script sets it), every value
/// encoded or decoded directly is also encoded or decoded through `Codable`, and any difference
/// stops the process naming the type: the whole test suite then proves the macro's output
/// equal to the declarations it was derived from, on every message the tests send.
enum DirectCodingCheck {
    static let isOn = ProcessInfo.processInfo.environment["SOUS_MESSAGEPACK_CHECK"] == "1"

    static func compare<T: Encodable>(_ value: T, direct: [UInt8]) throws {
        var codable = MessagePackEncoder()
        codable.usesDirectCoding = false
        let expected = try codable.encode(value)
        precondition(direct == expected, "direct MessagePack encoding of \(T.self) differs from its Encodable conformance")
    }

    static func compare<T: Decodable>(_ type: T.Type, from bytes: [UInt8], direct: T?, rejectsNUL: Bool) throws -> T {
        var codable = MessagePackDecoder()
        codable.usesDirectCoding = false
        codable.rejectsNUL = rejectsNUL
        let expected: T
        do {
            expected = try codable.decode(T.self, from: bytes)
        } catch {
            precondition(direct == nil, "direct MessagePack decoding of \(T.self) accepted what its Decodable conformance refuses: \(error)")
            throw error
        }
        if let direct {
            precondition(
                sameValue(direct, expected), "direct MessagePack decoding of \(T.self) differs from its Decodable conformance")
        }
        return expected
    }

    /// By `==` where the type has it (a dictionary's order is not part of its value), or by the
    /// bytes `Encodable` writes.
    static func sameValue<T>(_ left: T, _ right: T) -> Bool {
        if let left = left as? any Equatable, equal(left, right) { return true }
        // Not equal by `==` (NaN never is), or not Equatable: the same bytes then.
        guard let left = left as? any Encodable, let right = right as? any Encodable else { return true }
        var encoder = MessagePackEncoder()
        encoder.usesDirectCoding = false
        return (try? encoder.encode(left)) == (try? encoder.encode(right))
    }

    private static func equal<E: Equatable>(_ left: E, _ right: Any) -> Bool {
        (right as? E) == left
    }
}
