public import Foundation

/// Decodes `Decodable` values from MessagePack written by ``MessagePackEncoder`` or any
/// conforming implementation.
///
/// The input is untrusted: the whole value is walked once up front (lengths checked against the
/// remaining bytes, nesting bounded by ``maxDepth``, no trailing bytes), and every failure is a
/// `DecodingError`: structural damage as `.dataCorrupted` with a ``MessagePackError`` underneath,
/// wrong shapes as `.typeMismatch`, missing fields as `.keyNotFound`, each with its coding path.
public struct MessagePackDecoder: Sendable {
    /// Deepest nesting of arrays and maps accepted.
    public var maxDepth: Int = 64
    public nonisolated(unsafe) var userInfo: [CodingUserInfoKey: any Sendable] = [:]
    /// Whether ``MessagePackDecodable`` types read themselves directly first (the default) or
    /// only through `Decodable`. Values that read `userInfo` always go through `Decodable`.
    public var usesDirectCoding = true
    /// Whether a string holding the NUL character (U+0000) is refused
    /// (``MessagePackError/nulInString(offset:)``): what a service stores may not hold one
    /// (PostgreSQL cannot), while event topics end with one.
    public var rejectsNUL = false

    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        // The direct path first; when it misses, the Decodable path reads it all again and
        // reports what is wrong.
        let directType = usesDirectCoding && userInfo.isEmpty ? T.self as? any MessagePackDecodable.Type : nil
        if let directType {
            let value = decodeDirectly(directType, as: T.self, from: bytes)
            if DirectCodingCheck.isOn { return try DirectCodingCheck.compare(T.self, from: bytes, direct: value, rejectsNUL: rejectsNUL) }
            if let value { return value }
        }
        let reader = MessagePackReader(bytes: bytes, maxDepth: maxDepth, rejectsNUL: rejectsNUL)
        do {
            let end = try reader.skip(at: 0, depth: 0)
            if end != bytes.count {
                throw MessagePackError.trailingBytes(offset: end, count: bytes.count - end)
            }
        } catch let error as MessagePackError {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: error.description, underlyingError: error))
        }
        let decoder = _MessagePackDecoder(
            reader: reader, offset: 0, depth: 0, parent: nil, key: nil, userInfo: userInfo, usesDirectCoding: usesDirectCoding && directType == nil)
        return try decoder.decodeValue(T.self)
    }

    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try decode(type, from: [UInt8](data))
    }
}

final class _MessagePackDecoder: Decoder {
    let reader: MessagePackReader
    let offset: Int
    let depth: Int
    let parent: _MessagePackDecoder?
    let key: (any CodingKey)?
    let userInfoStorage: [CodingUserInfoKey: any Sendable]
    /// False when reading again what the direct path missed: then everything goes through
    /// `Decodable`, so the error is the one it reports.
    let usesDirectCoding: Bool

    init(
        reader: MessagePackReader, offset: Int, depth: Int, parent: _MessagePackDecoder?, key: (any CodingKey)?,
        userInfo: [CodingUserInfoKey: any Sendable], usesDirectCoding: Bool
    ) {
        self.usesDirectCoding = usesDirectCoding
        self.reader = reader
        self.offset = offset
        self.depth = depth
        self.parent = parent
        self.key = key
        self.userInfoStorage = userInfo
    }

    var userInfo: [CodingUserInfoKey: Any] { userInfoStorage }

    var codingPath: [any CodingKey] {
        var path: [any CodingKey] = []
        var decoder: _MessagePackDecoder? = self
        while let current = decoder {
            if let key = current.key { path.append(key) }
            decoder = current.parent
        }
        return path.reversed()
    }

    func path(appending key: any CodingKey) -> [any CodingKey] { codingPath + [key] }

    func child(at offset: Int, key: any CodingKey) -> _MessagePackDecoder {
        _MessagePackDecoder(
            reader: reader, offset: offset, depth: depth + 1, parent: self, key: key, userInfo: userInfoStorage,
            usesDirectCoding: usesDirectCoding)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(try KeyedContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try UnkeyedContainer(decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(decoder: self)
    }

    // MARK: Values

    /// Structural problems were ruled out up front; what remains is a value of the wrong kind.
    func header(at offset: Int, path: @autoclosure () -> [any CodingKey]) throws -> (header: MessagePackReader.Header, next: Int) {
        do {
            return try reader.header(at: offset)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: error.description, underlyingError: error))
        }
    }

    func mismatch(_ type: Any.Type, _ header: MessagePackReader.Header, path: [any CodingKey]) -> DecodingError {
        DecodingError.typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(type) but found \(header.kindDescription)"))
    }

    func corrupted(_ error: MessagePackError, path: [any CodingKey]) -> DecodingError {
        DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: error.description, underlyingError: error))
    }

    func isNil(at offset: Int) -> Bool {
        offset < reader.bytes.count && reader.bytes[offset] == Format.nil
    }

    func decodeBool(at offset: Int, path: @autoclosure () -> [any CodingKey]) throws -> Bool {
        let (header, _) = try self.header(at: offset, path: path())
        guard case .bool(let value) = header else { throw mismatch(Bool.self, header, path: path()) }
        return value
    }

    func decodeString(at offset: Int, path: @autoclosure () -> [any CodingKey]) throws -> String {
        let (header, _) = try self.header(at: offset, path: path())
        guard case .string(let range) = header else { throw mismatch(String.self, header, path: path()) }
        do {
            return try reader.string(range)
        } catch {
            throw corrupted(error, path: path())
        }
    }

    func decodeInteger<T: FixedWidthInteger>(_ type: T.Type, at offset: Int, path: @autoclosure () -> [any CodingKey]) throws -> T {
        let (header, _) = try self.header(at: offset, path: path())
        let value: T?
        switch header {
        case .unsigned(let unsigned): value = T(exactly: unsigned)
        case .signed(let signed): value = T(exactly: signed)
        default: throw mismatch(T.self, header, path: path())
        }
        guard let value else {
            throw corrupted(.numberOutOfRange(offset: offset, type: "\(T.self)"), path: path())
        }
        return value
    }

    func decodeDouble(at offset: Int, path: @autoclosure () -> [any CodingKey]) throws -> Double {
        let (header, _) = try self.header(at: offset, path: path())
        switch header {
        case .float64(let value): return value
        case .float32(let value): return Double(value)
        // Clients in other languages often send whole numbers as integers.
        case .unsigned(let value): return Double(value)
        case .signed(let value): return Double(value)
        default: throw mismatch(Double.self, header, path: path())
        }
    }

    func decodeFloat(at offset: Int, path: @autoclosure () -> [any CodingKey]) throws -> Float {
        let (header, _) = try self.header(at: offset, path: path())
        switch header {
        case .float32(let value): return value
        case .float64(let value):
            let narrowed = Float(value)
            if value.isFinite && !narrowed.isFinite {
                throw corrupted(.numberOutOfRange(offset: offset, type: "Float"), path: path())
            }
            return narrowed
        case .unsigned(let value): return Float(value)
        case .signed(let value): return Float(value)
        default: throw mismatch(Float.self, header, path: path())
        }
    }

    func decodeDate(at offset: Int, path: @autoclosure () -> [any CodingKey]) throws -> Date {
        let (header, _) = try self.header(at: offset, path: path())
        switch header {
        case .ext(let type, let payload) where type == Format.timestampType:
            do {
                let (seconds, nanoseconds) = try reader.timestamp(payload)
                return Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1_000_000_000)
            } catch {
                throw corrupted(error, path: path())
            }
        default:
            throw mismatch(Date.self, header, path: path())
        }
    }

    func decodeData(at offset: Int, path: @autoclosure () -> [any CodingKey]) throws -> Data {
        let (header, _) = try self.header(at: offset, path: path())
        guard case .binary(let range) = header else { throw mismatch(Data.self, header, path: path()) }
        return Data(reader.bytes[range])
    }

    func decodeURL(at offset: Int, path: @autoclosure () -> [any CodingKey]) throws -> URL {
        let string = try decodeString(at: offset, path: path())
        guard let url = URL(string: string) else {
            throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "invalid URL \"\(string)\""))
        }
        return url
    }

    /// Decodes this decoder's own value, taking the fast path for scalars and special types.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if let value = try decodeSpecial(T.self, at: offset, path: codingPath) { return value }
        return try T(from: self)
    }

    /// Decodes a value at `offset` that belongs to a container of this decoder.
    func decodeNested<T: Decodable>(_ type: T.Type, at offset: Int, key: any CodingKey) throws -> T {
        if let value = try decodeSpecial(T.self, at: offset, path: path(appending: key)) { return value }
        if let value = decodeDirectly(T.self, at: offset, depth: depth + 1) { return value }
        return try T(from: child(at: offset, key: key))
    }

    @inline(__always)
    func decodeSpecial<T: Decodable>(_ type: T.Type, at offset: Int, path: @autoclosure () -> [any CodingKey]) throws -> T? {
        if T.self == String.self { return try decodeString(at: offset, path: path()) as? T }
        if T.self == Int.self { return try decodeInteger(Int.self, at: offset, path: path()) as? T }
        if T.self == Double.self { return try decodeDouble(at: offset, path: path()) as? T }
        if T.self == Bool.self { return try decodeBool(at: offset, path: path()) as? T }
        if T.self == Date.self { return try decodeDate(at: offset, path: path()) as? T }
        if T.self == Data.self { return try decodeData(at: offset, path: path()) as? T }
        if T.self == URL.self { return try decodeURL(at: offset, path: path()) as? T }
        return nil
    }
}

// MARK: - Containers

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: _MessagePackDecoder
    /// Key bytes and value offset of each entry, in the order they appear.
    let entries: [(key: Range<Int>, value: Int)]
    /// Built only for large maps (dictionaries); small structs search `entries` directly.
    let index: [String: Int]?

    init(decoder: _MessagePackDecoder) throws {
        self.decoder = decoder
        let reader = decoder.reader
        let (header, next) = try decoder.header(at: decoder.offset, path: decoder.codingPath)
        guard case .map(let count) = header else {
            throw decoder.mismatch([String: Any].self, header, path: decoder.codingPath)
        }
        if decoder.depth >= reader.maxDepth {
            throw decoder.corrupted(.nestingTooDeep(limit: reader.maxDepth), path: decoder.codingPath)
        }
        var entries: [(key: Range<Int>, value: Int)] = []
        entries.reserveCapacity(count)
        var position = next
        do {
            for _ in 0..<count {
                let (keyHeader, valueOffset) = try reader.header(at: position)
                guard case .string(let keyRange) = keyHeader else {
                    throw MessagePackError.nonStringKey(offset: position)
                }
                entries.append((keyRange, valueOffset))
                position = try reader.skip(at: valueOffset, depth: decoder.depth + 1)
            }
        } catch let error as MessagePackError {
            throw decoder.corrupted(error, path: decoder.codingPath)
        }
        self.entries = entries
        if count > 16 {
            var index: [String: Int] = [:]
            index.reserveCapacity(count)
            for entry in entries {
                index[String(decoding: reader.bytes[entry.key], as: UTF8.self)] = entry.value
            }
            self.index = index
        } else {
            self.index = nil
        }
    }

    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] {
        entries.compactMap { Key(stringValue: String(decoding: decoder.reader.bytes[$0.key], as: UTF8.self)) }
    }

    private func offset(of key: Key) -> Int? { offset(named: key.stringValue) }

    private func offset(named name: String) -> Int? {
        if let index { return index[name] }
        let bytes = decoder.reader.bytes
        var name = name
        return name.withUTF8 { wanted -> Int? in
            for entry in entries where entry.key.count == wanted.count {
                if bytes[entry.key].elementsEqual(wanted) { return entry.value }
            }
            return nil
        }
    }

    private func require(_ key: Key) throws -> Int {
        guard let offset = offset(of: key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no value for key \"\(key.stringValue)\""))
        }
        return offset
    }

    func contains(_ key: Key) -> Bool { offset(of: key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        decoder.isNil(at: try require(key))
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try decoder.decodeBool(at: require(key), path: decoder.path(appending: key))
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try decoder.decodeString(at: require(key), path: decoder.path(appending: key))
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try decoder.decodeDouble(at: require(key), path: decoder.path(appending: key))
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try decoder.decodeFloat(at: require(key), path: decoder.path(appending: key))
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }

    private func integer<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T {
        try decoder.decodeInteger(T.self, at: require(key), path: decoder.path(appending: key))
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.decodeNested(T.self, at: require(key), key: key)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let offset = offset(of: key), !decoder.isNil(at: offset) else { return nil }
        return try decoder.decodeNested(T.self, at: offset, key: key)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder.child(at: require(key), key: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.child(at: require(key), key: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        let key = SuperKey.super
        guard let offset = offset(named: key.stringValue) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no value for key \"super\""))
        }
        return decoder.child(at: offset, key: key)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        decoder.child(at: try require(key), key: key)
    }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: _MessagePackDecoder
    let elementCount: Int
    private(set) var currentIndex = 0
    private var position: Int

    init(decoder: _MessagePackDecoder) throws {
        self.decoder = decoder
        let (header, next) = try decoder.header(at: decoder.offset, path: decoder.codingPath)
        guard case .array(let count) = header else {
            throw decoder.mismatch([Any].self, header, path: decoder.codingPath)
        }
        if decoder.depth >= decoder.reader.maxDepth {
            throw decoder.corrupted(.nestingTooDeep(limit: decoder.reader.maxDepth), path: decoder.codingPath)
        }
        elementCount = count
        position = next
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elementCount }
    var isAtEnd: Bool { currentIndex >= elementCount }

    private var currentKey: IndexKey { IndexKey(intValue: currentIndex) }

    /// Hands out the offset of the next element and moves past it.
    private mutating func next(_ type: Any.Type) throws -> Int {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type, .init(codingPath: decoder.path(appending: currentKey), debugDescription: "array has only \(elementCount) elements"))
        }
        let offset = position
        do {
            position = try decoder.reader.skip(at: offset, depth: decoder.depth + 1)
        } catch {
            throw decoder.corrupted(error, path: decoder.path(appending: currentKey))
        }
        currentIndex += 1
        return offset
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, decoder.isNil(at: position) else { return false }
        position += 1
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        let key = currentKey
        return try decoder.decodeBool(at: next(type), path: decoder.path(appending: key))
    }
    mutating func decode(_ type: String.Type) throws -> String {
        let key = currentKey
        return try decoder.decodeString(at: next(type), path: decoder.path(appending: key))
    }
    mutating func decode(_ type: Double.Type) throws -> Double {
        let key = currentKey
        return try decoder.decodeDouble(at: next(type), path: decoder.path(appending: key))
    }
    mutating func decode(_ type: Float.Type) throws -> Float {
        let key = currentKey
        return try decoder.decodeFloat(at: next(type), path: decoder.path(appending: key))
    }
    mutating func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    private mutating func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let key = currentKey
        return try decoder.decodeInteger(T.self, at: next(type), path: decoder.path(appending: key))
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let key = currentKey
        return try decoder.decodeNested(T.self, at: next(type), key: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let key = currentKey
        return try decoder.child(at: next([String: Any].self), key: key).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let key = currentKey
        return try decoder.child(at: next([Any].self), key: key).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let key = currentKey
        return decoder.child(at: try next((any Decoder).self), key: key)
    }
}

private struct SingleValueContainer: SingleValueDecodingContainer {
    let decoder: _MessagePackDecoder

    var codingPath: [any CodingKey] { decoder.codingPath }
    private var offset: Int { decoder.offset }

    func decodeNil() -> Bool { decoder.isNil(at: offset) }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.decodeBool(at: offset, path: codingPath) }
    func decode(_ type: String.Type) throws -> String { try decoder.decodeString(at: offset, path: codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try decoder.decodeDouble(at: offset, path: codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.decodeFloat(at: offset, path: codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.decodeInteger(type, at: offset, path: codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.decodeInteger(type, at: offset, path: codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.decodeInteger(type, at: offset, path: codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.decodeInteger(type, at: offset, path: codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.decodeInteger(type, at: offset, path: codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.decodeInteger(type, at: offset, path: codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.decodeInteger(type, at: offset, path: codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.decodeInteger(type, at: offset, path: codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.decodeInteger(type, at: offset, path: codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.decodeInteger(type, at: offset, path: codingPath) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.decodeValue(T.self)
    }
}

extension MessagePackDecoder {
    /// Where the MessagePack value starting at `offset` ends: more values may follow it in the
    /// same bytes (a Sous message is a header followed by a body). Throws `DecodingError` for
    /// damaged or truncated bytes.
    public func endOfValue(in bytes: [UInt8], at offset: Int) throws -> Int {
        let reader = MessagePackReader(bytes: bytes, maxDepth: maxDepth, rejectsNUL: rejectsNUL)
        do {
            return try reader.skip(at: offset, depth: 0)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: error.description, underlyingError: error))
        }
    }
}
