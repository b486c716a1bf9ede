import Foundation

/// Learns the wire shape of `Decodable` types by decoding each from a probe that records what
/// its `init(from:)` asks for: the fields, their types, which may be absent. So `describe` and
/// the reference in docs/PROTOCOL.md come from the same code that decodes requests, and cannot
/// drift from it.
///
/// Field order is the order a type decodes them (declaration order for synthesized
/// conformances). A field read with `decodeIfPresent` (every optional property) is not required.
/// Enumerations are `CaseIterable` types with `String` raw values; types written as something
/// other than their fields conform to ``WireShaped``.
public struct WireSchema: Sendable {
    /// Every named type met so far, by name.
    public private(set) var types: [String: WireType] = [:]

    public init() {}

    /// The shape of `type`, adding the object and enumeration types it uses to ``types``.
    public mutating func shape<T: Decodable>(of type: T.Type) throws -> WireShape {
        let state = ProbeState(types: types)
        defer { types = state.types }
        return try state.probe(type).shape
    }
}

/// What a probe could not learn; a schema type that needs a ``WireShaped`` conformance.
public struct WireSchemaError: Error, CustomStringConvertible {
    public var description: String
}

/// A type whose wire form is not a map of its fields (a date written as a string, say).
public protocol WireShaped {
    static var wireShape: WireShape { get }
    /// Any valid value, returned to the type being probed that contains this one.
    static var wireSample: Self { get }
}

// MARK: - The probe

private final class ProbeState {
    var types: [String: WireType]
    var inProgress: Set<String> = []

    init(types: [String: WireType]) { self.types = types }

    /// The shape of `T` and a value of it to hand back to whoever decodes one.
    func probe<T: Decodable>(_ type: T.Type) throws -> (shape: WireShape, value: T) {
        if let primitive = Self.primitive(T.self) { return primitive }
        if let shaped = T.self as? any WireShaped.Type {
            return (shaped.wireShape, shaped.wireSample as! T)
        }
        if let collection = T.self as? any ProbedCollection.Type {
            return (try collection.shape(using: self), collection.empty as! T)
        }
        let name = Self.name(of: T.self)
        if let cases = T.self as? any CaseIterable.Type {
            let all = Self.allCases(cases)
            let values = all.compactMap { ($0 as? any RawRepresentable).flatMap { $0.rawValue as? String } }
            guard let first = all.first as? T, values.count == all.count else {
                throw WireSchemaError(description: "\(name): an enumeration needs String raw values and at least one case")
            }
            types[name] = WireType(name: name, kind: .enum, values: values)
            return (WireShape(kind: .enum, type: name, values: values), first)
        }
        guard inProgress.insert(name).inserted else {
            throw WireSchemaError(description: "\(name) contains itself; describe it with WireShaped")
        }
        defer { inProgress.remove(name) }
        let decoder = ProbeDecoder(state: self)
        let value: T
        do {
            value = try T(from: decoder)
        } catch let error as WireSchemaError {
            throw WireSchemaError(description: "\(name) → \(error.description)")
        } catch {
            throw WireSchemaError(
                description: "\(name) could not be probed (\(error)); conform it to WireShaped, or make it CaseIterable if it is an enumeration")
        }
        if let single = decoder.single { return (single, value) }
        types[name] = WireType(name: name, kind: .object, fields: decoder.fields)
        return (.object(name), value)
    }

    /// The shape of `T` alone, for a collection's elements: no value is needed, so a type may
    /// contain lists or optionals of itself.
    func shape<T: Decodable>(_ type: T.Type) throws -> WireShape {
        let name = Self.name(of: T.self)
        if inProgress.contains(name) { return .object(name) }
        return try probe(type).shape
    }

    /// The type's name without its module: "RecipeDraft", "WireShape.Kind" (nested types keep
    /// their parent, so two `Kind`s do not collide).
    static func name<T>(of type: T.Type) -> String {
        let full = String(reflecting: type)
        guard let dot = full.firstIndex(of: "."), !full.hasPrefix("Swift.") else { return full }
        return String(full[full.index(after: dot)...])
    }

    private static func allCases<C: CaseIterable>(_ type: C.Type) -> [Any] { Array(type.allCases) }

    private static func primitive<T>(_ type: T.Type) -> (shape: WireShape, value: T)? {
        let found: (WireShape, Any)? =
            switch type {
            case is String.Type: (.string, "")
            case is Bool.Type: (.bool, false)
            case is Double.Type: (.float, 0.0)
            case is Float.Type: (.float, Float(0))
            case is Int.Type: (.int, 0)
            case is Int64.Type: (.int, Int64(0))
            case is Int32.Type: (.int, Int32(0))
            case is Int16.Type: (.int, Int16(0))
            case is Int8.Type: (.int, Int8(0))
            case is UInt.Type: (.int, UInt(0))
            case is UInt64.Type: (.int, UInt64(0))
            case is UInt32.Type: (.int, UInt32(0))
            case is UInt16.Type: (.int, UInt16(0))
            case is UInt8.Type: (.int, UInt8(0))
            case is Date.Type: (.timestamp, Date(timeIntervalSince1970: 0))
            case is Data.Type: (.bytes, Data())
            default: nil
            }
        guard let (shape, value) = found, let typed = value as? T else { return nil }
        return (shape, typed)
    }
}

/// Arrays, sets, string-keyed dictionaries and optionals: shaped by their elements, probed empty.
private protocol ProbedCollection {
    static func shape(using state: ProbeState) throws -> WireShape
    static var empty: Self { get }
}

extension Array: ProbedCollection where Element: Decodable {
    fileprivate static func shape(using state: ProbeState) throws -> WireShape { .array(of: try state.shape(Element.self)) }
    fileprivate static var empty: Self { [] }
}

extension Set: ProbedCollection where Element: Decodable {
    fileprivate static func shape(using state: ProbeState) throws -> WireShape { .array(of: try state.shape(Element.self)) }
    fileprivate static var empty: Self { [] }
}

extension Dictionary: ProbedCollection where Key == String, Value: Decodable {
    fileprivate static func shape(using state: ProbeState) throws -> WireShape { .map(of: try state.shape(Value.self)) }
    fileprivate static var empty: Self { [:] }
}

extension Optional: ProbedCollection where Wrapped: Decodable {
    fileprivate static func shape(using state: ProbeState) throws -> WireShape { try state.shape(Wrapped.self) }
    fileprivate static var empty: Self { nil }
}

private final class ProbeDecoder: Decoder {
    let state: ProbeState
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]
    /// The fields a keyed container was asked for, in order.
    var fields: [WireField] = []
    /// Set when the type decoded itself from a single value.
    var single: WireShape?
    /// Keys whose presence was asked (`contains`, `decodeNil`): the field may be absent.
    var optionalKeys: Set<String> = []

    init(state: ProbeState) { self.state = state }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(ProbeKeyedContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw WireSchemaError(description: "a type that decodes itself as a list")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { ProbeSingleValue(decoder: self) }

    func record<T: Decodable>(_ type: T.Type, key: String) throws -> T {
        let (shape, value) = try state.probe(type)
        if let index = fields.firstIndex(where: { $0.name == key }) {
            fields[index].shape = shape
        } else {
            fields.append(WireField(name: key, shape: shape, required: !optionalKeys.contains(key)))
        }
        return value
    }
}

private struct ProbeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ProbeDecoder
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool {
        decoder.optionalKeys.insert(key.stringValue)
        return true
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        decoder.optionalKeys.insert(key.stringValue)
        return false
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decoder.record(type, key: key.stringValue) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.record(type, key: key.stringValue) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder.record(type, key: key.stringValue) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder.record(type, key: key.stringValue) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder.record(type, key: key.stringValue) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder.record(type, key: key.stringValue) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder.record(type, key: key.stringValue) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder.record(type, key: key.stringValue) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder.record(type, key: key.stringValue) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder.record(type, key: key.stringValue) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder.record(type, key: key.stringValue) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder.record(type, key: key.stringValue) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder.record(type, key: key.stringValue) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder.record(type, key: key.stringValue) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder.record(type, key: key.stringValue) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw WireSchemaError(description: "nested containers (field \(key.stringValue))")
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw WireSchemaError(description: "nested lists (field \(key.stringValue))")
    }

    func superDecoder() throws -> any Decoder { throw WireSchemaError(description: "super decoders") }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw WireSchemaError(description: "super decoders") }
}

private struct ProbeSingleValue: SingleValueDecodingContainer {
    let decoder: ProbeDecoder
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try generic(type) }
    func decode(_ type: Bool.Type) throws -> Bool { try generic(type) }
    func decode(_ type: String.Type) throws -> String { try generic(type) }
    func decode(_ type: Double.Type) throws -> Double { try generic(type) }
    func decode(_ type: Float.Type) throws -> Float { try generic(type) }
    func decode(_ type: Int.Type) throws -> Int { try generic(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try generic(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try generic(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try generic(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try generic(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try generic(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try generic(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try generic(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try generic(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try generic(type) }

    private func generic<T: Decodable>(_ type: T.Type) throws -> T {
        let (shape, value) = try decoder.state.probe(type)
        decoder.single = shape
        return value
    }
}
