import Foundation
import SousSchema

/// Ranks recipes for `recipes.suggest`. Pure, so the ranking and its reasons are tested
/// without services.
///
/// A serving is measured against the target (what is left of the day's goals, never below
/// zero, shared by the meals still to eat): each of kcal, carbohydrates, protein and fat is off
/// by |serving − target| relative to the target (or a tenth of the goal when less is left),
/// capped at 1; kcal counts twice. Fit is 100 × (1 − the weighted mean). Recipes within the same
/// 5 points of fit are ordered by cost per serving, then by how many of their ingredients are on
/// the grocery list, so a small difference in fit does not outweigh the price.
struct RecipeSuggester {
    var goals: Goals
    var remaining: Macros
    var meals: Int
    /// Unchecked grocery lines by ingredient id → name; nil when the list could not be read.
    var groceryList: [String: String]?
    /// How the candidates were filtered, said in each suggestion's reasons; nil when unfiltered.
    var filterDescription: String?

    /// What one serving should bring.
    var target: Macros {
        let share = Double(max(meals, 1))
        return Macros(
            kcal: max(remaining.kcal, 0) / share, carbohydrates: max(remaining.carbohydrates, 0) / share,
            protein: max(remaining.protein, 0) / share, fat: max(remaining.fat, 0) / share)
    }

    /// How close `serving` comes to the target, 0–100.
    func fit(_ serving: Macros) -> Double {
        let target = target
        func miss(_ value: Double, _ target: Double, _ goal: Double) -> Double {
            let scale = max(target, goal / 10, 1)
            let share = abs(value - target) / scale
            // Nutrition too large to compare (an infinite sum) is as far off as can be.
            return share.isFinite ? min(share, 1) : 1
        }
        let weighted =
            2 * miss(serving.kcal, target.kcal, goals.kcal) + miss(serving.carbohydrates, target.carbohydrates, goals.carbohydrates)
            + miss(serving.protein, target.protein, goals.protein) + miss(serving.fat, target.fat, goals.fat)
        return ((1 - weighted / 5) * 1000).rounded() / 10
    }

    func rank(_ candidates: [(summary: RecipeSummary, detail: RecipeDetail)], limit: Int) -> [RecipeSuggestion] {
        let scored = candidates.map { candidate -> (suggestion: RecipeSuggestion, bucket: Int) in
            let perServing = candidate.detail.nutritionPerServing.macros
            let fit = fit(perServing)
            let onList = onGroceryList(candidate.detail)
            let suggestion = RecipeSuggestion(
                recipe: candidate.summary, perServing: perServing, fit: fit, onGroceryList: onList,
                reasons: reasons(candidate.detail, perServing: perServing, onList: onList))
            return (suggestion, Int((fit / 5).rounded(.down)))
        }
        return scored.sorted { a, b in
            if a.bucket != b.bucket { return a.bucket > b.bucket }
            let (x, y) = (a.suggestion, b.suggestion)
            if x.recipe.costPerServing != y.recipe.costPerServing { return x.recipe.costPerServing < y.recipe.costPerServing }
            if x.onGroceryList.count != y.onGroceryList.count { return x.onGroceryList.count > y.onGroceryList.count }
            if x.fit != y.fit { return x.fit > y.fit }
            return (x.recipe.name, x.recipe.id) < (y.recipe.name, y.recipe.id)
        }
        .prefix(limit).map(\.suggestion)
    }

    /// Names of the recipe's ingredients with an unchecked line on the list, in recipe order.
    func onGroceryList(_ recipe: RecipeDetail) -> [String] {
        guard let groceryList else { return [] }
        var names: [String] = []
        var seen: Set<String> = []
        for line in recipe.ingredients where seen.insert(line.ingredient).inserted {
            if let name = groceryList[line.ingredient] { names.append(name) }
        }
        return names
    }

    func reasons(_ recipe: RecipeDetail, perServing: Macros, onList: [String]) -> [String] {
        let target = target
        var reasons: [String] = []
        let macros =
            "protein \(Self.number(perServing.protein)) of \(Self.number(target.protein)) g, "
            + "carbohydrates \(Self.number(perServing.carbohydrates)) of \(Self.number(target.carbohydrates)) g, "
            + "fat \(Self.number(perServing.fat)) of \(Self.number(target.fat)) g"
        if target.kcal <= 0 {
            reasons.append("the day's kcal goal is already reached, so lighter comes first: a serving is \(Self.number(perServing.kcal)) kcal")
        } else {
            let left = meals > 1 ? "left for each of the \(meals) meals still to eat" : "left today"
            reasons.append("a serving is \(Self.number(perServing.kcal)) of the \(Self.number(target.kcal)) kcal \(left); \(macros)")
        }
        reasons.append(String(format: "€%.2f a serving", recipe.costPerServing))
        if !onList.isEmpty {
            let distinct = Set(recipe.ingredients.map(\.ingredient)).count
            reasons.append("\(onList.count) of its \(distinct) ingredients are already on your grocery list: \(onList.joined(separator: ", "))")
        }
        if let filterDescription { reasons.append(filterDescription) }
        return reasons
    }

    static func number(_ value: Double) -> String { String(format: "%.0f", value) }

    /// How a filter reads in a reason, e.g. "passes your saved profile: vegetarian; no peanuts;
    /// up to patience 3".
    static func describe(_ filter: (profile: RecipeFilterProfile, switches: FilterSwitches), saved: Bool) -> String? {
        let (profile, switches) = filter
        var parts: [String] = []
        if switches.diets ?? true, !profile.diets.isEmpty { parts.append(profile.diets.map(\.rawValue).joined(separator: ", ")) }
        if switches.allergens ?? true, !profile.allergens.isEmpty {
            parts.append("no " + profile.allergens.map(\.rawValue).joined(separator: ", "))
        }
        if switches.dislikes ?? true, !profile.dislikes.isEmpty { parts.append("none of your \(profile.dislikes.count) dislikes") }
        if switches.equipment ?? true { parts.append("only your equipment") }
        if switches.patience ?? true { parts.append("effort up to \(profile.patience) of 5") }
        guard !parts.isEmpty else { return nil }
        return "passes \(saved ? "your saved profile" : "the given profile"): \(parts.joined(separator: "; "))"
    }
}
