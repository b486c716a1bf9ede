import SousRuntime
import SousSchema
import SousUnits
import SousWire

/// A search's ingredients on hand (``RecipeSearch/onHand``): how much of each the household has,
/// in grams, and how much each weighs in a recipe's score. Pure, so the ranking is tested on its
/// own.
struct OnHandRanking: Equatable {
    struct Held: Equatable {
        var name: String
        var grams: Double
        /// 1 / (1 + days from the soonest best-before given to this ingredient's soonest).
        var weight: Double
    }

    /// By ingredient id.
    var held: [String: Held]

    static let maxEntries = 500
    /// Days an ingredient without a best-before counts as going off after the soonest one.
    static let undatedDays = 30

    init(_ entries: [OnHand], ingredients: IngredientBook) throws(ServiceError) {
        guard entries.count <= Self.maxEntries else {
            throw .badRequest("at most \(Self.maxEntries) ingredients on hand per search, got \(entries.count)", field: "onHand")
        }
        var grams: [String: Double] = [:]
        var soonest: [String: LocalDate?] = [:]
        for (index, entry) in entries.enumerated() {
            guard let id = ingredients.id(named: entry.ingredient), let ingredient = ingredients.byID[id] else {
                throw .notFound("no ingredient with the id, name or synonym \"\(entry.ingredient)\"", field: "onHand.\(index).ingredient")
            }
            guard entry.quantity.isFinite, entry.quantity > 0, entry.quantity <= 100_000 else {
                throw .badRequest("a quantity on hand is above 0 and at most 100000, got \(entry.quantity)", field: "onHand.\(index).quantity")
            }
            guard let amount = IngredientMeasures(ingredient).grams(of: entry.quantity, entry.unit) else {
                throw .badRequest("\(ingredient.name) cannot be measured in \(entry.unit.rawValue)", field: "onHand.\(index).unit")
            }
            grams[id, default: 0] += amount
            let previous = soonest[id] ?? nil
            soonest[id] = [previous, entry.bestBefore].compactMap { $0 }.min()
        }
        let first = soonest.values.compactMap { $0 }.min()
        held = grams.reduce(into: [:]) { held, entry in
            let days = first.flatMap { first in (soonest[entry.key] ?? nil).map { first.days(to: $0) } } ?? Self.undatedDays
            held[entry.key] = Held(name: ingredients.byID[entry.key]?.name ?? entry.key, grams: entry.value, weight: 1 / Double(1 + days))
        }
    }

    var ids: [String] { held.keys.sorted() }

    /// What a recipe whose lines of on-hand ingredients are `lines` uses of each, most first.
    /// A line in a unit the ingredient can no longer be converted from counts for nothing.
    func uses(_ lines: [(ingredient: String, quantity: Double, unit: MeasureUnit)], ingredients: [String: Ingredient]) -> [OnHandUse] {
        var grams: [String: Double] = [:]
        for line in lines {
            guard held[line.ingredient] != nil else { continue }
            let used = ingredients[line.ingredient].flatMap { IngredientMeasures($0).grams(of: line.quantity, line.unit) } ?? 0
            grams[line.ingredient, default: 0] += used.isFinite ? max(used, 0) : 0
        }
        return grams.compactMap { id, used in
            held[id].map { OnHandUse(ingredient: id, name: $0.name, share: min(1, used / $0.grams)) }
        }
        .sorted { $0.share != $1.share ? $0.share > $1.share : $0.ingredient < $1.ingredient }
    }

    /// A recipe's score: each use's share times its ingredient's weight.
    func score(_ uses: [OnHandUse]) -> Double {
        uses.reduce(0) { $0 + $1.share * (held[$1.ingredient]?.weight ?? 0) }
    }
}
