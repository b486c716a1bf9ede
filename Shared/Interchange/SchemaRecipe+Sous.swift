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
            // A file name means nothing to whoever reads the document: only an address goes out.
            imageURLs: (recipe.image.flatMap(Self.absoluteURL).map { [$0] } ?? []) + (photo.map { [Self.dataURL($0)] } ?? []),
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
            nutrition: Self.nutritionInformation(recipe.nutritionPerServing),
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

    /// "200 g red lentils"; a count of pieces has no unit word, and more than one is plural
    /// ("2 eggs", "6 lemons", "2 garlic cloves"). A frying bath or what is poured away says so
    /// after a comma, with the share eaten when it is not the usual one ("1.5 l sunflower oil,
    /// for frying", "…, for frying, 12 % eaten"), so that the importer reads it back as it was.
    static func line(_ ingredient: RecipeIngredientDetail) -> String {
        let amount = quantityText(ingredient.quantity)
        let name = ingredient.name.lowercased()
        let measured =
            ingredient.unit == .piece ? "\(amount) \(ingredient.quantity > 1 ? plural(name) : name)" : "\(amount) \(ingredient.unit.rawValue) \(name)"
        let note: String
        switch ingredient.use {
        case .eaten: return measured
        case .frying: note = "for frying"
        case .discarded: note = "poured away"
        }
        guard abs(ingredient.eatenShare - ingredient.use.defaultEatenShare) > 1e-9 else { return "\(measured), \(note)" }
        return "\(measured), \(note), \(quantityText(ingredient.eatenShare * 100)) % eaten"
    }

    /// The English plural of a name, by its last word: "lemons", "tomatoes", "berries",
    /// "bay leaves", "radishes". (The importer reads each back to its ingredient.)
    static func plural(_ name: String) -> String {
        // "potato (floury)", "egg, large": the noun is before the qualifier.
        if let qualifier = name.range(of: " (") ?? name.range(of: ",") {
            return plural(String(name[..<qualifier.lowerBound])) + name[qualifier.lowerBound...]
        }
        let lastWord = name.split(separator: " ").last.map(String.init) ?? name
        let stem = name.dropLast(lastWord.count)
        let irregular = ["leaf": "leaves", "loaf": "loaves", "half": "halves", "tomato": "tomatoes", "potato": "potatoes"]
        if let plural = irregular[lastWord] { return stem + plural }
        // "chickpeas", "brussels sprouts": already plural.
        if lastWord.hasSuffix("s"), !lastWord.hasSuffix("ss"), !lastWord.hasSuffix("us") { return name }
        if ["s", "x", "z", "ch", "sh"].contains(where: lastWord.hasSuffix) { return name + "es" }
        if lastWord.hasSuffix("y"), let before = lastWord.dropLast().last, !"aeiou".contains(before) { return name.dropLast() + "ies" }
        return name + "s"
    }

    /// `text` when it is an http(s) address, else nil.
    public static func absoluteURL(_ text: String) -> String? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil else {
            return nil
        }
        return text
    }

    /// Nutrition per serving as schema.org's NutritionInformation writes it ("310 kcal",
    /// "12.5 g"); salt as sodium (a gram of salt holds 0.4 g of sodium), in milligrams.
    static func nutritionInformation(_ nutrition: Nutrition) -> [String: String] {
        func grams(_ value: Double) -> String { "\(quantityText((value * 10).rounded() / 10)) g" }
        return [
            "servingSize": "1 serving",
            "calories": "\(nutrition.kcal.roundedInt) kcal",
            "carbohydrateContent": grams(nutrition.carbohydrates),
            "proteinContent": grams(nutrition.protein),
            "fatContent": grams(nutrition.fat),
            "fiberContent": grams(nutrition.fibre),
            "sugarContent": grams(nutrition.sugar),
            "sodiumContent": "\((nutrition.salt * 400).roundedInt) mg",
        ]
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
