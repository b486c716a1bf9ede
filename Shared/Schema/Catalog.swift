public import Foundation
public import MessagePack
public import SousWire

// MARK: - Ingredients

/// Nutrition per 100 g (or per serving where a type says so).
@MessagePackCodable
public struct Nutrition: Codable, Equatable, Sendable {
    public var kcal: Double
    public var carbohydrates: Double
    public var protein: Double
    public var fat: Double
    public var fibre: Double
    public var sugar: Double
    public var salt: Double

    public init(kcal: Double, carbohydrates: Double, protein: Double, fat: Double, fibre: Double, sugar: Double, salt: Double) {
        self.kcal = kcal
        self.carbohydrates = carbohydrates
        self.protein = protein
        self.fat = fat
        self.fibre = fibre
        self.sugar = sugar
        self.salt = salt
    }

    public static let zero = Nutrition(kcal: 0, carbohydrates: 0, protein: 0, fat: 0, fibre: 0, sugar: 0, salt: 0)

    /// This nutrition scaled by `factor` (e.g. grams / 100).
    public func scaled(by factor: Double) -> Nutrition {
        Nutrition(
            kcal: kcal * factor, carbohydrates: carbohydrates * factor, protein: protein * factor, fat: fat * factor, fibre: fibre * factor,
            sugar: sugar * factor, salt: salt * factor)
    }

    public static func + (lhs: Nutrition, rhs: Nutrition) -> Nutrition {
        Nutrition(
            kcal: lhs.kcal + rhs.kcal, carbohydrates: lhs.carbohydrates + rhs.carbohydrates, protein: lhs.protein + rhs.protein,
            fat: lhs.fat + rhs.fat, fibre: lhs.fibre + rhs.fibre, sugar: lhs.sugar + rhs.sugar, salt: lhs.salt + rhs.salt
        )
    }
}

/// An illustrative price: `amount` EUR per `per`.
@MessagePackCodable
public struct Price: Codable, Equatable, Sendable {
    public var amount: Double
    public var per: PriceUnit

    public init(amount: Double, per: PriceUnit) {
        self.amount = amount
        self.per = per
    }
}

@MessagePackCodable
public struct Ingredient: Codable, Equatable, Sendable {
    /// Stable slug, e.g. "red-lentils".
    public var id: String
    public var name: String
    /// USDA SR28 food number the nutrition was taken from.
    public var usdaNdb: String?
    /// The unit quantities of this ingredient are usually given in: g, ml or piece.
    public var unit: MeasureUnit
    public var gramsPerPiece: Double?
    public var gramsPerMl: Double?
    /// Nil for a food no shop price is known for (the USDA foods): lists and recipes say "no
    /// price" rather than €0.
    public var price: Price?
    public var category: ShoppingCategory
    /// Per 100 g.
    public var nutrition: Nutrition
    public var contains: [DietFact]
    public var allergens: [Allergen]
    /// Other names cooks use ("aubergine" for eggplant), lowercase; searched like the name.
    /// Optional on input (none).
    public var synonyms: [String]
    /// False for what comes from the tap (water): grocery lists leave it out of recipes'
    /// shares. Optional on input (true).
    public var bought: Bool
    /// Household measures from USDA SR28 ("1 cup, chopped" = 160 g, "1 medium" = 118 g), in
    /// SR28's order. Optional on input (none).
    public var portions: [Portion]
    /// True when the category, diet facts and allergens were derived from the USDA food group by
    /// rule (Services/Catalog/README.md) rather than checked by hand. Optional on input (false).
    public var factsDerived: Bool
    /// The packs a shop sells it in, smallest first, each with its price (illustrative, like
    /// ``price``). Optional on input (none: the list shows no packs).
    public var packs: [PackSize]

    public init(
        id: String, name: String, usdaNdb: String?, unit: MeasureUnit, gramsPerPiece: Double?, gramsPerMl: Double?, price: Price?,
        category: ShoppingCategory, nutrition: Nutrition, contains: [DietFact], allergens: [Allergen], synonyms: [String] = [], bought: Bool = true,
        portions: [Portion] = [], factsDerived: Bool = false, packs: [PackSize] = []
    ) {
        self.portions = portions
        self.factsDerived = factsDerived
        self.packs = packs
        self.id = id
        self.name = name
        self.usdaNdb = usdaNdb
        self.unit = unit
        self.gramsPerPiece = gramsPerPiece
        self.gramsPerMl = gramsPerMl
        self.price = price
        self.category = category
        self.nutrition = nutrition
        self.contains = contains
        self.allergens = allergens
        self.synonyms = synonyms
        self.bought = bought
    }

    private enum CodingKeys: String, CodingKey {
        case id, name, usdaNdb, unit, gramsPerPiece, gramsPerMl, price, category, nutrition, contains, allergens, synonyms, bought, portions
        case factsDerived, packs
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
        usdaNdb = try container.decodeIfPresent(String.self, forKey: .usdaNdb)
        unit = try container.decode(MeasureUnit.self, forKey: .unit)
        gramsPerPiece = try container.decodeIfPresent(Double.self, forKey: .gramsPerPiece)
        gramsPerMl = try container.decodeIfPresent(Double.self, forKey: .gramsPerMl)
        price = try container.decodeIfPresent(Price.self, forKey: .price)
        category = try container.decode(ShoppingCategory.self, forKey: .category)
        nutrition = try container.decode(Nutrition.self, forKey: .nutrition)
        contains = try container.decode([DietFact].self, forKey: .contains)
        allergens = try container.decode([Allergen].self, forKey: .allergens)
        synonyms = try container.decodeIfPresent([String].self, forKey: .synonyms) ?? []
        bought = try container.decodeIfPresent(Bool.self, forKey: .bought) ?? true
        portions = try container.decodeIfPresent([Portion].self, forKey: .portions) ?? []
        factsDerived = try container.decodeIfPresent(Bool.self, forKey: .factsDerived) ?? false
        packs = try container.decodeIfPresent([PackSize].self, forKey: .packs) ?? []
    }
}

/// A pack a shop sells: how much it holds and what it costs.
@MessagePackCodable
public struct PackSize: Codable, Equatable, Hashable, Sendable {
    /// How much one pack holds, in ``unit``: a whole number of g, ml or pieces.
    public var quantity: Double
    /// g, kg, ml, l or piece: the family the ingredient is priced in.
    public var unit: MeasureUnit
    /// EUR for one pack.
    public var price: Double

    public init(quantity: Double, unit: MeasureUnit, price: Double) {
        self.quantity = quantity
        self.unit = unit
        self.price = price
    }

    /// Packs as a database column keeps them: "quantity|unit|price" a line ("500|g|1.45"), read
    /// for every ingredient on each start (cheaper than JSON).
    public static func columnText(_ packs: [PackSize]) -> String {
        packs.map { "\($0.quantity)|\($0.unit.rawValue)|\($0.price)" }.joined(separator: "\n")
    }

    /// ``columnText(_:)`` read back; a line that does not parse is left out.
    public static func fromColumnText(_ text: String) -> [PackSize] {
        guard !text.isEmpty else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "|")
            guard fields.count == 3, let quantity = Double(fields[0]), let unit = MeasureUnit(rawValue: String(fields[1])),
                let price = Double(fields[2])
            else { return nil }
            return PackSize(quantity: quantity, unit: unit, price: price)
        }
    }
}

/// A household measure of a food and what it weighs: `amount` `name` = `grams` g
/// ("1" "cup, chopped" = 160 g).
@MessagePackCodable
public struct Portion: Codable, Equatable, Sendable {
    public var amount: Double
    public var name: String
    public var grams: Double

    public init(amount: Double, name: String, grams: Double) {
        self.amount = amount
        self.name = name
        self.grams = grams
    }
}

@MessagePackCodable
public struct IngredientSearch: Codable, Equatable, Sendable {
    /// Typed so far; matched against names and synonyms as a prefix of any word and as a
    /// substring, ignoring case and accents.
    public var query: String
    /// 1–50, default 10.
    public var limit: Int?

    public init(query: String, limit: Int? = nil) {
        self.query = query
        self.limit = limit
    }
}

@MessagePackCodable
public struct IngredientList: Codable, Equatable, Sendable {
    public var ingredients: [Ingredient]
    public init(ingredients: [Ingredient]) { self.ingredients = ingredients }
}

@MessagePackCodable
public struct IngredientIDs: Codable, Equatable, Sendable {
    public var ids: [String]
    public init(ids: [String]) { self.ids = ids }
}

// MARK: - Recipes

@MessagePackCodable
public struct RecipeIngredient: Codable, Equatable, Sendable {
    /// Catalog ingredient id.
    public var ingredient: String
    public var quantity: Double
    public var unit: MeasureUnit
    /// Eaten (the default when left out), a frying bath, or poured away.
    public var use: IngredientUse
    /// Share of the quantity counted in nutrition, 0–1; left out, the use's default
    /// (``IngredientUse/defaultEatenShare``).
    public var eatenShare: Double?

    public init(ingredient: String, quantity: Double, unit: MeasureUnit, use: IngredientUse = .eaten, eatenShare: Double? = nil) {
        self.ingredient = ingredient
        self.quantity = quantity
        self.unit = unit
        self.use = use
        self.eatenShare = eatenShare
    }

    /// The share of the quantity that nutrition counts.
    public var resolvedEatenShare: Double { eatenShare ?? use.defaultEatenShare }

    private enum CodingKeys: String, CodingKey {
        case ingredient, quantity, unit, use, eatenShare
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        ingredient = try container.decode(String.self, forKey: .ingredient)
        quantity = try container.decode(Double.self, forKey: .quantity)
        unit = try container.decode(MeasureUnit.self, forKey: .unit)
        use = try container.decodeIfPresent(IngredientUse.self, forKey: .use) ?? .eaten
        eatenShare = try container.decodeIfPresent(Double.self, forKey: .eatenShare)
    }
}

@MessagePackCodable
public struct RecipeStep: Codable, Equatable, Sendable {
    public var description: String
    public var minutes: Int?
    public var type: StepType
    /// Ingredient ids used in this step; each must be in the recipe's ingredients. May be left
    /// out (none).
    public var ingredients: [String]

    public init(description: String, minutes: Int? = nil, type: StepType, ingredients: [String] = []) {
        self.description = description
        self.minutes = minutes
        self.type = type
        self.ingredients = ingredients
    }

    private enum CodingKeys: String, CodingKey {
        case description, minutes, type, ingredients
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        description = try container.decode(String.self, forKey: .description)
        minutes = try container.decodeIfPresent(Int.self, forKey: .minutes)
        type = try container.decode(StepType.self, forKey: .type)
        ingredients = try container.decodeIfPresent([String].self, forKey: .ingredients) ?? []
    }
}

/// Who a recipe belongs to.
@MessagePackCodable
public enum RecipeOrigin: String, Codable, Sendable, CaseIterable {
    /// Shipped with Sous.
    case builtIn
    /// Written by a user.
    case custom
    /// A user's edit of someone else's (or a built-in) recipe, seen only by that user.
    case personal
    /// A copy a user saved from the community.
    case saved
}

/// What a user writes when creating a recipe, and (every field optional) when editing one.
@MessagePackCodable
public struct RecipeDraft: Codable, Equatable, Sendable {
    public var name: String?
    public var summary: String?
    public var servings: Int?
    public var prepMinutes: Int?
    public var cookMinutes: Int?
    public var ingredients: [RecipeIngredient]?
    public var steps: [RecipeStep]?
    public var equipment: [Appliance]?
    public var dishTypes: [DishType]?
    public var link: String?
    public var image: String?
    /// The cook's own notes (at most ``RecipeLimits/maxNotesCharacters``); an empty text removes them.
    public var notes: String?
    /// Variations worth trying, one short text each (at most ``RecipeLimits/maxVariations``).
    public var variations: [String]?
    /// Words to find the recipe by (at most ``RecipeLimits/maxTags``): letters, digits, spaces
    /// and hyphens, kept in lower case.
    public var tags: [String]?
    /// A JPEG, PNG, HEIC or WebP photo (at most ``RecipeLimits/maxPhotoBytes``), replacing any.
    public var photo: Data?
    /// True removes the photo (with `recipes.edit`); cannot be combined with `photo`.
    public var removePhoto: Bool?

    public init(
        name: String? = nil, summary: String? = nil, servings: Int? = nil, prepMinutes: Int? = nil, cookMinutes: Int? = nil,
        ingredients: [RecipeIngredient]? = nil, steps: [RecipeStep]? = nil, equipment: [Appliance]? = nil,
        dishTypes: [DishType]? = nil, link: String? = nil, image: String? = nil, notes: String? = nil, variations: [String]? = nil,
        tags: [String]? = nil, photo: Data? = nil, removePhoto: Bool? = nil
    ) {
        self.notes = notes
        self.variations = variations
        self.tags = tags
        self.photo = photo
        self.removePhoto = removePhoto
        self.name = name
        self.summary = summary
        self.servings = servings
        self.prepMinutes = prepMinutes
        self.cookMinutes = cookMinutes
        self.ingredients = ingredients
        self.steps = steps
        self.equipment = equipment
        self.dishTypes = dishTypes
        self.link = link
        self.image = image
    }
}

/// What a recipe's own texts and photo may hold.
public enum RecipeLimits {
    public static let maxNotesCharacters = 10_000
    public static let maxVariations = 20
    public static let maxVariationCharacters = 500
    public static let maxTags = 20
    public static let maxTagCharacters = 40
    /// Largest photo stored: 5 MiB, like a journal photo.
    public static let maxPhotoBytes = 5 * 1024 * 1024
}

/// A recipe's photo as a recipe shows it: its kind and size (`recipes.photo` returns the bytes).
@MessagePackCodable
public struct RecipePhotoInfo: Codable, Equatable, Sendable {
    /// "jpeg", "png", "heic" or "webp", judged from the bytes.
    public var type: String
    public var bytes: Int

    public init(type: String, bytes: Int) {
        self.type = type
        self.bytes = bytes
    }
}

/// A recipe's photo with its bytes.
@MessagePackCodable
public struct RecipePhoto: Codable, Equatable, Sendable {
    public var id: String
    public var type: String
    public var photo: Data

    public init(id: String, type: String, photo: Data) {
        self.id = id
        self.type = type
        self.photo = photo
    }
}

/// schema.org recipes to add to the caller's own recipes (`recipes.import`): a JSON-LD document,
/// or a web page the catalog fetches.
@MessagePackCodable
public struct RecipeImport: Codable, Equatable, Sendable {
    /// At most this many bytes of JSON-LD per import.
    public static let maxDocumentBytes = 7 * 1024 * 1024
    /// At most this many recipes per import.
    public static let maxRecipes = 100

    /// The JSON-LD: one Recipe, an array of them, or a document with an `@graph` (what recipe
    /// sites embed and what Mealie and Tandoor export); or a recipe page's HTML as saved from a
    /// browser (its JSON-LD blocks, else its schema.org microdata). Give this or `url`.
    public var document: String?
    /// A recipe page's address (http or https): the catalog fetches it (at most 5 MB, 10 s,
    /// public addresses only; see PROTOCOL.md "Fetching from the web") and reads its JSON-LD, or
    /// its schema.org microdata when it has none. Its image becomes the photo when it is one.
    public var url: String?
    /// What the user said an ingredient line means: the line exactly as written → an
    /// ingredient line of the catalog's ("salt to taste" → "1 tsp salt"), or just the
    /// ingredient's name or id, keeping the line's own quantity and unit. Remembered for the
    /// user and their household once the import succeeds, so the same line is not asked again.
    public var mappings: [String: String]?

    public init(document: String? = nil, url: String? = nil, mappings: [String: String]? = nil) {
        self.document = document
        self.url = url
        self.mappings = mappings
    }
}

/// What `recipes.import` did: every recipe, or nothing when any line is unmatched.
@MessagePackCodable
public struct RecipeImportReport: Codable, Equatable, Sendable {
    /// The recipes created, in the document's order; empty when `unmatched` is not.
    public var imported: [ImportedRecipe]
    /// Lines to map before anything is imported: no catalog ingredient matched, only an unsure
    /// match (`suggestion`), no quantity, or a unit the ingredient cannot be measured in. None is
    /// ever dropped silently.
    public var unmatched: [UnmatchedIngredientLine]
    /// The lines matched other than by an ingredient's own name or synonym: by a similar USDA
    /// food, by a mapping given now, or by one remembered. Listed whether or not the import went
    /// ahead, so nothing is matched silently.
    public var matched: [MatchedIngredientLine]

    public init(imported: [ImportedRecipe], unmatched: [UnmatchedIngredientLine], matched: [MatchedIngredientLine] = []) {
        self.imported = imported
        self.unmatched = unmatched
        self.matched = matched
    }
}

@MessagePackCodable
public struct ImportedRecipe: Codable, Equatable, Sendable {
    public var id: String
    public var name: String
    /// Ingredient lines read, and the schema.org names of what the document held that Sous has
    /// no field for (kept, with their values, at the end of the recipe's notes).
    public var lines: Int
    public var unmappedFields: [String]

    public init(id: String, name: String, lines: Int, unmappedFields: [String]) {
        self.id = id
        self.name = name
        self.lines = lines
        self.unmappedFields = unmappedFields
    }
}

@MessagePackCodable
public struct UnmatchedIngredientLine: Codable, Equatable, Sendable {
    /// The recipe's name in the document.
    public var recipe: String
    /// The line as written, the key to give in `mappings`.
    public var line: String
    public var reason: String
    /// The closest food when there is one, but not sure enough to be taken without asking: map
    /// the line to it (or to another) to import.
    public var suggestion: String?
    /// How sure the suggestion is, 0 to 1.
    public var confidence: Double?

    public init(recipe: String, line: String, reason: String, suggestion: String? = nil, confidence: Double? = nil) {
        self.recipe = recipe
        self.line = line
        self.reason = reason
        self.suggestion = suggestion
        self.confidence = confidence
    }
}

/// How a line found its ingredient when not by the ingredient's own name or synonym.
public enum LineMatchKind: String, Codable, Sendable, CaseIterable {
    /// A USDA food whose name has every word of the line's food (``MatchedIngredientLine/confidence``).
    case food
    /// A mapping given with this import.
    case mapping
    /// A mapping the user or their household gave in an earlier import.
    case remembered
}

@MessagePackCodable
public struct MatchedIngredientLine: Codable, Equatable, Sendable {
    public var recipe: String
    public var line: String
    public var ingredient: String
    /// The ingredient's name.
    public var name: String
    public var how: LineMatchKind
    /// 1 for a mapping; for a food, the share of the food's words the line said.
    public var confidence: Double

    public init(recipe: String, line: String, ingredient: String, name: String, how: LineMatchKind, confidence: Double) {
        self.recipe = recipe
        self.line = line
        self.ingredient = ingredient
        self.name = name
        self.how = how
        self.confidence = confidence
    }
}

/// A line's meaning a user gave once (`RecipeImport.mappings`), used by their later imports.
@MessagePackCodable
public struct RememberedMapping: Codable, Equatable, Sendable {
    /// The line as it was written (compared without case, accents or repeated spaces).
    public var line: String
    /// What it means: an ingredient line of the catalog's, or an ingredient's name or id.
    public var target: String
    /// True when the household's (any member gave it), false when the user's own.
    public var household: Bool

    public init(line: String, target: String, household: Bool) {
        self.line = line
        self.target = target
        self.household = household
    }
}

@MessagePackCodable
public struct RememberedMappings: Codable, Equatable, Sendable {
    /// The user's own first, then the household's, each by line.
    public var mappings: [RememberedMapping]

    public init(mappings: [RememberedMapping]) { self.mappings = mappings }
}

/// Forgets a remembered mapping, the user's and the household's.
@MessagePackCodable
public struct ForgetMapping: Codable, Equatable, Sendable {
    public var line: String

    public init(line: String) { self.line = line }
}

/// One line of a recipe's ingredients with what the catalog derived for it.
@MessagePackCodable
public struct RecipeIngredientDetail: Codable, Equatable, Sendable {
    public var ingredient: String
    public var name: String
    public var quantity: Double
    public var unit: MeasureUnit
    /// The quantity in grams (converted with the ingredient's grams per piece / per ml).
    public var grams: Double
    /// Estimated cost of this quantity in EUR (illustrative); nil when the ingredient has no price.
    public var cost: Double?
    public var category: ShoppingCategory
    public var use: IngredientUse
    /// The share of ``grams`` counted in the recipe's nutrition (the line's own or its use's
    /// default): 1 for what is eaten, 0.1 for a frying bath, 0 for what is poured away.
    public var eatenShare: Double

    public init(
        ingredient: String, name: String, quantity: Double, unit: MeasureUnit, grams: Double, cost: Double?, category: ShoppingCategory,
        use: IngredientUse = .eaten, eatenShare: Double = 1
    ) {
        self.ingredient = ingredient
        self.name = name
        self.quantity = quantity
        self.unit = unit
        self.grams = grams
        self.cost = cost
        self.category = category
        self.use = use
        self.eatenShare = eatenShare
    }

    /// The grams of this line that end up eaten.
    public var eatenGrams: Double { grams * eatenShare }
}

/// A recipe as search results list it.
@MessagePackCodable
public struct RecipeSummary: Codable, Equatable, Sendable {
    public var id: String
    public var name: String
    public var summary: String
    public var servings: Int
    public var totalMinutes: Int
    public var energyLevel: Int
    public var diets: [Diet]
    public var allergens: [Allergen]
    public var equipment: [Appliance]
    public var dishTypes: [DishType]
    public var kcalPerServing: Double
    public var costPerServing: Double
    public var origin: RecipeOrigin
    public var owner: String?
    public var isFavorite: Bool
    public var tags: [String]
    public var hasPhoto: Bool
    /// With a search's ``RecipeSearch/onHand``: how much of each ingredient on hand the recipe
    /// uses, as made (its own servings), most used first; nil otherwise.
    public var onHand: [OnHandUse]?

    public init(
        id: String, name: String, summary: String, servings: Int, totalMinutes: Int, energyLevel: Int, diets: [Diet], allergens: [Allergen],
        equipment: [Appliance], dishTypes: [DishType], kcalPerServing: Double, costPerServing: Double, origin: RecipeOrigin, owner: String?,
        isFavorite: Bool, tags: [String] = [], hasPhoto: Bool = false, onHand: [OnHandUse]? = nil
    ) {
        self.onHand = onHand
        self.tags = tags
        self.hasPhoto = hasPhoto
        self.id = id
        self.name = name
        self.summary = summary
        self.servings = servings
        self.totalMinutes = totalMinutes
        self.energyLevel = energyLevel
        self.diets = diets
        self.allergens = allergens
        self.equipment = equipment
        self.dishTypes = dishTypes
        self.kcalPerServing = kcalPerServing
        self.costPerServing = costPerServing
        self.origin = origin
        self.owner = owner
        self.isFavorite = isFavorite
    }
}

/// A recipe with everything derived from its ingredients, quantities scaled for ``people``.
@MessagePackCodable
public struct RecipeDetail: Codable, Equatable, Sendable {
    public var id: String
    public var name: String
    public var summary: String
    public var servings: Int
    public var prepMinutes: Int
    public var cookMinutes: Int
    public var energyLevel: Int
    public var equipment: [Appliance]
    public var dishTypes: [DishType]
    public var link: String?
    public var image: String?
    public var steps: [RecipeStep]
    /// Quantities for ``people`` (the recipe's own servings unless the caller asked otherwise).
    public var ingredients: [RecipeIngredientDetail]
    public var people: Int
    public var diets: [Diet]
    public var allergens: [Allergen]
    public var contains: [DietFact]
    /// Cost of the whole recipe at its own servings, EUR (illustrative): the lines that have a
    /// price (see ``unpriced``).
    public var cost: Double
    public var costPerServing: Double
    /// The names of the ingredients no price is known for, left out of ``cost``. Empty when every
    /// line is priced.
    public var unpriced: [String]
    public var nutritionPerServing: Nutrition
    public var origin: RecipeOrigin
    public var owner: String?
    /// For a personal version: the recipe it shadows.
    public var basedOn: String?
    public var shared: Bool
    public var isFavorite: Bool
    /// Catalog version at which this recipe last changed.
    public var version: Int64
    /// The catalog ingredients the lines use, in line order, when the lookup asked for them
    /// (``RecipeLookup/withIngredients``): what a grocery list needs, in the same call.
    public var ingredientFacts: [Ingredient]?
    public var notes: String?
    public var variations: [String]
    public var tags: [String]
    /// The photo's kind and size; nil without one.
    public var photo: RecipePhotoInfo?

    public init(
        id: String, name: String, summary: String, servings: Int, prepMinutes: Int, cookMinutes: Int, energyLevel: Int,
        equipment: [Appliance], dishTypes: [DishType], link: String?, image: String?, steps: [RecipeStep],
        ingredients: [RecipeIngredientDetail], people: Int, diets: [Diet], allergens: [Allergen], contains: [DietFact], cost: Double,
        costPerServing: Double, nutritionPerServing: Nutrition, origin: RecipeOrigin, owner: String?, basedOn: String?, shared: Bool,
        isFavorite: Bool, version: Int64, ingredientFacts: [Ingredient]? = nil, notes: String? = nil, variations: [String] = [],
        tags: [String] = [], photo: RecipePhotoInfo? = nil, unpriced: [String] = []
    ) {
        self.unpriced = unpriced
        self.notes = notes
        self.variations = variations
        self.tags = tags
        self.photo = photo
        self.ingredientFacts = ingredientFacts
        self.id = id
        self.name = name
        self.summary = summary
        self.servings = servings
        self.prepMinutes = prepMinutes
        self.cookMinutes = cookMinutes
        self.energyLevel = energyLevel
        self.equipment = equipment
        self.dishTypes = dishTypes
        self.link = link
        self.image = image
        self.steps = steps
        self.ingredients = ingredients
        self.people = people
        self.diets = diets
        self.allergens = allergens
        self.contains = contains
        self.cost = cost
        self.costPerServing = costPerServing
        self.nutritionPerServing = nutritionPerServing
        self.origin = origin
        self.owner = owner
        self.basedOn = basedOn
        self.shared = shared
        self.isFavorite = isFavorite
        self.version = version
    }
}

// MARK: - Search

/// The parts of a cooking profile the catalog filters by.
@MessagePackCodable
public struct RecipeFilterProfile: Codable, Equatable, Sendable {
    public var diets: [Diet]
    public var allergens: [Allergen]
    /// Ingredient ids the user dislikes.
    public var dislikes: [String]
    /// Appliances the user has; recipes needing any other are hidden.
    public var equipment: [Appliance]
    /// Highest energy level accepted (1–5).
    public var patience: Int

    public init(
        diets: [Diet] = [], allergens: [Allergen] = [], dislikes: [String] = [], equipment: [Appliance] = Appliance.allCases, patience: Int = 5
    ) {
        self.diets = diets
        self.allergens = allergens
        self.dislikes = dislikes
        self.equipment = equipment
        self.patience = patience
    }
}

/// Which filter layers apply; each is on unless switched off.
@MessagePackCodable
public struct FilterSwitches: Codable, Equatable, Sendable {
    public var diets: Bool?
    public var allergens: Bool?
    public var dislikes: Bool?
    public var equipment: Bool?
    public var patience: Bool?

    public init(diets: Bool? = nil, allergens: Bool? = nil, dislikes: Bool? = nil, equipment: Bool? = nil, patience: Bool? = nil) {
        self.diets = diets
        self.allergens = allergens
        self.dislikes = dislikes
        self.equipment = equipment
        self.patience = patience
    }
}

@MessagePackCodable
public struct RecipeSearch: Codable, Equatable, Sendable {
    /// Full-text search in names, summaries and the names and synonyms of the ingredients used
    /// (prefix match on each word; "aubergine" finds recipes with eggplant). Results come by
    /// relevance (bm25, a word in the name or summary weighing more than one among the
    /// ingredients), or newest first when the text matches more than 1000 recipes; without a
    /// text, the caller's favorites first and then by name.
    public var query: String?
    /// Only recipes using all of these ingredients, each an id ("eggplant") or a name or synonym
    /// ("Aubergine", "aubergines"), ignoring case and accents.
    public var ingredients: [String]?
    /// Only recipes at these energy levels.
    public var energyLevels: [Int]?
    public var dishType: DishType?
    /// Only recipes carrying every one of these tags (compared in lower case).
    public var tags: [String]?
    /// Filter by this profile…
    public var profile: RecipeFilterProfile?
    /// …or by the user's saved cooking profile, read from the planner.
    public var useSavedProfile: Bool?
    public var switches: FilterSwitches?
    /// With the saved profile: the diets, allergens and dislikes of everyone in the caller's
    /// household apply too (default true; false for the caller's own alone). Each layer's switch
    /// turns it off for everyone; equipment and patience are the caller's.
    public var forHousehold: Bool?
    /// What the household has (its pantry, or what goes off soon): only recipes using at least
    /// one of these, ranked by how much of them they use rather than by relevance or name. A
    /// recipe's score adds, for each ingredient on hand, the share of it the recipe uses (up to
    /// all of it) times 1 / (1 + d), d being the days from the soonest best-before given to
    /// this ingredient's soonest (30 for one without a date): what goes off first weighs most.
    /// Ties by name. At most 500 entries.
    public var onHand: [OnHand]?
    /// 1-based; default 1.
    public var page: Int?
    /// 1–100; default 20.
    public var pageSize: Int?

    public init(
        query: String? = nil, ingredients: [String]? = nil, energyLevels: [Int]? = nil, dishType: DishType? = nil,
        profile: RecipeFilterProfile? = nil, useSavedProfile: Bool? = nil, switches: FilterSwitches? = nil, page: Int? = nil, pageSize: Int? = nil,
        tags: [String]? = nil, forHousehold: Bool? = nil, onHand: [OnHand]? = nil
    ) {
        self.onHand = onHand
        self.forHousehold = forHousehold
        self.tags = tags
        self.query = query
        self.ingredients = ingredients
        self.energyLevels = energyLevels
        self.dishType = dishType
        self.profile = profile
        self.useSavedProfile = useSavedProfile
        self.switches = switches
        self.page = page
        self.pageSize = pageSize
    }
}

/// Some of an ingredient the household has, as ``PantryItem`` gives it.
@MessagePackCodable
public struct OnHand: Codable, Equatable, Sendable {
    /// Catalog ingredient id, name or synonym.
    public var ingredient: String
    /// Above 0, at most 100 000.
    public var quantity: Double
    /// A unit the ingredient can be measured in.
    public var unit: MeasureUnit
    public var bestBefore: LocalDate?

    public init(ingredient: String, quantity: Double, unit: MeasureUnit, bestBefore: LocalDate? = nil) {
        self.ingredient = ingredient
        self.quantity = quantity
        self.unit = unit
        self.bestBefore = bestBefore
    }
}

/// How much of an ingredient on hand a recipe uses.
@MessagePackCodable
public struct OnHandUse: Codable, Equatable, Sendable {
    /// Ingredient id.
    public var ingredient: String
    public var name: String
    /// Of what is on hand, 0 to 1 (1: all of it, or more).
    public var share: Double

    public init(ingredient: String, name: String, share: Double) {
        self.ingredient = ingredient
        self.name = name
        self.share = share
    }

    /// "spinach (all of it)", "milk (40 %)": as clients show it.
    public var summary: String {
        share >= 1 ? "\(name) (all of it)" : "\(name) (\(max(1, Int((share * 100).rounded()))) %)"
    }
}

@MessagePackCodable
public struct RecipePage: Codable, Equatable, Sendable {
    public var recipes: [RecipeSummary]
    /// Matches, counted up to 200; see ``totalIsExact``.
    public var total: Int
    public var page: Int
    public var pageSize: Int
    /// False when there are more than ``total`` matches (counting stops at 200 to stay fast).
    public var totalIsExact: Bool
    /// What other members of the caller's household brought to the filter (a search for the
    /// household): each restriction the caller does not have, and whose it is. Empty for a
    /// person alone, a search for oneself, or a household whose members want the same.
    public var household: [HouseholdRestriction]?

    public init(recipes: [RecipeSummary], total: Int, page: Int, pageSize: Int, totalIsExact: Bool = true, household: [HouseholdRestriction]? = nil) {
        self.recipes = recipes
        self.total = total
        self.page = page
        self.pageSize = pageSize
        self.totalIsExact = totalIsExact
        self.household = household
    }
}

/// One member's diet, allergen or dislike that a search for the household applied.
@MessagePackCodable
public struct HouseholdRestriction: Codable, Equatable, Sendable {
    public var user: String
    /// The member's name, as the household shows it.
    public var name: String
    public var kind: RestrictionKind
    /// The diet, the allergen or the disliked ingredient's id.
    public var value: String

    public init(user: String, name: String, kind: RestrictionKind, value: String) {
        self.user = user
        self.name = name
        self.kind = kind
        self.value = value
    }
}

public enum RestrictionKind: String, Codable, Sendable, CaseIterable {
    case diet, allergen, dislike
}

extension HouseholdRestriction {
    /// "vegetarian only (Bob's diet)", "no milk (Bob's allergen)": as clients show it.
    public var summary: String {
        switch kind {
        case .diet: "\(value) only (\(name)'s diet)"
        case .allergen: "no \(value) (\(name)'s allergen)"
        case .dislike: "no \(value) (\(name)'s dislike)"
        }
    }
}

// MARK: - Requests by id

@MessagePackCodable
public struct RecipeLookup: Codable, Equatable, Sendable {
    public var id: String
    /// Scale quantities for this many people (1–50); default: the recipe's servings.
    public var people: Int?
    /// Also return the catalog ingredients the recipe uses (``RecipeDetail/ingredientFacts``).
    public var withIngredients: Bool?

    public init(id: String, people: Int? = nil, withIngredients: Bool? = nil) {
        self.id = id
        self.people = people
        self.withIngredients = withIngredients
    }
}

@MessagePackCodable
public struct RecipeID: Codable, Equatable, Sendable {
    public var id: String
    public init(id: String) { self.id = id }
}

@MessagePackCodable
public struct RecipeEdit: Codable, Equatable, Sendable {
    public var id: String
    public var changes: RecipeDraft

    public init(id: String, changes: RecipeDraft) {
        self.id = id
        self.changes = changes
    }
}

@MessagePackCodable
public struct RecipeList: Codable, Equatable, Sendable {
    public var recipes: [RecipeSummary]
    public init(recipes: [RecipeSummary]) { self.recipes = recipes }
}

@MessagePackCodable
public struct CommunityRecipe: Codable, Equatable, Sendable {
    public var recipe: RecipeSummary
    public var favoriteCount: Int
    /// The author's user id.
    public var sharedBy: String
    /// The author's display name; nil when the planner could not say (the id is all there is).
    public var sharedByName: String?

    public init(recipe: RecipeSummary, favoriteCount: Int, sharedBy: String, sharedByName: String? = nil) {
        self.recipe = recipe
        self.favoriteCount = favoriteCount
        self.sharedBy = sharedBy
        self.sharedByName = sharedByName
    }
}

@MessagePackCodable
public struct CommunityPage: Codable, Equatable, Sendable {
    public var recipes: [CommunityRecipe]
    public var total: Int

    public init(recipes: [CommunityRecipe], total: Int) {
        self.recipes = recipes
        self.total = total
    }
}

// MARK: - Sync

@MessagePackCodable
public struct ChangesSince: Codable, Equatable, Sendable {
    /// The catalog version the client has; 0 for everything.
    public var version: Int64
    public init(version: Int64) { self.version = version }
}

@MessagePackCodable
public struct CatalogChanges: Codable, Equatable, Sendable {
    /// The catalog's current version; pass it next time.
    public var version: Int64
    /// Recipes visible to the caller that changed after the given version.
    public var recipes: [RecipeDetail]
    /// Recipe ids the caller should forget (deleted, or shadowed by a personal version).
    public var deletedRecipes: [String]
    public var ingredients: [Ingredient]

    public init(version: Int64, recipes: [RecipeDetail], deletedRecipes: [String], ingredients: [Ingredient]) {
        self.version = version
        self.recipes = recipes
        self.deletedRecipes = deletedRecipes
        self.ingredients = ingredients
    }
}

@MessagePackCodable
public struct SeedReport: Codable, Equatable, Sendable {
    public var seedVersion: Int
    public var ingredients: Int
    public var recipes: Int
    public var catalogVersion: Int64

    public init(seedVersion: Int, ingredients: Int, recipes: Int, catalogVersion: Int64) {
        self.seedVersion = seedVersion
        self.ingredients = ingredients
        self.recipes = recipes
        self.catalogVersion = catalogVersion
    }
}

// MARK: - Events

/// Body of `catalog.recipe.*` events.
@MessagePackCodable
public struct RecipeEvent: Codable, Equatable, Sendable {
    public var recipe: String
    public var user: String?
    public var version: Int64

    public init(recipe: String, user: String?, version: Int64) {
        self.recipe = recipe
        self.user = user
        self.version = version
    }
}

// MARK: - Methods

public enum CatalogAPI {
    public static let searchIngredients = Method<Catalog, IngredientSearch, IngredientList>.read("ingredients.search", .user)
    /// Ingredients by id, in the order asked; notFound names the first unknown id.
    public static let getIngredients = Method<Catalog, IngredientIDs, IngredientList>.read("ingredients.get", .user, activity: false)

    public static let searchRecipes = Method<Catalog, RecipeSearch, RecipePage>.read("recipes.search", .user, lane: .heavy)
    public static let getRecipe = Method<Catalog, RecipeLookup, RecipeDetail>.read("recipes.get", .user)
    /// A recipe's photo; notFound (field `id`) for a recipe without one.
    public static let photo = Method<Catalog, RecipeID, RecipePhoto>.read("recipes.photo", .user)
    /// A draft's fields are optional (an edit sends only what changes); a new recipe needs a name and a summary.
    public static let createRecipe = Method<Catalog, RecipeDraft, RecipeDetail>.write(
        "recipes.create", .user, keyCheck: .atCommit, fields: FieldRule(required: ["name", "summary"]))
    public static let editRecipe = Method<Catalog, RecipeEdit, RecipeDetail>.write("recipes.edit", .user, keyCheck: .atCommit)
    public static let deleteRecipe = Method<Catalog, RecipeID, Empty>.write("recipes.delete", .user, keyCheck: .atCommit)
    public static let myRecipes = Method<Catalog, Empty, RecipeList>.read("recipes.mine", .user)

    public static let favorite = Method<Catalog, RecipeID, Empty>.write("recipes.favorite", .user, keyCheck: .atCommit)
    public static let unfavorite = Method<Catalog, RecipeID, Empty>.write("recipes.unfavorite", .user, keyCheck: .atCommit)
    public static let favorites = Method<Catalog, Empty, RecipeList>.read("recipes.favorites", .user)
    /// Marks a recipe as a favourite of the caller's household: every member sees it in
    /// `recipes.householdFavorites` (a member's private recipe only its owner).
    public static let favoriteForHousehold = Method<Catalog, RecipeID, Empty>.write(
        "recipes.favoriteForHousehold", .household, keyCheck: .atCommit)
    public static let unfavoriteForHousehold = Method<Catalog, RecipeID, Empty>.write(
        "recipes.unfavoriteForHousehold", .household, keyCheck: .atCommit)
    public static let householdFavorites = Method<Catalog, Empty, RecipeList>.read("recipes.householdFavorites", .household)

    public static let share = Method<Catalog, RecipeID, RecipeSummary>.write("recipes.share", .user, keyCheck: .atCommit)
    /// schema.org JSON-LD recipes into the caller's own; all of them or none.
    /// The mappings given are remembered for the user, and for their household when the planner
    /// answers (an import does not wait on it otherwise).
    public static let importRecipes = Method<Catalog, RecipeImport, RecipeImportReport>.write("recipes.import", .user, lane: .heavy)
    public static let mappings = Method<Catalog, Empty, RememberedMappings>.read("recipes.mappings", .user)
    public static let forgetMapping = Method<Catalog, ForgetMapping, Empty>.write("recipes.forgetMapping", .user, keyCheck: .atCommit)
    public static let community = Method<Catalog, RecipeSearch, CommunityPage>.read("recipes.community", .user, lane: .heavy)
    public static let saveCommunity = Method<Catalog, RecipeID, RecipeDetail>.write("recipes.save", .user, keyCheck: .atCommit)

    public static let changes = Method<Catalog, ChangesSince, CatalogChanges>.read("catalog.changes", .user, activity: false)
    /// Operator method: reloads the shipped seed data (built-in ingredients and recipes).
    public static let reloadSeed = Method<Catalog, Empty, SeedReport>.write("catalog.reloadSeed", .operator)
}

public enum CatalogTopics {
    public static let recipeCreated = Topic<RecipeEvent>("catalog.recipe.created")
    public static let recipeUpdated = Topic<RecipeEvent>("catalog.recipe.updated")
    public static let recipeDeleted = Topic<RecipeEvent>("catalog.recipe.deleted")
    public static let recipeShared = Topic<RecipeEvent>("catalog.recipe.shared")
}

// MARK: - Import

/// A batch of ingredients an operator imports (e.g. from USDA SR28); existing ids are updated.
@MessagePackCodable
public struct IngredientImport: Codable, Equatable, Sendable {
    /// Where they come from, e.g. "usda-sr28".
    public var source: String
    /// At most 1000 per call.
    public var ingredients: [Ingredient]

    public init(source: String, ingredients: [Ingredient]) {
        self.source = source
        self.ingredients = ingredients
    }
}

@MessagePackCodable
public struct ImportReport: Codable, Equatable, Sendable {
    public var imported: Int
    public var catalogVersion: Int64

    public init(imported: Int, catalogVersion: Int64) {
        self.imported = imported
        self.catalogVersion = catalogVersion
    }
}

extension CatalogAPI {
    /// Operator method: adds or updates ingredients in bulk.
    public static let importIngredients = Method<Catalog, IngredientImport, ImportReport>.write("ingredients.import", .operator)
}
