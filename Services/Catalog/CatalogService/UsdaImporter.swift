public import Foundation
public import SousSchema

/// Reads a USDA SR28 directory (the ASCII release: FOOD_DES.txt and NUT_DATA.txt, `^`-separated
/// with `~`-quoted text) into catalog ingredients with ids "usda-<NDB_No>".
///
/// SR28 has no prices, units or allergen declarations: imported ingredients are weighed in grams
/// with price 0, and their category, diet facts and allergens are approximated from the USDA
/// food group (documented in Services/Catalog/README.md). Curate before relying on them.
public enum UsdaImporter {
    public struct ParseError: Error, CustomStringConvertible {
        public let file: String
        public let line: Int
        public let message: String
        public var description: String { "\(file):\(line): \(message)" }
    }

    /// Stores the SR28 nutrient `number` (208 kcal, 205 carbohydrates, 203 protein, 204 fat,
    /// 291 fibre, 269 sugar, 307 sodium in mg as salt in g) in `nutrition`.
    static func record(_ number: String, _ value: Double, in nutrition: inout Nutrition) {
        switch number {
        case "208": nutrition.kcal = value
        case "205": nutrition.carbohydrates = value
        case "203": nutrition.protein = value
        case "204": nutrition.fat = value
        case "291": nutrition.fibre = value
        case "269": nutrition.sugar = value
        case "307": nutrition.salt = (value * 2.5).rounded() / 1000
        default: break
        }
    }

    /// Parses the directory; `progress` is called with (foods done, total) as NUT_DATA is read.
    public static func parse(directory: URL, progress: (Int, Int) -> Void = { _, _ in }) throws -> [Ingredient] {
        let foods = try records(directory.appendingPathComponent("FOOD_DES.txt"))
        var nutrition: [String: Nutrition] = [:]
        var described: [(ndb: String, name: String, group: String)] = []
        for (line, fields) in foods.enumerated() {
            guard fields.count >= 3, fields[0].count == 5, Int(fields[0]) != nil else {
                throw ParseError(file: "FOOD_DES.txt", line: line + 1, message: "expected NDB_No^FdGrp_Cd^Long_Desc…")
            }
            described.append((fields[0], fields[2], fields[1]))
            nutrition[fields[0]] = .zero
        }
        let rows = try records(directory.appendingPathComponent("NUT_DATA.txt"))
        var seen: Set<String> = []
        for (line, fields) in rows.enumerated() {
            guard fields.count >= 3, let value = Double(fields[2]) else {
                throw ParseError(file: "NUT_DATA.txt", line: line + 1, message: "expected NDB_No^Nutr_No^Nutr_Val…")
            }
            let ndb = fields[0]
            guard nutrition[ndb] != nil else { continue }
            record(fields[1], value, in: &nutrition[ndb]!)
            if seen.insert(ndb).inserted, seen.count % 500 == 0 { progress(seen.count, described.count) }
        }
        progress(described.count, described.count)
        return described.map { food in
            let facts = approximateFacts(group: food.group, name: food.name)
            return Ingredient(
                id: "usda-\(food.ndb)", name: String(food.name.prefix(300)), usdaNdb: food.ndb, unit: .g, gramsPerPiece: nil, gramsPerMl: nil,
                price: Price(amount: 0, per: .kg), category: facts.category, nutrition: nutrition[food.ndb] ?? .zero,
                contains: facts.contains, allergens: facts.allergens
            )
        }
    }

    /// Splits an SR28 file into fields, stripping the `~` text quotes.
    static func records(_ url: URL) throws -> [[String]] {
        let data = try Data(contentsOf: url)
        // SR28 is Latin-1.
        let text = String(data: data, encoding: .utf8) ?? String(decoding: data.map { $0 }, as: Unicode.ASCII.self)
        return text.split(whereSeparator: \.isNewline).map { line in
            line.split(separator: "^", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "~\r")) }
        }
    }

    /// Category, diet facts and allergens from the SR28 food group code.
    static func approximateFacts(group: String, name: String) -> (category: ShoppingCategory, contains: [DietFact], allergens: [Allergen]) {
        let lower = name.lowercased()
        switch group {
        case "0100":
            return lower.contains("egg") ? (.dairy, [.egg], [.eggs]) : (.dairy, [.dairy], [.milk])
        case "0200": return (.baking, [], [])
        case "0400": return (.sauces, lower.contains("butter") ? [.dairy] : [], lower.contains("butter") ? [.milk] : [])
        case "0500": return (.meat, [.meat], [])
        case "0600": return (.sauces, [], [])
        case "0700": return (.meat, lower.contains("pork") ? [.meat, .pork] : [.meat], [])
        case "0800":
            return (
                .breakfast, lower.contains("wheat") || lower.contains("oat") ? [.gluten] : [],
                lower.contains("wheat") || lower.contains("oat") ? [.gluten] : []
            )
        case "0900", "1100": return (.produce, [], [])
        case "1000": return (.meat, [.meat, .pork], [])
        case "1200":
            return (.snacks, [], lower.contains("sesame") ? [.sesame] : lower.contains("peanut") ? [.peanuts] : [.nuts])
        case "1300", "1700": return (.meat, [.meat], [])
        case "1400": return (.snacks, lower.contains("alcoholic") || lower.contains("wine") || lower.contains("beer") ? [.alcohol] : [], [])
        case "1500":
            let shellfish = ["shrimp", "crab", "lobster", "crayfish"].contains { lower.contains($0) }
            let mollusc = ["mussel", "oyster", "clam", "squid", "octopus", "scallop", "snail"].contains { lower.contains($0) }
            return (.meat, [.fish], shellfish ? [.crustaceans] : mollusc ? [.molluscs] : [.fish])
        case "1600": return (.canned, [], lower.contains("soy") ? [.soybeans] : lower.contains("peanut") ? [.peanuts] : [])
        case "1800": return (.breads, [.gluten], [.gluten])
        case "1900": return (.snacks, [], [])
        case "2000":
            let gluten = ["wheat", "barley", "rye", "spelt", "semolina", "couscous", "pasta", "noodles", "bulgur"].contains { lower.contains($0) }
            return (.breads, gluten ? [.gluten] : [], gluten ? [.gluten] : [])
        default: return (.other, [], [])
        }
    }
}
