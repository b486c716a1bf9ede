import Foundation
import SousSchema

/// Finds the USDA food a recipe line's food names when no ingredient is called that: "fontina
/// cheese" is "Cheese, fontina", "vegetable oil" one of the "Oil, vegetable, …" foods.
///
/// SR28 names a food from the general to the particular, in comma-separated parts ("Cheese,
/// fontina", "Beans, snap, green, raw"). A food is a candidate when every word of the line's
/// food is among its words (singular or plural, British words read as SR28's American ones:
/// courgette is zucchini). Of the candidates, the one with the fewest words the line did not say
/// wins (ignoring words like "raw" and "fresh" that describe the usual form), then the shorter
/// name, then the smaller id.
///
/// The match is **sure** when the line's words are all in the name's first two parts and they
/// make at least two thirds of the name's words ("fontina cheese" is "Cheese, fontina");
/// otherwise it is **unsure** ("vegetable oil" is only half of "Vegetable oil, palm kernel"),
/// and the importer asks instead of taking it.
struct FoodMatcher: Sendable {
    struct Match: Equatable, Sendable {
        var id: String
        /// The line's words over the food's significant words: 1 when they are the same words.
        var confidence: Double
        var sure: Bool
    }

    private struct Food: Sendable {
        var id: String
        var nameLength: Int
        var words: Set<String>
        /// The words of the name's first two parts.
        var leadingWords: Set<String>
        var significantWords: Int
    }

    private let foods: [Food]
    /// Word → the foods (indexes into `foods`) whose name has it.
    private let index: [String: [Int]]

    /// Confidence at or above which a match in the leading parts is taken: two words of three.
    static let sureConfidence = 0.66

    /// `folded` holds each ingredient's folded name by id (``IngredientBook``).
    init(_ ingredients: some Sequence<Ingredient>, folded: [String: IngredientBook.FoldedNames]) {
        var foods: [Food] = []
        var index: [String: [Int]] = [:]
        for ingredient in ingredients where ingredient.factsDerived {
            let name = folded[ingredient.id]?.name ?? ""
            let parts = name.split(separator: ",")
            let words = Set(parts.flatMap { Self.words(of: String($0)) })
            let leading = Set(parts.prefix(2).flatMap { Self.words(of: String($0)) })
            // What a name says in brackets only explains it ("Lettuce, iceberg (includes
            // crisphead types)"): found by, but not counted against the line.
            let explained = Set(Self.words(of: Self.withoutBrackets(name)))
            let food = Food(
                id: ingredient.id, nameLength: ingredient.name.count, words: words, leadingWords: leading,
                significantWords: explained.subtracting(Self.usualForm).count)
            for word in words { index[word, default: []].append(foods.count) }
            foods.append(food)
        }
        self.foods = foods
        self.index = index
    }

    /// The best food for `text` (a food as the line reader gives it), or nil when no food has all
    /// of its words.
    func match(_ text: String) -> Match? {
        let query = Set(Self.words(of: folded(text)).map { Self.americanWords[$0] ?? $0 }.flatMap { $0.split(separator: " ").map(String.init) })
            .subtracting(Self.fillerWords)
        guard !query.isEmpty else { return nil }
        // The rarest word's foods, checked for the others.
        guard let rarest = query.min(by: { (index[$0]?.count ?? 0) < (index[$1]?.count ?? 0) }), let postings = index[rarest] else { return nil }
        var best: (food: Food, extra: Int)?
        for position in postings {
            let food = foods[position]
            guard query.isSubset(of: food.words) else { continue }
            let extra = food.words.subtracting(query).subtracting(Self.usualForm).count
            if let current = best {
                let better =
                    extra != current.extra
                    ? extra < current.extra
                    : food.nameLength != current.food.nameLength ? food.nameLength < current.food.nameLength : food.id < current.food.id
                if !better { continue }
            }
            best = (food, extra)
        }
        guard let (food, _) = best else { return nil }
        let confidence = Double(query.count) / Double(max(food.significantWords, query.count))
        return Match(id: food.id, confidence: confidence, sure: confidence >= Self.sureConfidence && query.isSubset(of: food.leadingWords))
    }

    static func withoutBrackets(_ text: String) -> String {
        var depth = 0
        return String(
            text.filter { character in
                if character == "(" { depth += 1 }
                defer { if character == ")" { depth = max(depth - 1, 0) } }
                return depth == 0 && character != ")"
            })
    }

    /// The words of `text` (already folded), each singular.
    static func words(of text: String) -> [String] {
        text.split(whereSeparator: { !$0.isLetter }).map { singular(String($0)) }
    }

    /// A plural's singular by English's regular endings: "tomatoes", "cherries", "leaves", "beans".
    static func singular(_ word: String) -> String {
        guard word.count > 3 else { return word }
        if word.hasSuffix("ies") { return word.dropLast(3) + "y" }
        if word.hasSuffix("oes") || word.hasSuffix("ches") || word.hasSuffix("shes") || word.hasSuffix("sses") { return String(word.dropLast(2)) }
        if word.hasSuffix("ves") { return word.dropLast(3) + "f" }
        if word.hasSuffix("s"), !word.hasSuffix("ss"), !word.hasSuffix("us") { return String(word.dropLast()) }
        return word
    }

    /// Words SR28 adds for the usual form of a food, which a recipe does not say.
    static let usualForm: Set<String> = [
        "raw", "fresh", "whole", "plain", "regular", "commercial", "prepared", "unprepared", "ns", "as", "to", "and", "or", "with", "without",
        "salt", "added", "includes", "usda", "commodity", "dry", "mature", "seed", "solid", "liquid", "fluid", "unenriched", "enriched",
    ]

    /// Words a line's food may carry that name no food.
    static let fillerWords: Set<String> = ["a", "an", "the", "of", "some", "good", "quality", "best", "fresh", "large", "small", "medium"]

    /// British words for SR28's American ones (singular, folded).
    static let americanWords: [String: String] = [
        "aubergine": "eggplant", "courgette": "zucchini", "rocket": "arugula", "beetroot": "beet", "swede": "rutabaga",
        "mangetout": "snow pea", "prawn": "shrimp", "mince": "ground", "minced": "ground", "caster": "granulated", "icing": "powdered",
        "wholemeal": "whole wheat", "double": "heavy", "single": "light", "treacle": "molasses", "biscuit": "cookie", "gammon": "ham",
        "rapeseed": "canola", "cornflour": "cornstarch", "sultana": "raisin",
    ]
}
