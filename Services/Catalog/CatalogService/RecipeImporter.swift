import Foundation
import SousInterchange
import SousSchema
import SousUnits
import SousWire

/// Turns schema.org recipes into the caller's own: each ingredient line parsed
/// (``IngredientLine``), matched to a catalog ingredient by name or synonym, by the user's
/// mapping (given now or remembered), or by a USDA food with the same words (``FoodMatcher``),
/// and measured in a unit the catalog keeps. A line that cannot be is listed with the reason,
/// never dropped; then nothing is imported. A line matched other than by name is listed too.
struct RecipeImporter {
    let book: IngredientBook
    let foods: FoodMatcher
    /// The line as written → what the user said it means (an ingredient line, or a name).
    let mappings: [String: String]
    /// What the user or their household said before, by ``RememberedLines/key(_:)``.
    let remembered: [String: String]
    /// Images fetched from the web, by the address the recipe names them with.
    let photos: [String: Data]

    init(book: IngredientBook, mappings: [String: String], remembered: [String: String] = [:], photos: [String: Data] = [:]) {
        self.book = book
        self.foods = book.foods
        self.mappings = mappings
        self.remembered = remembered
        self.photos = photos
    }

    /// A line's ingredient and how it was found when not by name.
    struct Found {
        var line: RecipeIngredient
        var how: (kind: LineMatchKind, confidence: Double)?
    }

    /// A recipe ready to validate, with the text of each of its lines (for reporting a line the
    /// catalog then refuses, e.g. a unit its ingredient cannot be measured in).
    struct Draft {
        var source: SchemaRecipe
        var draft: RecipeDraft
        var lineTexts: [String]
    }

    func drafts(_ recipes: [SchemaRecipe]) -> (drafts: [Draft], unmatched: [UnmatchedIngredientLine], matched: [MatchedIngredientLine]) {
        var unmatched: [UnmatchedIngredientLine] = []
        var matched: [MatchedIngredientLine] = []
        let drafts = recipes.map { recipe in draft(recipe, unmatched: &unmatched, matched: &matched) }
        return (drafts, unmatched, matched)
    }

    private func draft(_ recipe: SchemaRecipe, unmatched: inout [UnmatchedIngredientLine], matched: inout [MatchedIngredientLine]) -> Draft {
        var lines: [RecipeIngredient] = []
        var texts: [String] = []
        for text in recipe.ingredients {
            switch ingredient(text) {
            case .failure(let reason):
                unmatched.append(
                    UnmatchedIngredientLine(
                        recipe: recipe.name, line: text, reason: reason.text, suggestion: reason.suggestion, confidence: reason.confidence))
            case .success(let found):
                let line = found.line
                if let how = found.how {
                    matched.append(
                        MatchedIngredientLine(
                            recipe: recipe.name, line: text, ingredient: line.ingredient, name: book.byID[line.ingredient]?.name ?? line.ingredient,
                            how: how.kind, confidence: how.confidence))
                }
                // The catalog keeps one line per ingredient: the same one twice (butter for the
                // pan and for the sauce) is added up in the first line's unit, through the
                // ingredient's density or piece weight when the units differ.
                if let index = lines.firstIndex(where: { $0.ingredient == line.ingredient }) {
                    guard let added = quantity(of: line, in: lines[index].unit) else {
                        unmatched.append(
                            UnmatchedIngredientLine(
                                recipe: recipe.name, line: text,
                                reason:
                                    "\(line.ingredient) is already in this recipe in \(lines[index].unit.rawValue), and \(line.unit.rawValue) "
                                    + "cannot be turned into that without a density or piece weight; give this line in \(lines[index].unit.rawValue)")
                        )
                        continue
                    }
                    lines[index].quantity += added
                } else {
                    lines.append(line)
                    texts.append(text)
                }
            }
        }
        let prep = recipe.prepMinutes ?? 0
        let cook = recipe.cookMinutes ?? recipe.totalMinutes.map { max($0 - prep, 0) } ?? 0
        func dishTypes(_ words: [String]) -> [DishType] {
            Array(Set(words.compactMap { DishType(rawValue: $0.lowercased().trimmingCharacters(in: .whitespaces)) })).sorted()
        }
        // Dish types come from the categories; keywords only stand in when no category names one
        // (a Sous export writes its tags as keywords).
        let categoryTypes = dishTypes(recipe.categories)
        let photo = recipe.imageURLs.lazy.compactMap { photos[$0] ?? SchemaRecipe.imageData(fromDataURL: $0) }.first
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
            dishTypes: categoryTypes.isEmpty ? dishTypes(recipe.keywords) : categoryTypes,
            link: recipe.url.flatMap(Self.webAddress),
            // The first image reference that is not the photo itself (a web address, or a name
            // in the exporter's own image store, as Sous and Mealie write them).
            image: recipe.imageURLs.first { !$0.hasPrefix("data:") && $0.count <= 500 },
            notes: Self.notes(of: recipe),
            variations: recipe.comments.filter { $0.name == SchemaRecipe.variationName }.prefix(RecipeLimits.maxVariations).map {
                String($0.text.prefix(RecipeLimits.maxVariationCharacters))
            },
            tags: Self.tags(of: recipe),
            photo: photo
        )
        return Draft(source: recipe, draft: draft, lineTexts: texts)
    }

    /// Units without a measure that count the ingredient's pieces.
    static let countedAsPieces: Set<ParsedUnit> = [.can, .bunch, .clove, .slice, .stick, .piece]

    struct Reason: Error {
        let text: String
        var suggestion: String? = nil
        var confidence: Double? = nil
    }

    /// The catalog line `text` means, or why there is none.
    /// `line`'s quantity in `unit`, meeting through grams when the units differ.
    private func quantity(of line: RecipeIngredient, in unit: MeasureUnit) -> Double? {
        if line.unit == unit { return line.quantity }
        guard let ingredient = book.byID[line.ingredient] else { return nil }
        let measures = IngredientMeasures(ingredient)
        guard let grams = measures.grams(of: line.quantity, line.unit), let gramsPerUnit = measures.grams(of: 1, unit), gramsPerUnit > 0 else {
            return nil
        }
        return grams / gramsPerUnit
    }

    func ingredient(_ text: String) -> Result<Found, Reason> {
        let written = IngredientLine.parse(text)
        var parsed = written
        let mapping = mappings[text].map { ($0, LineMatchKind.mapping) } ?? remembered[RememberedLines.key(text)].map { ($0, .remembered) }
        if let (mapped, _) = mapping {
            parsed = IngredientLine.parse(mapped)
            // A mapping that names only the ingredient keeps the line's own amount.
            if parsed.quantity == nil {
                parsed.quantity = written.quantity
                parsed.unit = written.unit
                parsed.packageSize = written.packageSize
                parsed.weight = written.weight
            }
        }
        // "2 cloves garlic": the catalog may name the piece ("Garlic clove").
        let piece = parsed.unit.flatMap { $0.measure == nil ? ["\(parsed.name) \($0.rawValue)", "\(parsed.food) \($0.rawValue)"] : nil } ?? []
        // The food without preparation and package words comes last: a name as written wins.
        let candidates = parsed.nameCandidates + piece + (mapping.map { [$0.0.trimmingCharacters(in: .whitespaces)] } ?? []) + [parsed.food]
        var how = mapping.map { (kind: $0.1, confidence: 1.0) }
        var id = candidates.lazy.compactMap({ book.id(named: $0) }).first
        if id == nil, mapping == nil, let similar = foods.match(parsed.food) {
            let name = book.byID[similar.id]?.name ?? similar.id
            guard similar.sure else {
                return .failure(
                    Reason(
                        text:
                            "no catalog ingredient is called \"\(parsed.name)\"; the closest food is \"\(name)\" (\(percent(similar.confidence)) sure): "
                            + "map the line to it or to another",
                        suggestion: similar.id, confidence: similar.confidence))
            }
            id = similar.id
            how = (.food, similar.confidence)
        }
        guard let id else {
            return .failure(Reason(text: "no catalog ingredient is called \"\(parsed.name)\"; map the line to one"))
        }
        guard let quantity = parsed.quantity else {
            return .failure(Reason(text: "no quantity for \(id); map the line with one, e.g. \"1 tsp \(parsed.name)\""))
        }
        // A frying bath or what is poured away, as the line's note says ("for frying").
        let use = parsed.use ?? written.use ?? .eaten
        let eatenShare = use == .eaten ? nil : parsed.eatenShare ?? written.eatenShare
        func line(_ quantity: Double, _ unit: MeasureUnit) -> Result<Found, Reason> {
            .success(Found(line: RecipeIngredient(ingredient: id, quantity: quantity, unit: unit, use: use, eatenShare: eatenShare), how: how))
        }
        let ingredient = book.byID[id]
        // "2 cups (212 g)", "1 (400 g) can": the whole amount the line asks for. A stick is a
        // quarter pound of butter; a stick of celery or cinnamon is one piece.
        if let amount = parsed.amount, let measure = amount.unit.measure,
            amount.unit != .stick || ["butter", "margarine"].contains(where: { (ingredient?.name.lowercased() ?? id).contains($0) })
        {
            return line(amount.quantity * measure.factor, measure.unit)
        }
        // A can, a bunch, a clove of what has a piece weight is that many pieces; otherwise the
        // food's own measure of that name ("2 slices bread", "1 head lettuce"), when it has one.
        if let unit = parsed.unit, unit.measure == nil, !(Self.countedAsPieces.contains(unit) && ingredient?.gramsPerPiece != nil),
            let grams = ingredient.flatMap({ Self.grams(in: quantity, unit, of: $0) })
        {
            return line(grams, .g)
        }
        // A sprig, a head, a knob, a handful, a jar or a pack weighs what nothing here says:
        // asked, never guessed.
        if let unit = parsed.unit, unit.measure == nil, !Self.countedAsPieces.contains(unit) {
            return .failure(Reason(text: "a \(unit.rawValue) of \(id) has no weight here; map the line with an amount in g, ml or pieces"))
        }
        // No unit, or one counted by the ingredient's piece weight (a can, a bunch, a clove).
        return line(quantity, .piece)
    }

    /// Grams in `quantity` `unit`s of `ingredient` from its household measure named so ("slice",
    /// "head", "sprig"), for a unit that has no weight of its own.
    /// The medium one of several ("head, medium (6" dia)") when sizes are given.
    static func grams(in quantity: Double, _ unit: ParsedUnit, of ingredient: Ingredient) -> Double? {
        let named = ingredient.portions.filter { portion in
            let first = portion.name.lowercased().split(whereSeparator: { !$0.isLetter }).first.map(String.init)
            return first.flatMap { ParsedUnit(spelling: $0) } == unit
        }
        let portion = named.first { $0.name.lowercased().contains("medium") } ?? named.first
        return portion.map { quantity * $0.grams / $0.amount }
    }

    private func percent(_ share: Double) -> String { "\(Int((share * 100).rounded())) %" }

    /// What the document said that no Sous field holds, as (schema.org name, text) sorted by
    /// name; kept in the notes. Diets and nutrition are not among them: Sous derives its own
    /// from the ingredients, and a second figure beside it would only disagree.
    static func unmappedFields(of recipe: SchemaRecipe) -> [(name: String, text: String)] {
        var fields = recipe.unmapped.map { (name: $0.key, text: $0.value) }
        if !recipe.cuisines.isEmpty { fields.append(("recipeCuisine", recipe.cuisines.joined(separator: ", "))) }
        if let author = recipe.authorName { fields.append(("author", author)) }
        if let yieldText = recipe.yieldText { fields.append(("recipeYield", yieldText)) }
        var otherImages = Array(recipe.imageURLs.filter { !$0.hasPrefix("data:") }.dropFirst())
        // Embedded images after the one that became the photo, or that could not be read.
        let embedded = recipe.imageURLs.filter { $0.hasPrefix("data:") }
        let photos = embedded.filter { SchemaRecipe.imageData(fromDataURL: $0) != nil }.count
        let unread = embedded.count - photos
        if photos > 1 { otherImages.append("\(photos - 1) more embedded image\(photos == 2 ? "" : "s")") }
        if unread > 0 { otherImages.append("\(unread) embedded image\(unread == 1 ? "" : "s") that could not be read") }
        if !otherImages.isEmpty { fields.append(("image", otherImages.joined(separator: " "))) }
        let badTags = recipe.keywords.filter { RecipeValidation.normalizedTag($0) == nil && DishType(rawValue: $0.lowercased()) == nil }
        if !badTags.isEmpty { fields.append(("keywords", badTags.joined(separator: ", "))) }
        return fields.sorted { $0.name < $1.name }
    }

    /// The names of ``unmappedFields(of:)``, for the report.
    static func droppedFields(of recipe: SchemaRecipe) -> [String] {
        unmappedFields(of: recipe).map(\.name)
    }

    /// The document's own notes (comments other than variations), then what no Sous field holds,
    /// within the notes' limit.
    static func notes(of recipe: SchemaRecipe) -> String? {
        var parts = recipe.comments.filter { $0.name != SchemaRecipe.variationName }.map(\.text)
        let unmapped = unmappedFields(of: recipe)
        if !unmapped.isEmpty {
            parts.append("From the imported recipe:\n" + unmapped.map { "\($0.name): \($0.text)" }.joined(separator: "\n"))
        }
        guard !parts.isEmpty else { return nil }
        let text = parts.joined(separator: "\n\n")
        return text.count <= RecipeLimits.maxNotesCharacters ? text : String(text.prefix(RecipeLimits.maxNotesCharacters - 1)) + "…"
    }

    /// The keywords that make tags (each once, at most the limit); those that cannot be a tag
    /// are kept in the notes.
    static func tags(of recipe: SchemaRecipe) -> [String] {
        var tags: [String] = []
        for keyword in recipe.keywords {
            if let tag = RecipeValidation.normalizedTag(keyword), !tags.contains(tag), tags.count < RecipeLimits.maxTags { tags.append(tag) }
        }
        return tags
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

/// Remembered mappings are found by the line without case, accents or repeated spaces.
enum RememberedLines {
    static func key(_ line: String) -> String {
        folded(line).split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
