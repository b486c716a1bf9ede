public import MessagePack

/// The shape of a value on the wire, as `describe` publishes it: enough for a client in another
/// language to build a request or read a reply without the Swift source.
///
/// On the wire a map: `{kind, type?, values?, element?}`. `kind` is one of
/// `string`, `int`, `float`, `bool`, `bytes` (MessagePack bin), `timestamp` (MessagePack
/// timestamp, ext −1), `date` (a `"YYYY-MM-DD"` string), `time` (a `"HH:MM"` string), `enum`
/// (a string among `values`), `array` (of `element`), `map` (string keys, values of `element`),
/// or `object` (a map with the fields of the named `type`, listed in the description's `types`).
@MessagePackCodable
public struct WireShape: Codable, Hashable, Sendable, CustomStringConvertible {
    @MessagePackCodable
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case string, int, float, bool, bytes, timestamp, date, time
        case `enum`, array, map, object
    }

    public var kind: Kind
    /// The object type's name (`object`) or the enumeration's (`enum`).
    public var type: String?
    /// The allowed strings of an `enum`.
    public var values: [String]?
    /// One element: the shape of an `array`'s elements or a `map`'s values.
    public var element: [WireShape]?

    public init(kind: Kind, type: String? = nil, values: [String]? = nil, element: WireShape? = nil) {
        self.kind = kind
        self.type = type
        self.values = values
        self.element = element.map { [$0] }
    }

    public static let string = WireShape(kind: .string)
    public static let int = WireShape(kind: .int)
    public static let float = WireShape(kind: .float)
    public static let bool = WireShape(kind: .bool)
    public static let bytes = WireShape(kind: .bytes)
    public static let timestamp = WireShape(kind: .timestamp)
    public static let date = WireShape(kind: .date)
    public static let time = WireShape(kind: .time)

    public static func array(of element: WireShape) -> WireShape { WireShape(kind: .array, element: element) }
    public static func map(of element: WireShape) -> WireShape { WireShape(kind: .map, element: element) }
    public static func object(_ name: String) -> WireShape { WireShape(kind: .object, type: name) }

    /// How the reference in docs/PROTOCOL.md writes it: `string`, `[RecipeStep]`, `{string: int}`.
    public var description: String {
        switch kind {
        case .array: "[\(element?.first?.description ?? "?")]"
        case .map: "{string: \(element?.first?.description ?? "?")}"
        case .object, .enum: type ?? kind.rawValue
        default: kind.rawValue
        }
    }
}

/// A field of an object type.
@MessagePackCodable
public struct WireField: Codable, Hashable, Sendable {
    public var name: String
    public var shape: WireShape
    /// False when a request may leave it out (or a reply may omit it); nil is never sent for a
    /// required field.
    public var required: Bool

    public init(name: String, shape: WireShape, required: Bool) {
        self.name = name
        self.shape = shape
        self.required = required
    }
}

/// A named type of the schema: an object with fields, or an enumeration with its values.
@MessagePackCodable
public struct WireType: Codable, Hashable, Sendable {
    public var name: String
    /// `object` or `enum`.
    public var kind: WireShape.Kind
    /// An object's fields, in declaration order.
    public var fields: [WireField]?
    /// An enumeration's values.
    public var values: [String]?

    public init(name: String, kind: WireShape.Kind, fields: [WireField]? = nil, values: [String]? = nil) {
        self.name = name
        self.kind = kind
        self.fields = fields
        self.values = values
    }
}
