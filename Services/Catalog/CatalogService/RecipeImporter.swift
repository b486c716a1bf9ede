import Foundation
import SousInterchange
import SousSchema
import SousWire

/// Turns schema.org recipes into the caller's own: each ingredient line parsed
/// (``IngredientLine``), matched to a catalog ingredient by name or synonym (or by the user's
/// mapping), and measured in a unit the catalog keeps. A line that cannot be is listed with
/// the reason, never dropped; then nothing is imported.
struct RecipeImporter {
    let book: IngredientBook
    /// The line as written → what the user said it means (an ingredient line, or a name).
    let mappings: [String: String]

    /// A recipe ready to validate, with the text of each of its lines (for reporting a line the
    /// catalog then refuses, e.g. a unit its ingredient cannot be measured in).
    struct Draft {
        var source: SchemaRecipe
        var draft: RecipeDraft
        var lineTexts: [String]
    }

    func drafts(_ recipes: [SchemaRecipe]) -> (drafts: [Draft], unmatched: [UnmatchedIngredientLine]) {
        var unmatched: [UnmatchedIngredientLine] = []
        let drafts = recipes.map { recipe in draft(recipe, unmatched: &unmatched) }
        return (drafts, unmatched)
    }

    private func draft(_ recipe: SchemaRecipe, unmatched: inout [UnmatchedIngredientLine]) -> Draft {
        var lines: [RecipeIngredient] = []
        var texts: [String] = []
        for text in recipe.ingredients {
            switch ingredient(text) {
            case .failure(let reason):
                unmatched.append(UnmatchedIngredientLine(recipe: recipe.name, line: text, reason: reason.text))
            case .success(let line):
                // The catalog keeps one line per ingredient: the same one twice (salt for the
                // water and for the sauce) is added up when both are in the same unit.
                if let index = lines.firstIndex(where: { $0.ingredient == line.ingredient }) {
                    guard lines[index].unit == line.unit else {
                        unmatched.append(
                            UnmatchedIngredientLine(
                                recipe: recipe.name, line: text,
                                reason:
                                    "\(line.ingredient) is already in this recipe in \(lines[index].unit.rawValue); give this line in the same unit"))
                        continue
                    }
                    lines[index].quantity += line.quantity
                } else {
                    lines.append(line)
                    texts.append(text)
                }
            }
        }
        let prep = recipe.prepMinutes ?? 0
        let cook = recipe.cookMinutes ?? recipe.totalMinutes.map { max($0 - prep, 0) } ?? 0
        let words = (recipe.categories + recipe.keywords).map { $0.lowercased().trimmingCharacters(in: .whitespaces) }
        let draft = RecipeDraft(
            name: recipe.name,
            summary: recipe.description.flatMap { $0.isEmpty ? nil : $0 } ?? recipe.name,
            servings: recipe.servings.map { min(max($0, 1), 50) } ?? 2,
            prepMinutes: prep, cookMinutes: cook,
            ingredients: lines,
            steps: recipe.steps.map { step in
                RecipeStep(description: step.section.map { "\($0): \(step.text)" } ?? step.text, type: Self.stepType(step.text))
            },
            equipment: Array(Set(recipe.tools.compactMap { Appliance(rawValue: $0.lowercased()) })).sorted(),
            dishTypes: Array(Set(words.compactMap { DishType(rawValue: $0) })).sorted(),
            link: recipe.url.flatMap(Self.webAddress),
            image: recipe.imageURLs.lazy.compactMap(Self.webAddress).first { $0.count <= 500 }
        )
        return Draft(source: recipe, draft: draft, lineTexts: texts)
    }

    struct Reason: Error {
        let text: String
    }

    /// The catalog line `text` means, or why there is none.
    func ingredient(_ text: String) -> Result<RecipeIngredient, Reason> {
        let written = IngredientLine.parse(text)
        var parsed = written
        if let mapped = mappings[text] {
            parsed = IngredientLine.parse(mapped)
            // A mapping that names only the ingredient keeps the line's own amount.
            if parsed.quantity == nil {
                parsed.quantity = written.quantity
                parsed.unit = written.unit
                parsed.packageSize = written.packageSize
            }
        }
        // "2 cloves garlic": the catalog may name the piece ("Garlic clove").
        let piece = parsed.unit.flatMap { $0.measure == nil ? ["\(parsed.name) \($0.rawValue)"] : nil } ?? []
        let candidates = parsed.nameCandidates + piece + (mappings[text].map { [$0.trimmingCharacters(in: .whitespaces)] } ?? [])
        guard let id = candidates.lazy.compactMap({ book.id(named: $0) }).first else {
            return .failure(Reason(text: "no catalog ingredient is called \"\(parsed.name)\"; map the line to one"))
        }
        guard let quantity = parsed.quantity else {
            return .failure(Reason(text: "no quantity for \(id); map the line with one, e.g. \"1 tsp \(parsed.name)\""))
        }
        // "1 (400 g) can": the package's size is the amount.
        if let package = parsed.packageSize, let measure = package.unit.measure {
            return .success(RecipeIngredient(ingredient: id, quantity: quantity * package.quantity * measure.factor, unit: measure.unit))
        }
        if let unit = parsed.unit, let measure = unit.measure {
            return .success(RecipeIngredient(ingredient: id, quantity: quantity * measure.factor, unit: measure.unit))
        }
        // No unit, or one counted by the ingredient's piece weight (a can, a bunch, a clove).
        return .success(RecipeIngredient(ingredient: id, quantity: quantity, unit: .piece))
    }

    /// What the document said that no Sous field holds (until recipes have notes): schema.org
    /// names, sorted. Diets are not among them: Sous derives its own from the ingredients.
    static func droppedFields(of recipe: SchemaRecipe) -> [String] {
        var names = Set(recipe.unmapped.keys)
        if !recipe.cuisines.isEmpty { names.insert("recipeCuisine") }
        if !recipe.nutrition.isEmpty { names.insert("nutrition") }
        if recipe.authorName != nil { names.insert("author") }
        if recipe.yieldText != nil { names.insert("recipeYield") }
        if recipe.imageURLs.count > 1 { names.insert("image") }
        if recipe.keywords.contains(where: { DishType(rawValue: $0.lowercased()) == nil }) { names.insert("keywords") }
        return names.sorted()
    }

    private static let cookingWords = ["bake", "boil", "simmer", "fry", "roast", "grill", "cook", "heat", "toast", "steam", "braise", "sauté"]

    static func stepType(_ text: String) -> StepType {
        let lowered = text.lowercased()
        return cookingWords.contains { lowered.contains($0) } ? .cooking : .preparation
    }

    static func webAddress(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return trimmed.hasPrefix("https://") || trimmed.hasPrefix("http://") ? trimmed : nil
    }
}
