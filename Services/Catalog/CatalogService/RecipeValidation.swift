import Foundation
import SousRuntime
import SousSchema
import SousWire

/// A recipe that passed validation, ready to store.
struct ValidRecipe: Equatable, Sendable {
    var name: String
    var summary: String
    var servings: Int
    var prepMinutes: Int
    var cookMinutes: Int
    var ingredients: [RecipeIngredient]
    var steps: [RecipeStep]
    var equipment: [Appliance]
    var dishTypes: [DishType]
    var link: String?
    var image: String?
    var notes: String? = nil
    var variations: [String] = []
    /// Lower case, each once, in the order given.
    var tags: [String] = []
    /// What happens to the stored photo when this is written.
    var photo: PhotoChange = .keep
}

/// A write's effect on a recipe's photo.
enum PhotoChange: Equatable, Sendable {
    /// The row's own photo stays (none for a new row).
    case keep
    case replace(Data, ImageType)
    case remove
    /// A new row (a personal version, a saved copy) takes the photo of the row under this key.
    case copy(from: RecipeKey)
}

/// Checks what users write. Each error is a badRequest naming the field and why.
enum RecipeValidation {
    static let maxNameLength = 200
    static let maxTextLength = 5_000
    static let maxMinutes = 7 * 24 * 60
    static let maxQuantity = 100_000.0
    static let maxLines = 100

    /// Validates a new recipe: name and summary required, everything else optional.
    static func validate(new draft: RecipeDraft, knownIngredients: Set<String>) throws(ServiceError) -> ValidRecipe {
        let base = ValidRecipe(
            name: "", summary: "", servings: 2, prepMinutes: 0, cookMinutes: 0, ingredients: [], steps: [], equipment: [], dishTypes: [],
            link: nil, image: nil
        )
        guard let name = draft.name, !name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw .badRequest("a recipe needs a name", field: "name")
        }
        guard let summary = draft.summary, !summary.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw .badRequest("a recipe needs a description", field: "summary")
        }
        return try apply(draft, to: base, knownIngredients: knownIngredients)
    }

    /// Applies the fields an edit sets on top of `recipe` and validates the result.
    static func apply(_ draft: RecipeDraft, to recipe: ValidRecipe, knownIngredients: Set<String>) throws(ServiceError) -> ValidRecipe {
        var result = recipe
        if let name = draft.name {
            let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty else { throw .badRequest("name cannot be empty", field: "name") }
            guard trimmed.count <= maxNameLength else { throw .badRequest("name is longer than \(maxNameLength) characters", field: "name") }
            result.name = trimmed
        }
        if let summary = draft.summary {
            let trimmed = summary.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty else { throw .badRequest("description cannot be empty", field: "summary") }
            guard trimmed.count <= maxTextLength else {
                throw .badRequest("description is longer than \(maxTextLength) characters", field: "summary")
            }
            result.summary = trimmed
        }
        if let servings = draft.servings {
            guard (1...50).contains(servings) else { throw .badRequest("servings must be 1 to 50, got \(servings)", field: "servings") }
            result.servings = servings
        }
        if let minutes = draft.prepMinutes {
            guard (0...maxMinutes).contains(minutes) else { throw .badRequest("prep minutes must be 0 to \(maxMinutes)", field: "prepMinutes") }
            result.prepMinutes = minutes
        }
        if let minutes = draft.cookMinutes {
            guard (0...maxMinutes).contains(minutes) else { throw .badRequest("cook minutes must be 0 to \(maxMinutes)", field: "cookMinutes") }
            result.cookMinutes = minutes
        }
        if let ingredients = draft.ingredients {
            guard ingredients.count <= maxLines else { throw .badRequest("at most \(maxLines) ingredients", field: "ingredients") }
            var seen: Set<String> = []
            for (index, line) in ingredients.enumerated() {
                guard knownIngredients.contains(line.ingredient) else {
                    throw .unknownIngredient(line.ingredient, field: "ingredients.\(index).ingredient")
                }
                guard seen.insert(line.ingredient).inserted else {
                    throw .badRequest("\"\(line.ingredient)\" is listed twice; give one total quantity", field: "ingredients.\(index).ingredient")
                }
                guard line.quantity.isFinite, line.quantity > 0, line.quantity <= maxQuantity else {
                    throw .badRequest("quantity must be more than 0 and at most \(Int(maxQuantity))", field: "ingredients.\(index).quantity")
                }
                if let share = line.eatenShare, !(share.isFinite && (0...1).contains(share)) {
                    throw .badRequest("eatenShare is the share of the quantity eaten, 0 to 1", field: "ingredients.\(index).eatenShare")
                }
            }
            result.ingredients = ingredients
        }
        if let steps = draft.steps {
            guard steps.count <= maxLines else { throw .badRequest("at most \(maxLines) steps", field: "steps") }
            result.steps = steps
        }
        let used = Set(result.ingredients.map(\.ingredient))
        for (index, step) in result.steps.enumerated() {
            guard !step.description.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw .badRequest("a step needs a description", field: "steps.\(index).description")
            }
            guard step.description.count <= maxTextLength else {
                throw .badRequest("step description is longer than \(maxTextLength) characters", field: "steps.\(index).description")
            }
            if let minutes = step.minutes, !(0...maxMinutes).contains(minutes) {
                throw .badRequest("step minutes must be 0 to \(maxMinutes)", field: "steps.\(index).minutes")
            }
            for (position, ingredient) in step.ingredients.enumerated() where !used.contains(ingredient) {
                throw .badRequest("\"\(ingredient)\" is not among the recipe's ingredients", field: "steps.\(index).ingredients.\(position)")
            }
        }
        if let equipment = draft.equipment { result.equipment = Array(Set(equipment)).sorted() }
        if let dishTypes = draft.dishTypes { result.dishTypes = Array(Set(dishTypes)).sorted() }
        if let link = draft.link {
            if link.isEmpty {
                result.link = nil
            } else {
                guard link.count <= 2_000, let url = URL(string: link), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil
                else {
                    throw .badRequest("link must be an http or https URL", field: "link")
                }
                result.link = link
            }
        }
        if let image = draft.image {
            guard image.count <= 500 else { throw .badRequest("image reference is longer than 500 characters", field: "image") }
            result.image = image.isEmpty ? nil : image
        }
        if let notes = draft.notes {
            let trimmed = notes.trimmingCharacters(in: .whitespacesAndNewlines)
            guard trimmed.count <= RecipeLimits.maxNotesCharacters else {
                throw .badRequest("notes are longer than \(RecipeLimits.maxNotesCharacters) characters", field: "notes")
            }
            result.notes = trimmed.isEmpty ? nil : trimmed
        }
        if let variations = draft.variations {
            guard variations.count <= RecipeLimits.maxVariations else {
                throw .badRequest("at most \(RecipeLimits.maxVariations) variations", field: "variations")
            }
            result.variations = try variations.enumerated().map { index, text throws(ServiceError) in
                let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
                guard !trimmed.isEmpty, trimmed.count <= RecipeLimits.maxVariationCharacters else {
                    throw .badRequest("a variation is 1 to \(RecipeLimits.maxVariationCharacters) characters", field: "variations.\(index)")
                }
                return trimmed
            }
        }
        if let tags = draft.tags {
            guard tags.count <= RecipeLimits.maxTags else { throw .badRequest("at most \(RecipeLimits.maxTags) tags", field: "tags") }
            var kept: [String] = []
            for (index, tag) in tags.enumerated() {
                guard let normal = normalizedTag(tag) else {
                    throw .badRequest(
                        "a tag is 1 to \(RecipeLimits.maxTagCharacters) letters, digits, spaces or hyphens, got \"\(tag.prefix(60))\"",
                        field: "tags.\(index)")
                }
                if !kept.contains(normal) { kept.append(normal) }
            }
            result.tags = kept
        }
        switch (draft.photo, draft.removePhoto) {
        case (_?, true?): throw .badRequest("give a photo or removePhoto, not both", field: "removePhoto")
        case (let bytes?, _): result.photo = .replace(bytes, try ImageType.checked(bytes, field: "photo", maxBytes: RecipeLimits.maxPhotoBytes))
        case (nil, true?): result.photo = .remove
        default: break
        }
        return result
    }

    /// `tag` trimmed, in lower case, with runs of spaces made one; nil unless it is 1 to
    /// ``RecipeLimits/maxTagCharacters`` letters, digits, spaces and hyphens (a stored tag list
    /// is "|a|b|", and a search compares with LIKE).
    static func normalizedTag(_ tag: String) -> String? {
        let words = tag.lowercased().split(whereSeparator: \.isWhitespace)
        let normal = words.joined(separator: " ")
        guard !normal.isEmpty, normal.count <= RecipeLimits.maxTagCharacters,
            normal.allSatisfy({ $0.isLetter || $0.isNumber || $0 == " " || $0 == "-" })
        else { return nil }
        return normal
    }
}

extension ServiceError {
    /// An ingredient id the catalog does not know: notFound naming the field, as every service
    /// answers an unknown id named in a request (docs/PROTOCOL.md, "Errors").
    static func unknownIngredient(_ id: String, field: String) -> ServiceError {
        .notFound("no ingredient \"\(id)\" in the catalog", field: field)
    }
}
