public import Foundation
import SousInterchange
public import SousSchema

/// Reads a USDA SR28 directory (the ASCII release: FOOD_DES.txt, NUT_DATA.txt and, when present,
/// WEIGHT.txt, `^`-separated with `~`-quoted text) into catalog ingredients with ids
/// "usda-<NDB_No>".
///
/// SR28 has no prices or allergen declarations: its foods are weighed in grams with no price,
/// and their category, diet facts and allergens are derived from the USDA food group
/// (`factsDerived`; the rules are in Services/Catalog/README.md). WEIGHT.txt's household measures
/// become the food's portions, and give it a density (from the first cup, spoon or fluid-ounce
/// measure) and a piece weight (from the first medium, large, small, whole or each).
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
        let portions = try portions(directory.appendingPathComponent("WEIGHT.txt"))
        progress(described.count, described.count)
        return described.map { food in
            let facts = approximateFacts(group: food.group, name: food.name)
            let measures = portions[food.ndb] ?? []
            return Ingredient(
                id: "usda-\(food.ndb)", name: String(food.name.prefix(300)), usdaNdb: food.ndb, unit: .g,
                gramsPerPiece: gramsPerPiece(measures), gramsPerMl: gramsPerMl(measures), price: nil, category: facts.category,
                nutrition: nutrition[food.ndb] ?? .zero, contains: facts.contains, allergens: facts.allergens, portions: measures,
                factsDerived: true
            )
        }
    }

    /// WEIGHT.txt's household measures by food, in SR28's order, without those that are only a
    /// weight ("1 oz", "1 lb"): grams say that already. An absent file gives none.
    static func portions(_ url: URL) throws -> [String: [Portion]] {
        guard FileManager.default.fileExists(atPath: url.path) else { return [:] }
        var portions: [String: [Portion]] = [:]
        for (line, fields) in try records(url).enumerated() {
            guard fields.count >= 5, let amount = Double(fields[2]), let grams = Double(fields[4]) else {
                throw ParseError(file: "WEIGHT.txt", line: line + 1, message: "expected NDB_No^Seq^Amount^Msre_Desc^Gm_Wgt…")
            }
            let name = fields[3].trimmingCharacters(in: .whitespaces)
            guard amount > 0, grams > 0, !name.isEmpty else { continue }
            if let unit = leadingUnit(name), unit == .oz || unit == .lb || unit == .g || unit == .kg { continue }
            portions[fields[0], default: []].append(Portion(amount: amount, name: String(name.prefix(120)), grams: grams))
        }
        return portions
    }

    /// The unit a measure's description starts with: "cup, chopped" is a cup, "fl oz" a fluid
    /// ounce, "tbsp" a tablespoon.
    static func leadingUnit(_ name: String) -> ParsedUnit? {
        let words = name.lowercased().split(whereSeparator: { !$0.isLetter })
        guard let first = words.first else { return nil }
        if words.count > 1, let two = ParsedUnit(spelling: "\(first) \(words[1])") { return two }
        return ParsedUnit(spelling: String(first))
    }

    /// Grams per ml from the first measure by volume.
    static func gramsPerMl(_ portions: [Portion]) -> Double? {
        for portion in portions {
            guard let conversion = leadingUnit(portion.name)?.measure, conversion.unit.millilitres != nil else { continue }
            let millilitres = portion.amount * conversion.factor * (conversion.unit.millilitres ?? 1)
            return portion.grams / millilitres
        }
        return nil
    }

    /// Words that name one whole piece of a food in SR28's measures, the usual size first.
    static let pieceWords = ["medium", "large", "small", "whole", "each", "fruit", "item"]

    /// Grams per piece from the first measure naming a whole piece, the usual size first: "medium
    /// (7\" long)", or the food's own name and a size ("croissant, medium"), never a slice or a cup.
    static func gramsPerPiece(_ portions: [Portion]) -> Double? {
        let described = portions.map { portion in (portion, portion.name.lowercased().split(whereSeparator: { !$0.isLetter }).map(String.init)) }
        for word in pieceWords {
            let whole = described.first { _, words in
                words.first == word || (words.count > 1 && words[1] == word && ParsedUnit(spelling: words[0]) == nil)
            }
            if let (portion, _) = whole { return portion.grams / portion.amount }
        }
        return nil
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
