public import Foundation
public import SousSchema

extension SchemaRecipe {
    /// A Sous recipe as schema.org describes it: its ingredient lines written so that
    /// ``IngredientLine/parse(_:)`` reads them back to the same quantity, unit and name
    /// ("200 g red lentils", "2 egg" for pieces), its steps in order, its equipment as tools and
    /// its dish types as categories, its tags as keywords, its notes and variations as comments,
    /// and its photo (when given) as a `data:` URL after the image; the diets Sous derived go
    /// out as schema.org diets.
    public init(_ recipe: RecipeDetail, photo: RecipePhoto? = nil) {
        var comments = recipe.notes.map { [SchemaComment(name: Self.notesName, text: $0)] } ?? []
        comments += recipe.variations.map { SchemaComment(name: Self.variationName, text: $0) }
        self.init(
            name: recipe.name,
            description: recipe.summary.isEmpty ? nil : recipe.summary,
            imageURLs: (recipe.image.map { [$0] } ?? []) + (photo.map { [Self.dataURL($0)] } ?? []),
            servings: recipe.servings,
            prepMinutes: recipe.prepMinutes,
            cookMinutes: recipe.cookMinutes,
            totalMinutes: recipe.prepMinutes + recipe.cookMinutes,
            ingredients: recipe.ingredients.map(Self.line),
            steps: recipe.steps.map { SchemaStep(text: $0.description) },
            tools: recipe.equipment.map(\.rawValue),
            categories: recipe.dishTypes.map(\.rawValue),
            keywords: recipe.tags,
            diets: recipe.diets.map(Self.schemaDiet),
            url: recipe.link,
            comments: comments
        )
    }

    /// The names Sous gives the comments holding a recipe's notes and its variations.
    public static let notesName = "Notes"
    public static let variationName = "Variation"

    /// The photo as a `data:` URL ("data:image/jpeg;base64,…").
    static func dataURL(_ photo: RecipePhoto) -> String {
        "data:image/\(photo.type);base64,\(photo.photo.base64EncodedString())"
    }

    /// The bytes of a `data:image/…;base64,…` URL; nil for any other text.
    public static func imageData(fromDataURL text: String) -> Data? {
        guard text.hasPrefix("data:image/"), let comma = text.firstIndex(of: ","), text[..<comma].hasSuffix(";base64") else { return nil }
        return Data(base64Encoded: String(text[text.index(after: comma)...]), options: .ignoreUnknownCharacters)
    }

    /// "200 g red lentils"; a count of pieces has no unit word ("2 egg").
    static func line(_ ingredient: RecipeIngredientDetail) -> String {
        let amount = quantityText(ingredient.quantity)
        let name = ingredient.name.lowercased()
        return ingredient.unit == .piece ? "\(amount) \(name)" : "\(amount) \(ingredient.unit.rawValue) \(name)"
    }

    /// A whole number without a decimal point, else at most three decimals, no exponent.
    static func quantityText(_ quantity: Double) -> String {
        guard quantity.isFinite else { return "0" }
        // Int64 would trap past 2^63; a quantity that large has no fraction to print anyway.
        guard abs(quantity) < 9e12 else { return String(format: "%.0f", quantity) }
        let thousandths = (quantity * 1000).rounded()
        let whole = Int64(thousandths / 1000)
        let fraction = Int64(abs(thousandths.truncatingRemainder(dividingBy: 1000)))
        guard fraction != 0 else { return String(whole) }
        var digits = String(fraction)
        while digits.count < 3 { digits = "0" + digits }
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(whole).\(digits)"
    }

    /// The schema.org RestrictedDiet member, as ``diets`` holds it (the writer adds the
    /// `https://schema.org/` prefix).
    static func schemaDiet(_ diet: Diet) -> String {
        switch diet {
        case .vegan: "VeganDiet"
        case .vegetarian: "VegetarianDiet"
        case .glutenFree: "GlutenFreeDiet"
        case .halal: "HalalDiet"
        }
    }
}
