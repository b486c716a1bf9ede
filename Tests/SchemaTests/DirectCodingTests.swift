import Foundation
import SousSchema
import SousWire
import Testing

@testable import MessagePack

/// `@MessagePackCodable` derives each schema type's MessagePack coding from its Codable
/// declaration. These tests pin what a client depends on: the same bytes, the same values
/// (defaults of hand-written `init(from:)` included), the same errors. The test script also runs
/// the whole suite with `SOUS_MESSAGEPACK_CHECK=1`, which compares both paths on every message.
@Suite struct DirectCodingTests {
    let direct = MessagePackEncoder()
    let codable: MessagePackEncoder = {
        var encoder = MessagePackEncoder()
        encoder.usesDirectCoding = false
        return encoder
    }()

    @Test func aRecipeIsWrittenByteForByteAsCodableWritesIt() throws {
        var recipe = Self.recipe()
        #expect(try direct.encode(recipe) == codable.encode(recipe))
        recipe.link = nil
        recipe.ingredientFacts = [Self.ingredient()]
        #expect(try direct.encode(recipe) == codable.encode(recipe))
    }

    @Test func standardTypesAreWrittenAsCodableWritesThem() throws {
        #expect(try direct.encode(Data([1, 2, 3])) == codable.encode(Data([1, 2, 3])), "bytes stay bin, not an array")
        #expect(try direct.encode([UInt8(7), 200]) == codable.encode([UInt8(7), 200]))
        #expect(try direct.encode([Int32(-70_000), 5]) == codable.encode([Int32(-70_000), 5]))
        #expect(try direct.encode([Int64.min, Int64.max]) == codable.encode([Int64.min, Int64.max]))
        #expect(try direct.encode(Set([UInt64.max])) == codable.encode(Set([UInt64.max])))
        #expect(MessagePackDecoder().decodeDirectly([Int32].self, from: try direct.encode([Int32(-70_000)])) == [-70_000])
        #expect(MessagePackDecoder().decodeDirectly(UInt8.self, from: try direct.encode(300)) == nil, "300 does not fit a byte")
    }

    @Test func theDirectPathReadsWhatItWroteWithoutFallingBack() throws {
        var recipe = Self.recipe()
        recipe.ingredientFacts = [Self.ingredient()]
        let bytes = try direct.encode(recipe)
        #expect(MessagePackDecoder().decodeDirectly(RecipeDetail.self, from: bytes) == recipe)
        let day = DiaryStatus(date: LocalDate("2026-11-24")!, mealsLogged: [.breakfast, .dinner], kcal: 1840.5, kcalGoal: 2000)
        #expect(MessagePackDecoder().decodeDirectly(DiaryStatus.self, from: try direct.encode(day)) == day)
    }

    @Test func defaultsOfAHandWrittenInitFromAreTheDirectPathsToo() throws {
        // Ingredient leaves out synonyms and bought, a step its ingredients, a line its use.
        let ingredient = try Self.bytes([
            "id": "oats", "name": "Oats", "unit": "g", "price": ["amount": 1.2, "per": "kg"], "category": "Breads & Grains",
            "nutrition": ["kcal": 389, "carbohydrates": 66, "protein": 17, "fat": 7, "fibre": 11, "sugar": 1, "salt": 0],
            "contains": [String](), "allergens": ["gluten"],
        ])
        let read = try #require(MessagePackDecoder().decodeDirectly(Ingredient.self, from: ingredient))
        #expect(read.synonyms == [] && read.bought == true && read.usdaNdb == nil && read.nutrition.kcal == 389)
        #expect(read == (try decodedThroughCodable(Ingredient.self, ingredient)))

        let step = try Self.bytes(["description": "Stir", "type": "cooking"])
        #expect(MessagePackDecoder().decodeDirectly(RecipeStep.self, from: step) == RecipeStep(description: "Stir", type: .cooking))
        let line = try Self.bytes(["ingredient": "oats", "quantity": 80, "unit": "g"])
        #expect(MessagePackDecoder().decodeDirectly(RecipeIngredient.self, from: line)?.use == .eaten)
    }

    @Test func badInputGetsTheErrorTheCodablePathGives() throws {
        var cases: [[UInt8]] = []
        cases.append(try Self.bytes(["description": "Stir", "type": "boiling"]))  // no such step type
        cases.append(try Self.bytes(["description": 7, "type": "cooking"]))  // wrong type
        cases.append(try Self.bytes(["type": "cooking"]))  // missing field
        cases.append(try Self.bytes(["description": "Stir", "type": "cooking", "minutes": 1e300]))  // does not fit Int
        let valid = try Self.bytes(["description": "Stir", "type": "cooking"])
        cases.append(valid + [0xc0])  // trailing bytes
        cases.append(Array(valid.dropLast()))  // truncated
        for bytes in cases {
            let directError = #expect(throws: DecodingError.self) { try MessagePackDecoder().decode(RecipeStep.self, from: bytes) }
            let codableError = #expect(throws: DecodingError.self) { try decodedThroughCodable(RecipeStep.self, bytes) }
            #expect(directError.map { ServiceError(decoding: $0) } == codableError.map { ServiceError(decoding: $0) })
            #expect(MessagePackDecoder().decodeDirectly(RecipeStep.self, from: bytes) == nil)
        }
    }

    @Test func unknownKeysAreSkippedAndWholeNumbersReadAsDoubles() throws {
        let bytes = try Self.bytes(["kcal": 100, "carbohydrates": 1.5, "protein": 2, "fat": 3, "fibre": 0, "sugar": 0, "salt": 0, "future": [1, 2]])
        let nutrition = try #require(MessagePackDecoder().decodeDirectly(Nutrition.self, from: bytes))
        #expect(nutrition.kcal == 100 && nutrition.carbohydrates == 1.5)
    }

    @Test func aRepeatedKeyIsLeftToTheCodablePath() throws {
        // {"description": "a", "description": "b", "type": "cooking"}
        var writer = MessagePackWriter()
        writer.writeMapHeader(count: 3)
        for (key, value) in [("description", "a"), ("description", "b"), ("type", "cooking")] {
            writer.write(key)
            writer.write(value)
        }
        #expect(MessagePackDecoder().decodeDirectly(RecipeStep.self, from: writer.bytes) == nil)
        #expect(try MessagePackDecoder().decode(RecipeStep.self, from: writer.bytes) == decodedThroughCodable(RecipeStep.self, writer.bytes))
    }

    @Test func renamedKeysFollowCodingKeys() throws {
        let value = Renamed(userName: "ada", note: nil)
        let bytes = try direct.encode(value)
        #expect(bytes == (try codable.encode(value)))
        #expect(String(decoding: bytes, as: UTF8.self).contains("user_name"))
        #expect(MessagePackDecoder().decodeDirectly(Renamed.self, from: bytes) == value)
    }

    /// Keys in declaration order are each compared with the bytes they encode to; the first
    /// key out of that order (or too long for that, or too near the end of the input) hands
    /// the rest to the lookup by table. Every way in and out of the ordered run reads the same.
    @Test func keysInOrderOutOfOrderAndAfterTheOrderedRunReadTheSame() throws {
        let value = Ordered(a: 7, bb: "two", aKeyOfMoreThanThirtyOneBytesInUTF8: true, z: false)
        #expect(MessagePackDecoder().decodeDirectly(Ordered.self, from: try direct.encode(value)) == value)
        func map(_ pairs: [(String, Any)]) -> [UInt8] {
            var writer = MessagePackWriter()
            writer.writeMapHeader(count: pairs.count)
            for (key, field) in pairs {
                writer.write(key)
                switch field {
                case let number as Int: writer.write(Int64(number))
                case let text as String: writer.write(text)
                case let flag as Bool: writer.write(flag)
                default: writer.writeNil()
                }
            }
            return writer.bytes
        }
        let long = "aKeyOfMoreThanThirtyOneBytesInUTF8"
        let reordered: [[(String, Any)]] = [
            [("a", 7), ("bb", "two"), ("z", false), (long, true)],  // the run ends at z, the table reads the rest
            [("a", 7), ("future", 1), ("bb", "two"), (long, true), ("z", false)],  // an unknown key ends it
            [("z", false), (long, true), ("bb", "two"), ("a", 7)],  // no run at all
        ]
        for pairs in reordered { #expect(MessagePackDecoder().decodeDirectly(Ordered.self, from: map(pairs)) == value) }
        // A key of the run again later, or a value of the wrong type inside the run: the Codable path decides.
        for pairs: [(String, Any)] in [[("a", 7), ("bb", "two"), ("a", 8), ("z", false)], [("a", "seven"), ("bb", "two"), ("z", false)]] {
            let bytes = map(pairs)
            #expect(MessagePackDecoder().decodeDirectly(Ordered.self, from: bytes) == nil)
            #expect((try? MessagePackDecoder().decode(Ordered.self, from: bytes)) == (try? decodedThroughCodable(Ordered.self, bytes)))
        }
        // Four bytes in all ({"z": true}): too short to compare a word, read by the table.
        #expect(map([("z", true)]).count == 4)
        #expect(MessagePackDecoder().decodeDirectly(Tiny.self, from: map([("z", true)])) == Tiny(z: true))
    }

    private func decodedThroughCodable<T: Decodable>(_ type: T.Type, _ bytes: [UInt8]) throws -> T {
        var decoder = MessagePackDecoder()
        decoder.usesDirectCoding = false
        return try decoder.decode(T.self, from: bytes)
    }

    /// A map written field by field, as a client in another language would.
    static func bytes(_ fields: [String: Any]) throws -> [UInt8] {
        var writer = MessagePackWriter()
        write(fields, into: &writer)
        return writer.bytes
    }

    private static func write(_ value: Any, into writer: inout MessagePackWriter) {
        switch value {
        case let text as String: writer.write(text)
        case let number as Int: writer.write(Int64(number))
        case let number as Double: writer.write(number)
        case let list as [Any]:
            writer.writeArrayHeader(count: list.count)
            for element in list { write(element, into: &writer) }
        case let map as [String: Any]:
            writer.writeMapHeader(count: map.count)
            for key in map.keys.sorted() {
                writer.write(key)
                write(map[key]!, into: &writer)
            }
        default: writer.writeNil()
        }
    }

    static func ingredient() -> Ingredient {
        Ingredient(
            id: "oats", name: "Oats", usdaNdb: nil, unit: .g, gramsPerPiece: nil, gramsPerMl: 0.4, price: Price(amount: 1.2, per: .kg),
            category: .breads, nutrition: Nutrition(kcal: 389, carbohydrates: 66, protein: 17, fat: 7, fibre: 11, sugar: 1, salt: 0),
            contains: [], allergens: [.gluten], synonyms: ["rolled oats"], bought: true)
    }

    static func recipe() -> RecipeDetail {
        let ingredients = (0..<3).map { index in
            RecipeIngredientDetail(
                ingredient: "ingredient-\(index)", name: "Ingredient \(index)", quantity: Double(index) * 12.5 + 1, unit: .g,
                grams: Double(index) * 12.5 + 1, cost: Double(index) * 0.37, category: ShoppingCategory.allCases[index % 10])
        }
        return RecipeDetail(
            id: "soup", name: "Soup", summary: "Warm", servings: 4, prepMinutes: 10, cookMinutes: 25, energyLevel: 3, equipment: [.stove],
            dishTypes: [.soup], link: "https://sous.example/soup", image: nil,
            steps: [RecipeStep(description: "Simmer", minutes: 20, type: .cooking, ingredients: ["ingredient-0"])], ingredients: ingredients,
            people: 4, diets: [.vegan], allergens: [], contains: [], cost: 4.83, costPerServing: 1.2075,
            nutritionPerServing: Nutrition(kcal: 312.4, carbohydrates: 48.1, protein: 17.9, fat: 5.2, fibre: 9.8, sugar: 7.1, salt: 1.3),
            origin: .builtIn, owner: nil, basedOn: nil, shared: false, isFavorite: true, version: -3)
    }
}

/// A type with renamed keys, as a client of another language might want them.
@MessagePackCodable
struct Renamed: Codable, Equatable {
    var userName: String
    var note: String?

    enum CodingKeys: String, CodingKey {
        case userName = "user_name"
        case note
    }
}

/// Two short keys, one longer than a fixstr's 31 bytes (never in the ordered run), one last.
@MessagePackCodable
struct Ordered: Codable, Equatable {
    var a: Int
    var bb: String
    var aKeyOfMoreThanThirtyOneBytesInUTF8: Bool?
    var z: Bool
}

@MessagePackCodable
struct Tiny: Codable, Equatable {
    var z: Bool
}
