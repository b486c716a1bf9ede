import Foundation

/// Encodes `Encodable` values as MessagePack.
///
/// Mapping: structs and classes become maps keyed by their coding keys' string values; arrays
/// become arrays; `nil` becomes nil (optionals are written explicitly, not omitted); `Data` becomes
/// bin; `Date` becomes the timestamp extension (-1); `URL` becomes its absolute string; integers
/// and floats use the smallest MessagePack format that holds them exactly (Float stays float32).
public struct MessagePackEncoder: Sendable {
    /// Values the encoded types can read through `Encoder.userInfo`.
    public nonisolated(unsafe) var userInfo: [CodingUserInfoKey: any Sendable] = [:]
    /// Whether ``MessagePackEncodable`` values write themselves directly (the default) or go
    /// through `Encodable` (what checks of the direct path compare against). Values that read
    /// `userInfo` always go through `Encodable`.
    public var usesDirectCoding = true

    public init() {}

    public func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        // Most messages fit 4 KB (a recipe is 3.5 KB; a page of search results about as much),
        // written in place in the array returned.
        try MessagePackWriter.bytes(capacity: 4096) { writer in try encode(value, into: &writer) }
    }

    /// Appends the encoding of `value` to `writer`, so several values can share one buffer.
    public func encode<T: Encodable>(_ value: T, into writer: inout MessagePackWriter) throws {
        if usesDirectCoding, userInfo.isEmpty, let direct = T.self as? any MessagePackEncodable.Type {
            let start = writer.count
            try Self.write(value, as: direct, to: &writer)
            if DirectCodingCheck.isOn { try DirectCodingCheck.compare(value, direct: writer.bytes(from: start)) }
            return
        }
        let slot = EncodedSlot()
        let encoder = _MessagePackEncoder(slot: slot, parent: nil, key: nil, userInfo: userInfo, usesDirectCoding: usesDirectCoding)
        try encoder.encodeValue(value, into: slot)
        slot.serialize(into: &writer)
    }

    /// Writes `value` through its direct coding, `Direct` being `T` itself (its conformance,
    /// found from the type): casting the value to `any MessagePackEncodable` instead copied it
    /// into an existential box on every message, a tenth of a small call's coding.
    private static func write<T, Direct: MessagePackEncodable>(_ value: T, as _: Direct.Type, to writer: inout MessagePackWriter) throws {
        precondition(T.self == Direct.self)
        try withUnsafePointer(to: value) { pointer in
            try pointer.withMemoryRebound(to: Direct.self, capacity: 1) { try $0.pointee.writeMessagePack(to: &writer) }
        }
    }

    /// Through `Encodable` only, for a type whose direct coding defers to its own `encode(to:)`.
    func encodeWithCodable<T: Encodable>(_ value: T, into writer: inout MessagePackWriter) throws {
        let slot = EncodedSlot()
        let encoder = _MessagePackEncoder(slot: slot, parent: nil, key: nil, userInfo: userInfo, usesDirectCoding: usesDirectCoding)
        try value.encode(to: encoder)
        slot.serialize(into: &writer)
    }
}

// MARK: - Intermediate form

/// What one `Encoder` produced: nothing yet, the bytes of a single value, or a container.
///
/// Scalars are appended to their container's byte buffer as they are encoded; only nested
/// containers become nodes, spliced in at their byte offset when the whole value is serialized.
/// That keeps interleaved use of nested containers and `superEncoder` correct without building a
/// node per scalar.
final class EncodedSlot {
    enum Storage {
        case empty
        case single([UInt8])
        case container(ContainerNode)
    }

    var storage: Storage = .empty

    func serialize(into output: inout MessagePackWriter) {
        switch storage {
        case .empty:
            // A value that encoded nothing reads back as an empty map, as JSONEncoder writes `{}`.
            output.append(0x80)
        case .single(let bytes):
            output.append(contentsOf: bytes)
        case .container(let node):
            node.serialize(into: &output)
        }
    }
}

final class ContainerNode {
    enum Kind { case map, array }

    let kind: Kind
    /// Entries of a map, elements of an array.
    var count = 0
    var writer = MessagePackWriter(capacity: 64)
    /// Nested values, each written just before the writer's byte at `offset`.
    var children: [(offset: Int, slot: EncodedSlot)] = []

    init(kind: Kind) { self.kind = kind }

    func appendChild(_ slot: EncodedSlot) {
        children.append((writer.count, slot))
    }

    func serialize(into output: inout MessagePackWriter) {
        switch kind {
        case .map: output.writeMapHeader(count: count)
        case .array: output.writeArrayHeader(count: count)
        }
        var written = 0
        for child in children {
            writer.withBytes { output.append(contentsOf: UnsafeBufferPointer(rebasing: $0[written..<child.offset])) }
            child.slot.serialize(into: &output)
            written = child.offset
        }
        writer.withBytes { output.append(contentsOf: UnsafeBufferPointer(rebasing: $0[written...])) }
    }
}

// MARK: - Encoder

final class _MessagePackEncoder: Encoder {
    let slot: EncodedSlot
    let parent: _MessagePackEncoder?
    let key: (any CodingKey)?
    let userInfoStorage: [CodingUserInfoKey: any Sendable]
    /// Whether nested ``MessagePackEncodable`` values write themselves (false only to check them).
    let usesDirectCoding: Bool

    init(
        slot: EncodedSlot, parent: _MessagePackEncoder?, key: (any CodingKey)?, userInfo: [CodingUserInfoKey: any Sendable],
        usesDirectCoding: Bool
    ) {
        self.usesDirectCoding = usesDirectCoding && userInfo.isEmpty
        self.slot = slot
        self.parent = parent
        self.key = key
        self.userInfoStorage = userInfo
    }

    var userInfo: [CodingUserInfoKey: Any] { userInfoStorage }

    /// Built on demand by walking up the parents, so the common path never allocates it.
    var codingPath: [any CodingKey] {
        var path: [any CodingKey] = []
        var encoder: _MessagePackEncoder? = self
        while let current = encoder {
            if let key = current.key { path.append(key) }
            encoder = current.parent
        }
        return path.reversed()
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(KeyedContainer<Key>(encoder: self, node: node(of: .map)))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        UnkeyedContainer(encoder: self, node: node(of: .array))
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(encoder: self)
    }

    /// The container this encoder writes to; asking twice returns the same one.
    private func node(of kind: ContainerNode.Kind) -> ContainerNode {
        if case .container(let existing) = slot.storage, existing.kind == kind {
            return existing
        }
        let node = ContainerNode(kind: kind)
        slot.storage = .container(node)
        return node
    }

    func child(key: (any CodingKey)?, slot: EncodedSlot = EncodedSlot()) -> _MessagePackEncoder {
        _MessagePackEncoder(slot: slot, parent: self, key: key, userInfo: userInfoStorage, usesDirectCoding: usesDirectCoding)
    }

    /// Encodes a value that may itself be a container: scalars go straight into `writer`,
    /// containers are attached to `node` as a child.
    func encodeNested<T: Encodable>(_ value: T, key: (any CodingKey)?, node: ContainerNode) throws {
        if Self.writeSpecial(value, into: &node.writer) { return }
        if usesDirectCoding, let direct = value as? any MessagePackEncodable {
            try direct.writeMessagePack(to: &node.writer)
            return
        }
        let childSlot = EncodedSlot()
        let encoder = child(key: key, slot: childSlot)
        try value.encode(to: encoder)
        switch childSlot.storage {
        case .single(let bytes): node.writer.append(contentsOf: bytes)
        case .empty, .container: node.appendChild(childSlot)
        }
    }

    /// Encodes the top-level value into `slot`.
    func encodeValue<T: Encodable>(_ value: T, into slot: EncodedSlot) throws {
        var writer = MessagePackWriter(capacity: 16)
        if Self.writeSpecial(value, into: &writer) {
            slot.storage = .single(writer.bytes)
            return
        }
        if usesDirectCoding, let direct = value as? any MessagePackEncodable {
            try direct.writeMessagePack(to: &writer)
            slot.storage = .single(writer.bytes)
            return
        }
        try value.encode(to: self)
    }

    /// Types whose MessagePack form differs from their own `Encodable` conformance.
    /// Types whose MessagePack form differs from their own `Encodable` conformance, plus the
    /// most common scalars. Compares metadata rather than casting, which keeps the miss cheap.
    @inline(__always)
    static func writeSpecial<T: Encodable>(_ value: T, into writer: inout MessagePackWriter) -> Bool {
        if T.self == String.self {
            writer.write(value as! String)
        } else if T.self == Int.self {
            writer.write(Int64(value as! Int))
        } else if T.self == Double.self {
            writer.write(value as! Double)
        } else if T.self == Bool.self {
            writer.write(value as! Bool)
        } else if T.self == Date.self {
            writeDate(value as! Date, into: &writer)
        } else if T.self == Data.self {
            writer.writeBinary(value as! Data)
        } else if T.self == URL.self {
            writer.write((value as! URL).absoluteString)
        } else {
            return false
        }
        return true
    }

    /// Writes `date` as a timestamp. A `Date` read from the wire is always inside
    /// `Format.timestampSeconds`; one from anywhere else (a stored row, a computation) that is
    /// outside it or not finite is written as the nearest end of that range rather than trapping:
    /// no value a service holds can stop an encoder.
    static func writeDate(_ date: Date, into writer: inout MessagePackWriter) {
        let earliest = Double(Format.timestampSeconds.lowerBound)
        let latest = Double(Format.timestampSeconds.upperBound)
        let raw = date.timeIntervalSince1970
        let interval = raw.isNaN ? 0 : min(max(raw, earliest), latest)
        var seconds = interval.rounded(.down)
        var nanoseconds = ((interval - seconds) * 1_000_000_000).rounded()
        if nanoseconds >= 1_000_000_000 {
            seconds += 1
            nanoseconds -= 1_000_000_000
        }
        writer.writeTimestamp(seconds: Int64(seconds), nanoseconds: UInt32(nanoseconds))
    }
}

// MARK: - Containers

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: _MessagePackEncoder
    let node: ContainerNode

    var codingPath: [any CodingKey] { encoder.codingPath }

    @inline(__always)
    private func writeKey(_ key: Key) {
        node.count += 1
        node.writer.write(key.stringValue)
    }

    mutating func encodeNil(forKey key: Key) throws {
        writeKey(key)
        node.writer.writeNil()
    }
    mutating func encode(_ value: Bool, forKey key: Key) throws {
        writeKey(key)
        node.writer.write(value)
    }
    mutating func encode(_ value: String, forKey key: Key) throws {
        writeKey(key)
        node.writer.write(value)
    }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        writeKey(key)
        node.writer.write(value)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        writeKey(key)
        node.writer.write(value)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws {
        writeKey(key)
        node.writer.write(Int64(value))
    }
    mutating func encode(_ value: Int8, forKey key: Key) throws {
        writeKey(key)
        node.writer.write(Int64(value))
    }
    mutating func encode(_ value: Int16, forKey key: Key) throws {
        writeKey(key)
        node.writer.write(Int64(value))
    }
    mutating func encode(_ value: Int32, forKey key: Key) throws {
        writeKey(key)
        node.writer.write(Int64(value))
    }
    mutating func encode(_ value: Int64, forKey key: Key) throws {
        writeKey(key)
        node.writer.write(value)
    }
    mutating func encode(_ value: UInt, forKey key: Key) throws {
        writeKey(key)
        node.writer.write(UInt64(value))
    }
    mutating func encode(_ value: UInt8, forKey key: Key) throws {
        writeKey(key)
        node.writer.write(UInt64(value))
    }
    mutating func encode(_ value: UInt16, forKey key: Key) throws {
        writeKey(key)
        node.writer.write(UInt64(value))
    }
    mutating func encode(_ value: UInt32, forKey key: Key) throws {
        writeKey(key)
        node.writer.write(UInt64(value))
    }
    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        writeKey(key)
        node.writer.write(value)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        writeKey(key)
        try encoder.encodeNested(value, key: key, node: node)
    }

    // Optionals are written as an explicit nil rather than left out, so every field is visible
    // to clients in other languages.
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { try encodeOptional(value, forKey: key) }

    private mutating func encodeOptional<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        writeKey(key)
        let nested = ContainerNode(kind: .map)
        let slot = EncodedSlot()
        slot.storage = .container(nested)
        node.appendChild(slot)
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(encoder: encoder.child(key: key, slot: slot), node: nested))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        writeKey(key)
        let nested = ContainerNode(kind: .array)
        let slot = EncodedSlot()
        slot.storage = .container(nested)
        node.appendChild(slot)
        return UnkeyedContainer(encoder: encoder.child(key: key, slot: slot), node: nested)
    }

    mutating func superEncoder() -> any Encoder { superEncoder(named: SuperKey.super) }

    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: key) }

    private func superEncoder(named key: any CodingKey) -> any Encoder {
        node.count += 1
        node.writer.write(key.stringValue)
        let slot = EncodedSlot()
        node.appendChild(slot)
        return encoder.child(key: key, slot: slot)
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: _MessagePackEncoder
    let node: ContainerNode

    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { node.count }

    private var nextKey: IndexKey { IndexKey(intValue: node.count) }

    mutating func encodeNil() throws {
        node.count += 1
        node.writer.writeNil()
    }
    mutating func encode(_ value: Bool) throws {
        node.count += 1
        node.writer.write(value)
    }
    mutating func encode(_ value: String) throws {
        node.count += 1
        node.writer.write(value)
    }
    mutating func encode(_ value: Double) throws {
        node.count += 1
        node.writer.write(value)
    }
    mutating func encode(_ value: Float) throws {
        node.count += 1
        node.writer.write(value)
    }
    mutating func encode(_ value: Int) throws {
        node.count += 1
        node.writer.write(Int64(value))
    }
    mutating func encode(_ value: Int8) throws {
        node.count += 1
        node.writer.write(Int64(value))
    }
    mutating func encode(_ value: Int16) throws {
        node.count += 1
        node.writer.write(Int64(value))
    }
    mutating func encode(_ value: Int32) throws {
        node.count += 1
        node.writer.write(Int64(value))
    }
    mutating func encode(_ value: Int64) throws {
        node.count += 1
        node.writer.write(value)
    }
    mutating func encode(_ value: UInt) throws {
        node.count += 1
        node.writer.write(UInt64(value))
    }
    mutating func encode(_ value: UInt8) throws {
        node.count += 1
        node.writer.write(UInt64(value))
    }
    mutating func encode(_ value: UInt16) throws {
        node.count += 1
        node.writer.write(UInt64(value))
    }
    mutating func encode(_ value: UInt32) throws {
        node.count += 1
        node.writer.write(UInt64(value))
    }
    mutating func encode(_ value: UInt64) throws {
        node.count += 1
        node.writer.write(value)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let key = nextKey
        node.count += 1
        try encoder.encodeNested(value, key: key, node: node)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let key = nextKey
        node.count += 1
        let nested = ContainerNode(kind: .map)
        let slot = EncodedSlot()
        slot.storage = .container(nested)
        node.appendChild(slot)
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(encoder: encoder.child(key: key, slot: slot), node: nested))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let key = nextKey
        node.count += 1
        let nested = ContainerNode(kind: .array)
        let slot = EncodedSlot()
        slot.storage = .container(nested)
        node.appendChild(slot)
        return UnkeyedContainer(encoder: encoder.child(key: key, slot: slot), node: nested)
    }

    mutating func superEncoder() -> any Encoder {
        let key = nextKey
        node.count += 1
        let slot = EncodedSlot()
        node.appendChild(slot)
        return encoder.child(key: key, slot: slot)
    }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
    let encoder: _MessagePackEncoder

    var codingPath: [any CodingKey] { encoder.codingPath }

    private func store(_ write: (inout MessagePackWriter) -> Void) {
        var writer = MessagePackWriter(capacity: 16)
        write(&writer)
        encoder.slot.storage = .single(writer.bytes)
    }

    mutating func encodeNil() throws { store { $0.writeNil() } }
    mutating func encode(_ value: Bool) throws { store { $0.write(value) } }
    mutating func encode(_ value: String) throws { store { $0.write(value) } }
    mutating func encode(_ value: Double) throws { store { $0.write(value) } }
    mutating func encode(_ value: Float) throws { store { $0.write(value) } }
    mutating func encode(_ value: Int) throws { store { $0.write(Int64(value)) } }
    mutating func encode(_ value: Int8) throws { store { $0.write(Int64(value)) } }
    mutating func encode(_ value: Int16) throws { store { $0.write(Int64(value)) } }
    mutating func encode(_ value: Int32) throws { store { $0.write(Int64(value)) } }
    mutating func encode(_ value: Int64) throws { store { $0.write(value) } }
    mutating func encode(_ value: UInt) throws { store { $0.write(UInt64(value)) } }
    mutating func encode(_ value: UInt8) throws { store { $0.write(UInt64(value)) } }
    mutating func encode(_ value: UInt16) throws { store { $0.write(UInt64(value)) } }
    mutating func encode(_ value: UInt32) throws { store { $0.write(UInt64(value)) } }
    mutating func encode(_ value: UInt64) throws { store { $0.write(value) } }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try encoder.encodeValue(value, into: encoder.slot)
    }
}

struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

enum SuperKey: String, CodingKey { case `super` }
