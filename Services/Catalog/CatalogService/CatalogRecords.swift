import Foundation
import GRDB
import SousRuntime
import SousSchema

// The catalog's tables as records: each names its columns once (`Columns`), reads a row by those
// names and writes itself with the same statements on SQLite and PostgreSQL (``SQLRecord``), so
// no statement lists two dozen placeholders by hand.

/// One row of the `recipe` table. Originals use their id as key; a personal version uses
/// "<id>@<owner>" (``RecipeKey``) so it can share the original's public id.
struct RecipeRecord: Sendable, Equatable, FetchableRecord {

    enum Columns {
        static let key = Column("key")
        static let id = Column("id")
        static let origin = Column("origin")
        static let owner = Column("owner")
        static let basedOn = Column("based_on")
        static let name = Column("name")
        static let summary = Column("summary")
        static let servings = Column("servings")
        static let prepMinutes = Column("prep_minutes")
        static let cookMinutes = Column("cook_minutes")
        static let energyLevel = Column("energy_level")
        static let equipment = Column("equipment")
        static let dishTypes = Column("dish_types")
        static let link = Column("link")
        static let image = Column("image")
        static let steps = Column("steps")
        static let diets = Column("diets")
        static let allergens = Column("allergens")
        static let contains = Column("contains")
        static let cost = Column("cost")
        static let costPerServing = Column("cost_per_serving")
        static let kcalPerServing = Column("kcal_per_serving")
        static let shared = Column("shared")
        static let deleted = Column("deleted")
        static let version = Column("version")
        static let createdAt = Column("created_at")
        static let notes = Column("notes")
        static let variations = Column("variations")
        static let tags = Column("tags")
        static let photoType = Column("photo_type")
        static let photoBytes = Column("photo_bytes")
    }

    /// Set once the row is in the database.
    var rowID: Int64?
    var key: RecipeKey
    var id: String
    var origin: RecipeOrigin
    var owner: String?
    var basedOn: String?
    var name: String
    var summary: String
    var servings: Int
    var prepMinutes: Int
    var cookMinutes: Int
    var energyLevel: Int
    var equipment: [Appliance]
    var dishTypes: [DishType]
    var link: String?
    var image: String?
    /// The steps as stored (JSON), decoded only when a recipe is shown or changed
    /// (``decodedSteps()``): a search page of summaries never needs them, and decoding them was
    /// most of a search's time on the shipped catalog.
    var stepsJSON: String
    var diets: [Diet]
    var allergens: [Allergen]
    var contains: [DietFact]
    var cost: Double
    var costPerServing: Double
    var kcalPerServing: Double
    var shared: Bool
    var deleted: Bool
    var version: Int64
    var createdAt: Date
    var notes: String?
    /// JSON, decoded only when a recipe is shown or changed.
    var variationsJSON: String
    var tags: [String]
    /// The photo's kind and size, nil without one (its bytes are in `recipe_photo`).
    var photo: RecipePhotoInfo?

    /// Every column of the record, qualified with a table alias, for joins written in SQL, and
    /// the row's creation order as `rowid` (SQLite's rowid, PostgreSQL's `rid`).
    static func columns(as alias: String, _ engine: SQLEngine) -> String {
        ([engine == .sqlite ? "\(alias).rowid" : "\(alias).rid AS rowid"] + Self.columnNames.map { "\(alias).\($0)" }).joined(separator: ", ")
    }

    static let columnNames = [
        Columns.key, Columns.id, Columns.origin, Columns.owner, Columns.basedOn, Columns.name, Columns.summary, Columns.servings,
        Columns.prepMinutes, Columns.cookMinutes, Columns.energyLevel, Columns.equipment, Columns.dishTypes, Columns.link, Columns.image,
        Columns.steps, Columns.diets, Columns.allergens, Columns.contains, Columns.cost, Columns.costPerServing, Columns.kcalPerServing,
        Columns.shared, Columns.deleted, Columns.version, Columns.createdAt, Columns.notes, Columns.variations, Columns.tags, Columns.photoType,
        Columns.photoBytes,
    ].map(\.name)

    /// A new or replacing row for a validated recipe and the facts derived from its ingredients.
    init(
        _ recipe: ValidRecipe, facts: DerivedRecipeFacts, key: RecipeKey, id: String, origin: RecipeOrigin, owner: String?, basedOn: String?,
        shared: Bool, version: Int64, createdAt: Date, photo: RecipePhotoInfo?
    ) throws {
        notes = recipe.notes
        variationsJSON = try JSONColumn.encode(recipe.variations)
        tags = recipe.tags
        self.photo = photo
        self.key = key
        self.id = id
        self.origin = origin
        self.owner = owner
        self.basedOn = basedOn
        name = recipe.name
        summary = recipe.summary
        servings = recipe.servings
        prepMinutes = recipe.prepMinutes
        cookMinutes = recipe.cookMinutes
        energyLevel = facts.energyLevel
        equipment = recipe.equipment
        dishTypes = recipe.dishTypes
        link = recipe.link
        image = recipe.image
        stepsJSON = try JSONColumn.encode(recipe.steps)
        diets = facts.diets
        allergens = facts.allergens
        contains = facts.contains
        cost = facts.cost
        costPerServing = facts.costPerServing
        kcalPerServing = facts.nutritionPerServing.kcal
        self.shared = shared
        deleted = false
        self.version = version
        self.createdAt = createdAt
    }

    init(row: Row) throws {
        func value<T: DatabaseValueConvertible>(_ column: Column) -> T { row[column] }
        rowID = value(Column.rowID)
        key = RecipeKey(rawValue: value(Columns.key))
        id = value(Columns.id)
        origin = RecipeOrigin(rawValue: value(Columns.origin)) ?? .custom
        owner = value(Columns.owner)
        basedOn = value(Columns.basedOn)
        name = value(Columns.name)
        summary = value(Columns.summary)
        servings = value(Columns.servings)
        prepMinutes = value(Columns.prepMinutes)
        cookMinutes = value(Columns.cookMinutes)
        energyLevel = value(Columns.energyLevel)
        equipment = Bitmask.values(value(Columns.equipment), as: Appliance.self)
        dishTypes = Bitmask.values(value(Columns.dishTypes), as: DishType.self)
        link = value(Columns.link)
        image = value(Columns.image)
        stepsJSON = value(Columns.steps)
        diets = Bitmask.values(value(Columns.diets), as: Diet.self)
        allergens = Bitmask.values(value(Columns.allergens), as: Allergen.self)
        contains = Bitmask.values(value(Columns.contains), as: DietFact.self)
        cost = value(Columns.cost)
        costPerServing = value(Columns.costPerServing)
        kcalPerServing = value(Columns.kcalPerServing)
        shared = value(Columns.shared)
        deleted = value(Columns.deleted)
        version = value(Columns.version)
        createdAt = Date(timeIntervalSince1970: value(Columns.createdAt))
        notes = value(Columns.notes)
        variationsJSON = value(Columns.variations)
        tags = Self.tags(stored: value(Columns.tags))
        photo = (value(Columns.photoType) as String?).map { RecipePhotoInfo(type: $0, bytes: value(Columns.photoBytes)) }
    }

    /// Tags as stored: "|a|b|", or "" for none.
    static func storedTags(_ tags: [String]) -> String { tags.isEmpty ? "" : "|" + tags.joined(separator: "|") + "|" }
    static func tags(stored: String) -> [String] { stored.split(separator: "|").map(String.init) }

    /// Values in the order of ``columnNames``.
    var values: SQLArguments {
        [
            key.rawValue, id, origin.rawValue, owner, basedOn, name, summary, servings, prepMinutes, cookMinutes, energyLevel, Bitmask.of(equipment),
            Bitmask.of(dishTypes), link, image, stepsJSON, Bitmask.of(diets), Bitmask.of(allergens), Bitmask.of(contains), cost, costPerServing,
            kcalPerServing, shared, deleted, version, createdAt.timeIntervalSince1970, notes, variationsJSON, Self.storedTags(tags), photo?.type,
            photo?.bytes ?? 0,
        ]
    }

    func summary(isFavorite: Bool) -> RecipeSummary {
        RecipeSummary(
            id: id, name: name, summary: summary, servings: servings, totalMinutes: prepMinutes + cookMinutes, energyLevel: energyLevel,
            diets: diets, allergens: allergens, equipment: equipment, dishTypes: dishTypes, kcalPerServing: kcalPerServing,
            costPerServing: costPerServing, origin: origin, owner: owner, isFavorite: isFavorite, tags: tags, hasPhoto: photo != nil
        )
    }

    func decodedSteps() throws -> [RecipeStep] {
        try JSONColumn.decode([RecipeStep].self, from: stepsJSON)
    }

    func decodedVariations() throws -> [String] {
        try JSONColumn.decode([String].self, from: variationsJSON)
    }

    /// The recipe as validated input, without its ingredient lines (read apart).
    func validRecipe() throws -> ValidRecipe {
        ValidRecipe(
            name: name, summary: summary, servings: servings, prepMinutes: prepMinutes, cookMinutes: cookMinutes, ingredients: [],
            steps: try decodedSteps(), equipment: equipment, dishTypes: dishTypes, link: link, image: image, notes: notes,
            variations: try decodedVariations(), tags: tags
        )
    }
}

/// One ingredient line of a recipe (`recipe_ingredient`), in the recipe's order.
struct RecipeLineRecord: Sendable, SQLRecord {
    static let tableName = "recipe_ingredient"
    static let primaryKey = ["recipe_key", "position"]
    static let columnNames = [
        Columns.recipeKey, Columns.position, Columns.ingredient, Columns.quantity, Columns.unit, Columns.use, Columns.eatenShare,
    ].map(\.name)

    enum Columns {
        static let recipeKey = Column("recipe_key")
        static let position = Column("position")
        static let ingredient = Column("ingredient_id")
        static let quantity = Column("quantity")
        static let unit = Column("unit")
        static let use = Column("purpose")
        static let eatenShare = Column("eaten_share")
    }

    var recipeKey: RecipeKey
    var position: Int
    var line: RecipeIngredient

    init(recipeKey: RecipeKey, position: Int, line: RecipeIngredient) {
        self.recipeKey = recipeKey
        self.position = position
        self.line = line
    }

    init(row: Row) {
        recipeKey = RecipeKey(rawValue: row[Columns.recipeKey])
        position = row[Columns.position]
        line = RecipeIngredient(
            ingredient: row[Columns.ingredient], quantity: row[Columns.quantity], unit: MeasureUnit(rawValue: row[Columns.unit]) ?? .g,
            use: IngredientUse(rawValue: row[Columns.use]) ?? .eaten, eatenShare: row[Columns.eatenShare]
        )
    }

    var values: SQLArguments {
        [recipeKey.rawValue, position, line.ingredient, line.quantity, line.unit.rawValue, line.use.rawValue, line.eatenShare]
    }
}

/// One row of the `ingredient` table: the ingredient as served, where it came from, the catalog
/// version that last changed it, and the folded forms search compares against.
struct IngredientRecord: Sendable, SQLRecord {
    static let tableName = "ingredient"
    static let primaryKey = ["id"]
    static let columnNames = [
        Columns.id, Columns.name, Columns.folded, Columns.usdaNdb, Columns.unit, Columns.gramsPerPiece, Columns.gramsPerMl, Columns.priceAmount,
        Columns.pricePer, Columns.category, Columns.kcal, Columns.carbohydrates, Columns.protein, Columns.fat, Columns.fibre, Columns.sugar,
        Columns.salt, Columns.contains, Columns.allergens, Columns.source, Columns.version, Columns.synonyms, Columns.foldedSynonyms, Columns.bought,
        Columns.priced, Columns.portions, Columns.factsDerived, Columns.packs,
    ].map(\.name)

    enum Columns {
        static let id = Column("id")
        static let name = Column("name")
        static let folded = Column("folded")
        static let usdaNdb = Column("usda_ndb")
        static let unit = Column("unit")
        static let gramsPerPiece = Column("grams_per_piece")
        static let gramsPerMl = Column("grams_per_ml")
        static let priceAmount = Column("price_amount")
        static let pricePer = Column("price_per")
        static let category = Column("category")
        static let kcal = Column("kcal")
        static let carbohydrates = Column("carbohydrates")
        static let protein = Column("protein")
        static let fat = Column("fat")
        static let fibre = Column("fibre")
        static let sugar = Column("sugar")
        static let salt = Column("salt")
        static let contains = Column("contains")
        static let allergens = Column("allergens")
        static let source = Column("source")
        static let version = Column("version")
        static let synonyms = Column("synonyms")
        static let foldedSynonyms = Column("folded_synonyms")
        static let bought = Column("bought")
        /// 0 when the ingredient has no price (price_amount and price_per are then ignored).
        static let priced = Column("priced")
        static let portions = Column("portions")
        static let factsDerived = Column("facts_derived")
        static let packs = Column("packs")
    }

    var ingredient: Ingredient
    var source: String
    var version: Int64

    init(_ ingredient: Ingredient, source: String, version: Int64) {
        self.ingredient = ingredient
        self.source = source
        self.version = version
    }

    /// From a row of `SELECT servedColumns, source, version`.
    init(row: Row) throws {
        ingredient = try Self.ingredient(row, engine: .postgres)
        source = row[Columns.source]
        version = row[Columns.version]
    }

    /// The ingredient of a row whose first columns are ``servedColumns``. SQLite's rows keep the
    /// query's order and are read by position (every ingredient is read on each start, and
    /// finding columns by name took most of that time); PostgreSQL's are built by name.
    static func ingredient(_ row: Row, engine: SQLEngine) throws -> Ingredient {
        let row = ServedRow(row: row, byName: engine != .sqlite)
        return try Ingredient(
            id: row.text(0), name: row.text(1), usdaNdb: row.optionalText(2), unit: MeasureUnit(rawValue: row.text(3)) ?? .g,
            gramsPerPiece: row.optionalNumber(4), gramsPerMl: row.optionalNumber(5),
            price: row.flag(20) ? Price(amount: row.number(6), per: PriceUnit(rawValue: row.text(7)) ?? .kg) : nil,
            category: ShoppingCategory(rawValue: row.text(8)) ?? .other,
            nutrition: Nutrition(
                kcal: row.number(9), carbohydrates: row.number(10), protein: row.number(11), fat: row.number(12), fibre: row.number(13),
                sugar: row.number(14), salt: row.number(15)),
            contains: Bitmask.values(row.integer(16), as: DietFact.self), allergens: Bitmask.values(row.integer(17), as: Allergen.self),
            synonyms: Self.synonyms(row.text(18)), bought: row.flag(19), portions: PortionColumn.decode(row.text(21)), factsDerived: row.flag(22),
            packs: PackSize.fromColumnText(row.text(23))
        )
    }

    /// A row's served columns by their place in ``served``: by position or by name.
    private struct ServedRow {
        let row: Row
        let byName: Bool

        private func value(_ index: Int) -> DatabaseValue {
            byName ? row[IngredientRecord.served[index].name] : row[index]
        }

        func text(_ index: Int) -> String { String.fromDatabaseValue(value(index)) ?? "" }
        func optionalText(_ index: Int) -> String? { String.fromDatabaseValue(value(index)) }
        func number(_ index: Int) -> Double { Double.fromDatabaseValue(value(index)) ?? 0 }
        func optionalNumber(_ index: Int) -> Double? { Double.fromDatabaseValue(value(index)) }
        func integer(_ index: Int) -> Int64 { Int64.fromDatabaseValue(value(index)) ?? 0 }
        func flag(_ index: Int) -> Bool { integer(index) != 0 }
    }

    /// Most ingredients have no synonyms: their "[]" is not handed to a JSON decoder (every
    /// ingredient is read on each start).
    static func synonyms(_ text: String) throws -> [String] {
        text == "[]" ? [] : try JSONColumn.decode([String].self, from: text)
    }

    /// The columns an ingredient is served with, in the order ``ingredient(_:)`` reads them.
    static let served = [
        Columns.id, Columns.name, Columns.usdaNdb, Columns.unit, Columns.gramsPerPiece, Columns.gramsPerMl, Columns.priceAmount, Columns.pricePer,
        Columns.category, Columns.kcal, Columns.carbohydrates, Columns.protein, Columns.fat, Columns.fibre, Columns.sugar, Columns.salt,
        Columns.contains, Columns.allergens, Columns.synonyms, Columns.bought, Columns.priced, Columns.portions, Columns.factsDerived,
        Columns.packs,
    ]

    /// `ingredient` as a read gives it back: what it contains and its allergens in their bit
    /// masks' order, each once. A seed file or an import may list them in any order, and an
    /// ingredient compared unnormalized would look changed on every reload.
    static func asStored(_ ingredient: Ingredient) -> Ingredient {
        var stored = ingredient
        stored.contains = Bitmask.values(Bitmask.of(ingredient.contains), as: DietFact.self)
        stored.allergens = Bitmask.values(Bitmask.of(ingredient.allergens), as: Allergen.self)
        return stored
    }

    /// ``served`` for reads written in SQL.
    static let servedColumns = served.map(\.name).joined(separator: ", ")

    var values: SQLArguments {
        let n = ingredient.nutrition
        // "|a|b|" so a LIKE '%|name|%' finds a whole synonym.
        let foldedSynonyms = ingredient.synonyms.isEmpty ? "" : "|" + ingredient.synonyms.map(folded).joined(separator: "|") + "|"
        return [
            ingredient.id, ingredient.name, folded(ingredient.name), ingredient.usdaNdb, ingredient.unit.rawValue, ingredient.gramsPerPiece,
            ingredient.gramsPerMl, ingredient.price?.amount ?? 0, (ingredient.price?.per ?? .kg).rawValue, ingredient.category.rawValue, n.kcal,
            n.carbohydrates, n.protein, n.fat, n.fibre, n.sugar, n.salt, Bitmask.of(ingredient.contains), Bitmask.of(ingredient.allergens), source,
            version, (try? JSONColumn.encode(ingredient.synonyms)) ?? "[]", foldedSynonyms, ingredient.bought, ingredient.price != nil,
            PortionColumn.encode(ingredient.portions), ingredient.factsDerived, PackSize.columnText(ingredient.packs),
        ]
    }
}

extension Ingredient {
    /// What recipe search indexes for this ingredient: its name and synonyms.
    var searchText: String { ([name] + synonyms).joined(separator: " ") }
}

/// Portions as text, one a line: "amount|grams|name" ("1|160|cup, chopped"). A name holds no "|"
/// or line break (validated). Read for every ingredient on each start: cheaper than JSON.
enum PortionColumn {
    static func encode(_ portions: [Portion]) -> String {
        portions.map { "\($0.amount)|\($0.grams)|\($0.name)" }.joined(separator: "\n")
    }

    static func decode(_ text: String) -> [Portion] {
        guard !text.isEmpty else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "|", maxSplits: 2)
            guard fields.count == 3, let amount = Double(fields[0]), let grams = Double(fields[1]) else { return nil }
            return Portion(amount: amount, name: String(fields[2]), grams: grams)
        }
    }
}

/// Lowercased and without diacritics, so "Crème" is found by "creme".
func folded(_ text: String) -> String {
    text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
}

/// The words full-text search sees in `text`: its runs of letters and digits, as FTS5's
/// tokenizer and PostgreSQL's parser split them.
func searchWords(_ text: String) -> [Substring] {
    text.split { !$0.isLetter && !$0.isNumber }
}
