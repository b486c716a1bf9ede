import Foundation

/// Lists and small structures kept as JSON text in one column (a recipe's steps, an
/// ingredient's synonyms, a profile's diets).
public enum JSONColumn {
    public static func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }

    public static func encode(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }
}

extension Sequence<String> {
    /// The strings as one JSON array, bound to `IN (\(engine.jsonArrayValues))`
    /// (``SQLEngine/jsonArrayValues``): the statement's text is then the same for any count of
    /// values, so it stays prepared.
    public var sqlJSONArray: String {
        // An array of strings always encodes.
        String(decoding: (try? JSONEncoder().encode(Array(self))) ?? Data("[]".utf8), as: UTF8.self)
    }
}
