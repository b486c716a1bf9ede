public import Foundation
public import MessagePack
public import SousWire

// Taking everything with you: each service exports what it keeps for the caller as one part and
// imports such a part into an empty account (`<service>.export` / `<service>.import`); `sous
// export` puts the five parts in one archive (``SousArchive``) and `sous import` restores it.

/// The layout of the archive and of every part. A part or archive of a newer version is
/// refused (badRequest naming `version`): an older Sous cannot know what it would drop.
public enum ArchiveFormat {
    public static let version = 1

    /// badRequest naming `field` unless `version` is one this Sous reads.
    public static func check(_ version: Int, field: String = "archive.version") throws(ServiceError) {
        guard version <= Self.version else {
            throw .badRequest("the archive is from a newer Sous (version \(version); this one reads up to \(Self.version))", field: field)
        }
        guard version >= 1 else { throw .badRequest("archive version \(version) is not one Sous wrote", field: field) }
    }
}

/// What `sous export` writes: every part, with who and when. JSON on disk (bytes as base64).
public struct SousArchive: Codable, Equatable, Sendable {
    /// Always "sous-archive": what the file is.
    public var format: String
    public var version: Int
    public var exportedAt: Date
    public var user: String
    public var catalog: CatalogArchive
    public var planner: PlannerArchive
    public var groceries: GroceriesArchive
    public var tracker: TrackerArchive
    public var notifier: NotifierArchive

    public static let formatName = "sous-archive"

    public init(
        exportedAt: Date, user: String, catalog: CatalogArchive, planner: PlannerArchive, groceries: GroceriesArchive, tracker: TrackerArchive,
        notifier: NotifierArchive, version: Int = ArchiveFormat.version
    ) {
        format = Self.formatName
        self.version = version
        self.exportedAt = exportedAt
        self.user = user
        self.catalog = catalog
        self.planner = planner
        self.groceries = groceries
        self.tracker = tracker
        self.notifier = notifier
    }

    /// The parts after the catalog and the tracker gave some records new ids on import:
    /// references to recipes (plan, list, orders, diary sources) and to diary entries (cooked
    /// slots) follow them.
    public func remapped(recipes: [String: String], entries: [Int64: Int64]) -> SousArchive {
        var archive = self
        func recipe(_ id: String) -> String { recipes[id] ?? id }
        archive.tracker.entries = tracker.entries.map { entry in
            var entry = entry
            if entry.source.kind == .recipe, let reference = entry.source.reference { entry.source.reference = recipe(reference) }
            return entry
        }
        archive.planner.selection = planner.selection.map { ArchivedSelection(recipe: recipe($0.recipe), name: $0.name, addedAt: $0.addedAt) }
        archive.planner.slots = planner.slots.map { slot in
            var slot = slot
            slot.recipe = slot.recipe.map(recipe)
            slot.diaryEntry = slot.diaryEntry.flatMap { entries[$0] }
            return slot
        }
        archive.groceries.recipes = groceries.recipes.map { listed in
            var listed = listed
            listed.recipe = recipe(listed.recipe)
            return listed
        }
        archive.groceries.orders = groceries.orders.map { order in
            var order = order
            order.recipes = order.recipes.map(recipe)
            return order
        }
        return archive
    }
}

/// How many records an import wrote, by kind ("recipes": 3, "entries": 120).
@MessagePackCodable
public struct ArchiveImported: Codable, Equatable, Sendable {
    public var counts: [String: Int]
    /// Records that got a new id (the old one was taken): recipe ids, for the parts after.
    public var renamedRecipes: [String: String]
    /// Diary entries: their id in the archive and their new one, for the plan's cooked slots.
    public var entries: [RenumberedEntry]
    /// What was left out, one sentence each (e.g. a favorite whose recipe no longer exists).
    public var skipped: [String]
    /// Coeliac journal entries: their id in the archive and their new one, to attach photos to.
    public var journal: [RenumberedEntry]?

    public init(
        counts: [String: Int], renamedRecipes: [String: String] = [:], entries: [RenumberedEntry] = [], skipped: [String] = [],
        journal: [RenumberedEntry]? = nil
    ) {
        self.counts = counts
        self.renamedRecipes = renamedRecipes
        self.entries = entries
        self.skipped = skipped
        self.journal = journal
    }
}

@MessagePackCodable
public struct RenumberedEntry: Codable, Equatable, Sendable {
    public var from: Int64
    public var to: Int64

    public init(from: Int64, to: Int64) {
        self.from = from
        self.to = to
    }
}

// MARK: - Catalog

@MessagePackCodable
public struct ArchivedRecipe: Codable, Equatable, Sendable {
    public var id: String
    /// custom, personal (of `basedOn`) or saved (from `basedOn`).
    public var origin: RecipeOrigin
    public var basedOn: String?
    public var shared: Bool
    /// Everything the recipe holds. `catalog.export` leaves the photo's bytes out (they travel
    /// apart, with `recipes.photo`, so that every answer fits in a message); an archive file
    /// holds them, and an import takes them here or attaches them after (`recipes.edit`).
    public var draft: RecipeDraft
    /// The photo's kind and size when the recipe has one: `catalog.export` says so here.
    public var photo: RecipePhotoInfo?

    public init(id: String, origin: RecipeOrigin, basedOn: String?, shared: Bool, draft: RecipeDraft, photo: RecipePhotoInfo? = nil) {
        self.id = id
        self.origin = origin
        self.basedOn = basedOn
        self.shared = shared
        self.draft = draft
        self.photo = photo
    }
}

@MessagePackCodable
public struct CatalogArchive: Codable, Equatable, Sendable {
    public var version: Int
    /// The caller's own recipes, by id.
    public var recipes: [ArchivedRecipe]
    /// Favorite recipe ids, sorted.
    public var favorites: [String]
    /// The household's favourites (every member exports them), sorted. An import writes them
    /// into a household that has none yet, and lists them in `skipped` otherwise.
    public var householdFavorites: [String]?
    /// What the user (`household: false`) and their household told imports ingredient lines
    /// mean. An import writes the user's, and the household's into a household that has none yet.
    public var mappings: [RememberedMapping]?

    public init(
        version: Int = ArchiveFormat.version, recipes: [ArchivedRecipe], favorites: [String], householdFavorites: [String]? = nil,
        mappings: [RememberedMapping]? = nil
    ) {
        self.version = version
        self.recipes = recipes
        self.favorites = favorites
        self.householdFavorites = householdFavorites
        self.mappings = mappings
    }
}

@MessagePackCodable
public struct CatalogArchiveImport: Codable, Equatable, Sendable {
    public var archive: CatalogArchive
    /// Check everything and write nothing.
    public var dryRun: Bool?

    public init(archive: CatalogArchive, dryRun: Bool? = nil) {
        self.archive = archive
        self.dryRun = dryRun
    }
}

// MARK: - Planner

@MessagePackCodable
public struct ArchivedSelection: Codable, Equatable, Sendable {
    public var recipe: String
    public var name: String
    public var addedAt: Date

    public init(recipe: String, name: String, addedAt: Date) {
        self.recipe = recipe
        self.name = name
        self.addedAt = addedAt
    }
}

@MessagePackCodable
public struct PlannerArchive: Codable, Equatable, Sendable {
    public var version: Int
    public var profile: CookingProfile
    public var selection: [ArchivedSelection]
    /// Every filled slot, past days included, by date and slot.
    public var slots: [PlanSlot]
    /// The exporter's friends and what they share, for the record. An import restores only the
    /// settings (sharing with all friends, competitive mode): a friendship needs the other
    /// person's consent again.
    public var friends: FriendList?
    /// The household's week templates with their repeats (nil in archives from before them).
    public var templates: [PlanTemplate]?

    public init(
        version: Int = ArchiveFormat.version, profile: CookingProfile, selection: [ArchivedSelection], slots: [PlanSlot], friends: FriendList? = nil,
        templates: [PlanTemplate]? = nil
    ) {
        self.version = version
        self.profile = profile
        self.selection = selection
        self.slots = slots
        self.friends = friends
        self.templates = templates
    }
}

@MessagePackCodable
public struct PlannerArchiveImport: Codable, Equatable, Sendable {
    public var archive: PlannerArchive
    public var dryRun: Bool?

    public init(archive: PlannerArchive, dryRun: Bool? = nil) {
        self.archive = archive
        self.dryRun = dryRun
    }
}

// MARK: - Groceries

@MessagePackCodable
public struct ArchivedListLine: Codable, Equatable, Sendable {
    public var ingredient: String
    public var quantity: Double
    public var unit: MeasureUnit
    public var excluded: Bool

    public init(ingredient: String, quantity: Double, unit: MeasureUnit, excluded: Bool) {
        self.ingredient = ingredient
        self.quantity = quantity
        self.unit = unit
        self.excluded = excluded
    }
}

/// A recipe on the list with the lines it was listed with (its snapshot).
@MessagePackCodable
public struct ArchivedListRecipe: Codable, Equatable, Sendable {
    public var recipe: String
    public var name: String
    public var multiplier: Int
    public var people: Int
    public var servings: Int
    public var addedAt: Date
    public var lines: [ArchivedListLine]

    public init(recipe: String, name: String, multiplier: Int, people: Int, servings: Int, addedAt: Date, lines: [ArchivedListLine]) {
        self.recipe = recipe
        self.name = name
        self.multiplier = multiplier
        self.people = people
        self.servings = servings
        self.addedAt = addedAt
        self.lines = lines
    }
}

/// An item added by hand: an ingredient with a quantity, or a text with an optional count.
@MessagePackCodable
public struct ArchivedListItem: Codable, Equatable, Sendable {
    public var ingredient: String?
    public var quantity: Double?
    public var unit: MeasureUnit?
    public var text: String?
    public var count: Int?
    public var addedAt: Date
    /// Checked off (a text item's own line).
    public var checked: Bool

    public init(
        ingredient: String?, quantity: Double?, unit: MeasureUnit?, text: String?, count: Int?, addedAt: Date, checked: Bool
    ) {
        self.ingredient = ingredient
        self.quantity = quantity
        self.unit = unit
        self.text = text
        self.count = count
        self.addedAt = addedAt
        self.checked = checked
    }
}

@MessagePackCodable
public struct GroceriesArchive: Codable, Equatable, Sendable {
    public var version: Int
    public var recipes: [ArchivedListRecipe]
    public var items: [ArchivedListItem]
    /// Ingredient lines checked off, by ingredient id.
    public var checkedIngredients: [String]
    /// Past orders, oldest first.
    public var orders: [GroceryOrder]
    /// The household's pantry (nil in archives from before it).
    public var pantry: Pantry?

    public init(
        version: Int = ArchiveFormat.version, recipes: [ArchivedListRecipe], items: [ArchivedListItem], checkedIngredients: [String],
        orders: [GroceryOrder], pantry: Pantry? = nil
    ) {
        self.pantry = pantry
        self.version = version
        self.recipes = recipes
        self.items = items
        self.checkedIngredients = checkedIngredients
        self.orders = orders
    }
}

@MessagePackCodable
public struct GroceriesArchiveImport: Codable, Equatable, Sendable {
    public var archive: GroceriesArchive
    public var dryRun: Bool?

    public init(archive: GroceriesArchive, dryRun: Bool? = nil) {
        self.archive = archive
        self.dryRun = dryRun
    }
}

// MARK: - Tracker

@MessagePackCodable
public struct ArchivedGoals: Codable, Equatable, Sendable {
    public var from: LocalDate
    public var goals: Goals

    public init(from: LocalDate, goals: Goals) {
        self.from = from
        self.goals = goals
    }
}

@MessagePackCodable
public struct ArchivedDrinks: Codable, Equatable, Sendable {
    public var date: LocalDate
    public var water: Int
    public var coffee: Int

    public init(date: LocalDate, water: Int, coffee: Int) {
        self.date = date
        self.water = water
        self.coffee = coffee
    }
}

@MessagePackCodable
public struct TrackerArchive: Codable, Equatable, Sendable {
    public var version: Int
    /// The diary, oldest first.
    public var entries: [DiaryEntry]
    public var goals: [ArchivedGoals]
    public var drinks: [ArchivedDrinks]
    public var foods: [SavedFood]
    /// Products the caller added.
    public var products: [Product]
    /// Journal entries. `tracker.export` leaves each photo's bytes out (an entry with
    /// `hasPhoto` has one: `journal.get` answers it), so that every answer fits in a message; an
    /// archive file holds them, and an import takes them here or attaches them after
    /// (`journal.edit`), counting `photoBytes` against the quota when they are not here.
    public var journal: [JournalEntryDetail]
    public var gluten: [GlutenDay]
    public var badges: [GlutenBadge]

    public init(
        version: Int = ArchiveFormat.version, entries: [DiaryEntry], goals: [ArchivedGoals], drinks: [ArchivedDrinks], foods: [SavedFood],
        products: [Product], journal: [JournalEntryDetail], gluten: [GlutenDay], badges: [GlutenBadge]
    ) {
        self.version = version
        self.entries = entries
        self.goals = goals
        self.drinks = drinks
        self.foods = foods
        self.products = products
        self.journal = journal
        self.gluten = gluten
        self.badges = badges
    }
}

@MessagePackCodable
public struct TrackerArchiveImport: Codable, Equatable, Sendable {
    public var archive: TrackerArchive
    public var dryRun: Bool?

    public init(archive: TrackerArchive, dryRun: Bool? = nil) {
        self.archive = archive
        self.dryRun = dryRun
    }
}

// MARK: - Notifier

@MessagePackCodable
public struct NotifierArchive: Codable, Equatable, Sendable {
    public var version: Int
    /// Every reminder outcome, oldest first.
    public var log: [ReminderLogEntry]

    public init(version: Int = ArchiveFormat.version, log: [ReminderLogEntry]) {
        self.version = version
        self.log = log
    }
}

@MessagePackCodable
public struct NotifierArchiveImport: Codable, Equatable, Sendable {
    public var archive: NotifierArchive
    public var dryRun: Bool?

    public init(archive: NotifierArchive, dryRun: Bool? = nil) {
        self.archive = archive
        self.dryRun = dryRun
    }
}

// MARK: - Methods

extension CatalogAPI {
    public static let exportArchive = Method<Catalog, Empty, CatalogArchive>.read("catalog.export", .household, lane: .heavy)
    public static let importArchive = Method<Catalog, CatalogArchiveImport, ArchiveImported>.write("catalog.import", .household, lane: .heavy)
}

extension PlannerAPI {
    public static let exportArchive = Method<Planner, Empty, PlannerArchive>.read("planner.export", .household, lane: .heavy)
    public static let importArchive = Method<Planner, PlannerArchiveImport, ArchiveImported>.write("planner.import", .household, lane: .heavy)
}

extension GroceriesAPI {
    public static let exportArchive = Method<Groceries, Empty, GroceriesArchive>.read("groceries.export", .household, lane: .heavy)
    public static let importArchive = Method<Groceries, GroceriesArchiveImport, ArchiveImported>.write("groceries.import", .household, lane: .heavy)
}

extension TrackerAPI {
    public static let exportArchive = Method<Tracker, Empty, TrackerArchive>.read("tracker.export", .user, lane: .heavy)
    public static let importArchive = Method<Tracker, TrackerArchiveImport, ArchiveImported>.write("tracker.import", .user, lane: .heavy)
}

extension NotifierAPI {
    public static let exportArchive = Method<Notifier, Empty, NotifierArchive>.read("notifier.export", .user, lane: .heavy)
    public static let importArchive = Method<Notifier, NotifierArchiveImport, ArchiveImported>.write("notifier.import", .user, lane: .heavy)
}
