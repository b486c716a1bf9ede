import Foundation
import MessagePack
import Testing

struct CodableTests {
    let encoder = MessagePackEncoder()
    let decoder = MessagePackDecoder()

    struct Step: Codable, Equatable {
        enum Kind: String, Codable { case preparation, cooking }
        var description: String
        var minutes: Int?
        var kind: Kind
        var ingredients: [String]
    }

    struct Recipe: Codable, Equatable {
        var id: UUID
        var name: String
        var servings: UInt8
        var rating: Float
        var cost: Double
        var tags: Set<String>
        var quantities: [String: Double]
        var steps: [Step]
        var matrix: [[Int16]]
        var image: Data?
        var link: URL?
        var created: Date
        var flags: [Bool?]
    }

    static let sample = Recipe(
        id: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
        name: "Shakshuka",
        servings: 4,
        rating: 4.5,
        cost: 7.25,
        tags: ["vegetarian", "quick"],
        quantities: ["egg": 4, "tomato": 400.5],
        steps: [
            Step(description: "Chop", minutes: 5, kind: .preparation, ingredients: ["onion"]),
            Step(description: "Simmer", minutes: nil, kind: .cooking, ingredients: []),
        ],
        matrix: [[1, -2], [], [300]],
        image: Data([0xff, 0x00, 0x10]),
        link: URL(string: "https://sous.example/r/1"),
        created: Date(timeIntervalSince1970: 1_700_000_000),
        flags: [true, nil, false]
    )

    @Test func nestedValuesRoundTrip() throws {
        let bytes = try encoder.encode(Self.sample)
        #expect(try decoder.decode(Recipe.self, from: bytes) == Self.sample)
    }

    @Test func enumsWithAssociatedValuesRoundTrip() throws {
        enum Source: Codable, Equatable {
            case typed
            case ingredient(id: String, grams: Double)
            case recipe(String, servings: Int)
        }
        let values: [Source] = [.typed, .ingredient(id: "oats", grams: 40), .recipe("soup", servings: 2)]
        #expect(try decoder.decode([Source].self, from: encoder.encode(values)) == values)
    }

    /// Classes encode their superclass through `superEncoder()`, under the key "super".
    class Base: Codable {
        var id: Int
        init(id: Int) { self.id = id }
    }

    final class Derived: Base, @unchecked Sendable {
        var name: String
        init(id: Int, name: String) {
            self.name = name
            super.init(id: id)
        }
        enum CodingKeys: String, CodingKey { case name }
        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            try super.init(from: container.superDecoder())
        }
        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try super.encode(to: container.superEncoder())
        }
    }

    @Test func superEncoderWritesTheParentUnderSuper() throws {
        let bytes = try encoder.encode(Derived(id: 7, name: "n"))
        // {"name": "n", "super": {"id": 7}}
        #expect(bytes == [0x82, 0xa4] + Array("name".utf8) + [0xa1, 0x6e, 0xa5] + Array("super".utf8) + [0x81, 0xa2, 0x69, 0x64, 0x07])
        let decoded = try decoder.decode(Derived.self, from: bytes)
        #expect(decoded.id == 7 && decoded.name == "n")
    }

    /// Hand-written coding that interleaves nested containers, a keyed superEncoder and an
    /// unkeyed superEncoder — everything must land where it was written.
    struct Interleaved: Codable, Equatable {
        var a: Int
        var b: [String]
        var c: [String: Int]
        var d: Int

        enum Keys: String, CodingKey { case a, b, c, d, extra }

        init(a: Int, b: [String], c: [String: Int], d: Int) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            var list = container.nestedUnkeyedContainer(forKey: .b)
            var map = container.nestedContainer(keyedBy: Keys.self, forKey: .c)
            try container.encode(a, forKey: .a)
            try list.encode(b[0])
            try map.encode(c["a"]!, forKey: .a)
            var extra = container.superEncoder(forKey: .extra).unkeyedContainer()
            try container.encode(d, forKey: .d)
            for item in b.dropFirst() { try list.encode(item) }
            try extra.encode(99)
            var inner = list.superEncoder().singleValueContainer()
            try inner.encode("tail")
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            a = try container.decode(Int.self, forKey: .a)
            d = try container.decode(Int.self, forKey: .d)
            var list = try container.nestedUnkeyedContainer(forKey: .b)
            var items: [String] = []
            while !list.isAtEnd { items.append(try list.decode(String.self)) }
            #expect(items.last == "tail")
            b = Array(items.dropLast())
            let map = try container.nestedContainer(keyedBy: Keys.self, forKey: .c)
            c = ["a": try map.decode(Int.self, forKey: .a)]
            var extra = try container.superDecoder(forKey: .extra).unkeyedContainer()
            #expect(try extra.decode(Int.self) == 99)
        }
    }

    @Test func interleavedContainersKeepTheirContents() throws {
        let value = Interleaved(a: 1, b: ["x", "y", "z"], c: ["a": 5], d: 4)
        #expect(try decoder.decode(Interleaved.self, from: encoder.encode(value)) == value)
    }

    @Test func integerOutOfRangeNamesTheField() throws {
        struct Wide: Codable { var servings: Int }
        struct Narrow: Codable { var servings: UInt8 }
        let bytes = try encoder.encode(Wide(servings: 300))
        let error = #expect(throws: DecodingError.self) { try decoder.decode(Narrow.self, from: bytes) }
        guard case .dataCorrupted(let context) = error else {
            Issue.record("expected dataCorrupted")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["servings"])
        #expect(context.underlyingError as? MessagePackError == .numberOutOfRange(offset: 10, type: "UInt8"))

        let negative = try encoder.encode(Wide(servings: -1))
        #expect(throws: DecodingError.self) { try decoder.decode(Narrow.self, from: negative) }
    }

    @Test func wrongTypesAndMissingKeysAreReportedWithTheirPath() throws {
        struct Expected: Codable { var steps: [Step] }
        struct Actual: Codable { var steps: [[String: String]] }
        let bytes = try encoder.encode(Actual(steps: [["description": "x", "kind": "cooking"]]))
        let error = #expect(throws: DecodingError.self) { try decoder.decode(Expected.self, from: bytes) }
        guard case .keyNotFound(let key, let context) = error else {
            Issue.record("expected keyNotFound, got \(String(describing: error))")
            return
        }
        #expect(key.stringValue == "ingredients")
        #expect(context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue } == ["steps", "0"])

        let mismatch = #expect(throws: DecodingError.self) { try decoder.decode(Int.self, from: encoder.encode("five")) }
        guard case .typeMismatch = mismatch else {
            Issue.record("expected typeMismatch")
            return
        }
    }
}
