public import SousSchema

/// A schema.org Recipe as Sous imports and exports it: text cleaned of HTML, times in minutes,
/// instructions flattened into steps.
///
/// Reading a document (``SchemaRecipeDocument/recipes(from:)``) and writing it back
/// (``jsonLD()``) gives an equal value: `recipes(from: r.jsonLD()) == [r]` for every recipe
/// read from a document. Values built by hand round-trip too, as long as their texts are
/// already clean (trimmed, single spaces, no empty strings, no keyword holding a comma).
public struct SchemaRecipe: Equatable, Sendable {
    /// Empty when the document gives none.
    public var name: String
    public var description: String?
    /// Image URLs in document order, without duplicates.
    public var imageURLs: [String]
    /// The first number of `recipeYield`, when it is 1–10,000.
    public var servings: Int?
    /// `recipeYield` when it says more than a number of servings ("1 loaf", "12 cookies"); nil
    /// for "4", "4 servings", "Serves 4-6".
    public var yieldText: String?
    public var prepMinutes: Int?
    public var cookMinutes: Int?
    public var totalMinutes: Int?
    /// `recipeIngredient` (or the legacy `ingredients` when there is no `recipeIngredient`), one
    /// line each, as written; ``IngredientLine`` takes them apart.
    public var ingredients: [String]
    public var steps: [SchemaStep]
    /// `tool`: strings or HowToTool names.
    public var tools: [String]
    /// `recipeCategory` ("Dinner", "Dessert").
    public var categories: [String]
    /// `recipeCuisine` ("Italian").
    public var cuisines: [String]
    public var keywords: [String]
    /// `suitableForDiet` without the schema.org prefix: "VeganDiet", "GlutenFreeDiet".
    public var diets: [String]
    /// `nutrition` as written ("calories": "240 kcal", "fatContent": "9 g"); numbers as their
    /// JSON text.
    public var nutrition: [String: String]
    /// `author` names, joined with ", ".
    public var authorName: String?
    public var url: String?
    /// `comment`: Comment objects (or plain texts), in document order. Sous writes a recipe's notes
    /// as one named "Notes" and each variation as one named "Variation".
    public var comments: [SchemaComment]
    /// Every other top-level key of the Recipe node, and mapped keys whose value gave nothing
    /// ("prepTime": "about an hour"), as compact JSON text with sorted keys (a string keeps its
    /// quotes: `"\"2024-01-01\""`). `@context` and `@type` are not kept.
    public var unmapped: [String: String]

    public init(
        name: String, description: String? = nil, imageURLs: [String] = [], servings: Int? = nil, yieldText: String? = nil,
        prepMinutes: Int? = nil, cookMinutes: Int? = nil, totalMinutes: Int? = nil, ingredients: [String] = [], steps: [SchemaStep] = [],
        tools: [String] = [], categories: [String] = [], cuisines: [String] = [], keywords: [String] = [], diets: [String] = [],
        nutrition: [String: String] = [:], authorName: String? = nil, url: String? = nil, comments: [SchemaComment] = [],
        unmapped: [String: String] = [:]
    ) {
        self.comments = comments
        self.name = name
        self.description = description
        self.imageURLs = imageURLs
        self.servings = servings
        self.yieldText = yieldText
        self.prepMinutes = prepMinutes
        self.cookMinutes = cookMinutes
        self.totalMinutes = totalMinutes
        self.ingredients = ingredients
        self.steps = steps
        self.tools = tools
        self.categories = categories
        self.cuisines = cuisines
        self.keywords = keywords
        self.diets = diets
        self.nutrition = nutrition
        self.authorName = authorName
        self.url = url
        self.unmapped = unmapped
    }

    /// The Sous diets among ``diets`` (VeganDiet, VegetarianDiet, GlutenFreeDiet, HalalDiet, or
    /// those words in any case), sorted. A schema.org diet is what the author claims: Sous
    /// derives its own from the ingredients, so treat these as a hint.
    public var sousDiets: [Diet] {
        var found: Set<Diet> = []
        for diet in diets {
            let key = diet.lowercased().filter { $0.isLetter }
            switch key {
            case "vegandiet", "vegan": found.insert(.vegan)
            case "vegetariandiet", "vegetarian": found.insert(.vegetarian)
            case "glutenfreediet", "glutenfree": found.insert(.glutenFree)
            case "halaldiet", "halal": found.insert(.halal)
            default: break
            }
        }
        return found.sorted()
    }
}

/// A schema.org Comment: its `name` (a title, e.g. "Notes"), if any, and its `text`, line
/// breaks kept.
public struct SchemaComment: Equatable, Sendable {
    public var name: String?
    public var text: String

    public init(name: String? = nil, text: String) {
        self.name = name
        self.text = text
    }
}

/// One instruction, with the name of the HowToSection it was in.
public struct SchemaStep: Equatable, Sendable {
    public var text: String
    /// The HowToSection's name ("For the sauce"), nil outside sections.
    public var section: String?

    public init(text: String, section: String? = nil) {
        self.text = text
        self.section = section
    }
}
