import Foundation
public import Logging
public import SousFetch
import SousInterchange
public import SousRuntime
public import SousSchema
import SousUnits
public import SousWire

/// The catalog service: its store, its host (server + publisher) and the planner client it
/// reads saved cooking profiles with.
public struct CatalogService: Sendable {
    public let host: ServiceHost
    public let store: CatalogStore
    /// Users' saved cooking profiles, as the planner last announced them.
    public let profiles: PeerValueCache<Planner, CookingProfile>
    /// Users' households (whose profiles a search for the household joins), dropped when the
    /// planner announces a change to one of its members.
    public let households: PeerValueCache<Planner, HouseholdInfo>

    /// Builds the catalog from `configuration`: opens the database, loads the shipped seed data
    /// on first start (or when a newer version ships), binds the sockets and registers methods.
    /// `database` replaces the one the configuration names (tests pass a seeded one).
    /// `fetchPolicy` says what `recipes.import` may fetch from the web (public addresses only
    /// unless it allows more). A `database` that is a copy of `template`'s starts with its
    /// ingredients in memory.
    public init(
        configuration: ServiceConfiguration, seed: SeedData? = nil, logger: Logger? = nil, database: SousDatabase? = nil,
        copyOf template: CatalogStore? = nil, fetchPolicy: FetchPolicy = FetchPolicy()
    ) throws {
        let logger = logger ?? SousLogging.logger(for: "catalog", level: configuration.logLevel)
        let database = try database ?? Self.openDatabase(at: configuration.database, logger: logger)
        let store = try CatalogStore(database: database, copyOf: template)
        let seed = try seed ?? SeedData.bundled()
        if let report = try store.loadSeedIfNeeded(seed) {
            logger.info(
                "loaded seed data",
                metadata: ["ingredients": "\(report.ingredients)", "recipes": "\(report.recipes)", "seedVersion": "\(report.seedVersion)"])
        }
        // A default search filters by the saved profile: kept here, current with the planner's
        // changes, so the search makes no round trip.
        let profiles = PeerValueCache(
            PlannerAPI.getProfile, changedBy: PlannerTopics.profileChanged, change: { ($0.user, $0.profile) }, configuration: configuration,
            logger: logger)
        let households = PeerValueCache(
            HouseholdAPI.get, changes: [.dropped(by: HouseholdTopics.changed, users: \.users)], configuration: configuration, logger: logger)
        let host = try ServiceHost(configuration: configuration, logger: logger, database: database, services: [profiles, households])
        let householdDirectory = PlannerHouseholds(of: configuration)
        host.server.useHouseholds(householdDirectory)
        self.host = host
        self.store = store
        self.profiles = profiles
        self.households = households
        CatalogHandlers(
            host: host.parts, store: store, profiles: profiles, households: households, seed: seed, tracker: Peer(Tracker.self, of: configuration),
            groceries: Peer(Groceries.self, of: configuration), planner: Peer(Planner.self, of: configuration),
            pages: RecipePages(policy: fetchPolicy), householdDirectory: householdDirectory
        ).register(on: host.server)
    }

    /// Opens (creating and migrating as needed) the catalog database at `location`.
    public static func openDatabase(at location: DatabaseLocation, logger: Logger) throws -> SousDatabase {
        try SousDatabase(name: "catalog", location: location, schema: CatalogMigrations.schema, logger: logger)
    }
}

/// The catalog's methods: validate, call the store, publish events (the runtime records activity).
struct CatalogHandlers: Sendable {
    let host: HostParts
    let store: CatalogStore
    let profiles: PeerValueCache<Planner, CookingProfile>
    let households: PeerValueCache<Planner, HouseholdInfo>
    let seed: SeedData
    /// What is left of a user's day, for suggestions.
    let tracker: Peer<Tracker>
    /// A user's grocery list, for suggestions (optional: they are ranked without it).
    let groceries: Peer<Groceries>
    /// Authors' display names, for the community page (optional: ids stand in).
    let planner: Peer<Planner>
    /// Recipe pages on the web, for `recipes.import` with a url.
    let pages: RecipePages
    /// Whose household a user is in, asked of the planner on each call (household methods use it too).
    let householdDirectory: PlannerHouseholds

    /// The route table: every method the catalog serves and the function that answers it.
    func register(on server: RPCServer) {
        server.register(CatalogAPI.searchIngredients, use: searchIngredients)
        server.register(CatalogAPI.getIngredients, use: getIngredients)
        server.register(CatalogAPI.importIngredients, use: importIngredients)
        server.register(CatalogAPI.searchRecipes, use: searchRecipes)
        server.register(CatalogAPI.getRecipe, use: getRecipe)
        server.register(CatalogAPI.suggest, use: suggest)
        server.register(CatalogAPI.photo, use: photo)
        server.register(CatalogAPI.createRecipe, use: createRecipe)
        server.register(CatalogAPI.importRecipes, use: importRecipes)
        server.register(CatalogAPI.editRecipe, use: editRecipe)
        server.register(CatalogAPI.deleteRecipe, use: deleteRecipe)
        server.register(CatalogAPI.myRecipes, use: myRecipes)
        server.register(CatalogAPI.favorite, use: favorite)
        server.register(CatalogAPI.unfavorite, use: unfavorite)
        server.register(CatalogAPI.favorites, use: favorites)
        server.register(CatalogAPI.favoriteForHousehold, use: favoriteForHousehold)
        server.register(CatalogAPI.unfavoriteForHousehold, use: unfavoriteForHousehold)
        server.register(CatalogAPI.householdFavorites, use: householdFavorites)
        server.register(CatalogAPI.mappings, use: mappings)
        server.register(CatalogAPI.forgetMapping, use: forgetMapping)
        server.register(CatalogAPI.share, use: share)
        server.register(CatalogAPI.community, use: community)
        server.register(CatalogAPI.saveCommunity, use: saveCommunity)
        server.register(CatalogAPI.changes, use: changes)
        server.register(CatalogAPI.reloadSeed, use: reloadSeed)
        server.register(CatalogAPI.exportArchive, use: exportArchive)
        server.register(CatalogAPI.importArchive, use: importArchive)
    }

    // MARK: Ingredients

    func searchIngredients(_ request: IngredientSearch, context: RequestContext) throws -> IngredientList {
        IngredientList(ingredients: try store.searchIngredients(request))
    }

    func getIngredients(_ request: IngredientIDs, context: RequestContext) throws -> IngredientList {
        IngredientList(ingredients: try store.ingredients(request.ids))
    }

    func importIngredients(_ request: IngredientImport, context: RequestContext) throws -> ImportReport {
        guard request.ingredients.count <= 1000 else { throw ServiceError.badRequest("at most 1000 ingredients per call", field: "ingredients") }
        try IngredientValidation.validate(request.ingredients)
        let version = try store.importIngredients(request.ingredients, source: request.source)
        return ImportReport(imported: request.ingredients.count, catalogVersion: version)
    }

    // MARK: Recipes

    func searchRecipes(_ request: RecipeSearch, user: String, context: RequestContext) async throws -> RecipePage {
        let filter = try await resolveFilter(request, user: user, context: context)
        var page = try store.searchRecipes(request, user: user, filter: filter.map { ($0.profile, $0.switches) })
        if let restrictions = filter?.household, !restrictions.isEmpty { page.household = restrictions }
        return page
    }

    func getRecipe(_ request: RecipeLookup, context: RequestContext) throws -> RecipeDetail {
        try store.recipe(request.id, user: context.user, people: request.people, withIngredients: request.withIngredients == true)
    }

    func photo(_ request: RecipeID, context: RequestContext) throws -> RecipePhoto {
        try store.photo(request.id, user: context.user)
    }

    /// Reads what is left of the day from the tracker (required) and the grocery list
    /// (optional), then scores the recipes passing the filter that come closest in kcal.
    func suggest(_ request: RecipeSuggestionRequest, user: String, context: RequestContext) async throws -> RecipeSuggestions {
        let meals = request.meals ?? 1
        guard (1...6).contains(meals) else { throw ServiceError.badRequest("meals must be 1 to 6, got \(meals)", field: "meals") }
        let limit = request.limit ?? 5
        guard (1...20).contains(limit) else { throw ServiceError.badRequest("limit must be 1 to 20, got \(limit)", field: "limit") }
        // Suggestions fit what is left of the caller's own day: their own filter.
        let search = RecipeSearch(profile: request.profile, useSavedProfile: request.profile == nil, switches: request.switches, forHousehold: false)
        let filter = try await resolveFilter(search, user: user, context: context).map { ($0.profile, $0.switches) }
        let day = try await tracker.call(TrackerAPI.summary, DayRequest(date: request.date), user: user, for: context)
        var onList: [String: String]?
        do {
            let list = try await groceries.call(GroceriesAPI.list, Empty(), user: user, for: context, need: .optional)
            onList = Dictionary(
                list.lines.compactMap { line in line.checked ? nil : line.ingredient.map { ($0, line.name) } },
                uniquingKeysWith: { first, _ in first })
        } catch {
            context.logger.warning("suggestions ranked without the grocery list", metadata: ["error": "\(error)"])
        }
        let suggester = RecipeSuggester(
            goals: day.goals, remaining: day.remaining, meals: meals, groceryList: onList,
            filterDescription: filter.flatMap { RecipeSuggester.describe($0, saved: request.profile == nil) })
        // A meal is a main course unless the caller asks for another dish type.
        let dishType = request.dishType ?? .mainCourse
        guard day.remaining.kcal > 0 else {
            return RecipeSuggestions(
                date: day.day.date, remaining: day.remaining, target: suggester.target, suggestions: [], considered: 0,
                groceryListRead: onList != nil,
                explanation: "\(day.day.date)'s kcal goal is reached (\((-day.remaining.kcal).roundedInt) kcal over): no meal fits what is left")
        }
        let candidates = try store.suggestionCandidates(
            user: user, filter: filter, dishType: dishType, kcal: suggester.target.kcal, limit: RecipeSuggestions.maxConsidered)
        return RecipeSuggestions(
            date: day.day.date, remaining: day.remaining, target: suggester.target, suggestions: suggester.rank(candidates, limit: limit),
            considered: candidates.count, groceryListRead: onList != nil,
            explanation: candidates.isEmpty
                ? "no \(dishType.rawValue) \(filter.flatMap { RecipeSuggester.describe($0, saved: request.profile == nil) } ?? "is in the catalog")"
                : nil)
    }

    func createRecipe(_ request: RecipeDraft, user: String, context: RequestContext) throws -> RecipeDetail {
        let recipe = try store.create(request, user: user)
        publish(CatalogTopics.recipeCreated, recipe: recipe.id, user: user, version: recipe.version)
        return recipe
    }

    func importRecipes(_ request: RecipeImport, user: String, context: RequestContext) async throws -> RecipeImportReport {
        let recipes: [SchemaRecipe]
        var photos: [String: Data] = [:]
        switch (request.document, request.url) {
        case (let document?, nil):
            recipes = try CatalogStore.recipes(fromDocument: document)
        case (nil, let url?):
            (recipes, photos) = try await pages.recipes(at: url)
        default:
            throw ServiceError.badRequest("give the JSON-LD document or the page's url, one of them", field: "document")
        }
        let household = await householdIfKnown(of: user, context: context)
        let report = try store.importRecipes(recipes, mappings: request.mappings ?? [:], photos: photos, user: user, household: household)
        if !report.imported.isEmpty {
            let version = try store.catalogVersion
            for recipe in report.imported { publish(CatalogTopics.recipeCreated, recipe: recipe.id, user: user, version: version) }
        }
        return report
    }

    func editRecipe(_ request: RecipeEdit, user: String, context: RequestContext) throws -> RecipeDetail {
        let recipe = try store.edit(request.id, changes: request.changes, user: user)
        publish(CatalogTopics.recipeUpdated, recipe: recipe.id, user: user, version: recipe.version)
        return recipe
    }

    func deleteRecipe(_ request: RecipeID, user: String, context: RequestContext) throws -> Empty {
        let version = try store.delete(request.id, user: user)
        publish(CatalogTopics.recipeDeleted, recipe: request.id, user: user, version: version)
        return Empty()
    }

    func myRecipes(_ request: Empty, user: String, context: RequestContext) throws -> RecipeList {
        RecipeList(recipes: try store.myRecipes(user: user))
    }

    // MARK: Favorites and the community

    func favorite(_ request: RecipeID, user: String, context: RequestContext) throws -> Empty {
        try store.setFavorite(request.id, user: user, favorite: true)
        return Empty()
    }

    func unfavorite(_ request: RecipeID, user: String, context: RequestContext) throws -> Empty {
        try store.setFavorite(request.id, user: user, favorite: false)
        return Empty()
    }

    func favorites(_ request: Empty, user: String, context: RequestContext) throws -> RecipeList {
        RecipeList(recipes: try store.favorites(user: user))
    }

    func favoriteForHousehold(_ request: RecipeID, context: RequestContext) throws -> Empty {
        try store.setHouseholdFavorite(request.id, household: try context.requireHousehold(), user: try context.requireUser(), favorite: true)
        return Empty()
    }

    func unfavoriteForHousehold(_ request: RecipeID, context: RequestContext) throws -> Empty {
        try store.setHouseholdFavorite(request.id, household: try context.requireHousehold(), user: try context.requireUser(), favorite: false)
        return Empty()
    }

    func mappings(_ request: Empty, user: String, context: RequestContext) async throws -> RememberedMappings {
        try store.rememberedMappings(user: user, household: await householdIfKnown(of: user, context: context))
    }

    func forgetMapping(_ request: ForgetMapping, user: String, context: RequestContext) async throws -> Empty {
        try store.forgetMapping(request.line, user: user, household: await householdIfKnown(of: user, context: context))
        return Empty()
    }

    /// The user's household as the planner says (one short attempt), else as it last said, else
    /// nil: what only adds to an answer (remembered mappings) does not wait on the planner.
    func householdIfKnown(of user: String, context: RequestContext) async -> String? {
        try? await householdDirectory.household(of: user, for: context, need: .optional)
    }

    func householdFavorites(_ request: Empty, context: RequestContext) throws -> RecipeList {
        RecipeList(recipes: try store.householdFavorites(household: try context.requireHousehold(), user: try context.requireUser()))
    }

    func share(_ request: RecipeID, user: String, context: RequestContext) throws -> RecipeSummary {
        let summary = try store.share(request.id, user: user)
        publish(CatalogTopics.recipeShared, recipe: summary.id, user: user, version: try store.catalogVersion)
        return summary
    }

    /// A page of shared recipes, each with its author's display name from the planner (the
    /// page is answered with ids alone when the planner does not).
    func community(_ request: RecipeSearch, context: RequestContext) async throws -> CommunityPage {
        var page = try store.community(request, user: context.user)
        let authors = Array(Set(page.recipes.map(\.sharedBy))).sorted()
        guard !authors.isEmpty else { return page }
        do {
            let names = try await planner.call(AccountAPI.names, UserIDs(users: authors), user: context.user, for: context, need: .optional).names
            for index in page.recipes.indices { page.recipes[index].sharedByName = names[page.recipes[index].sharedBy] }
        } catch {
            context.logger.warning("community page without authors' names", metadata: ["error": "\(error)"])
        }
        return page
    }

    func saveCommunity(_ request: RecipeID, user: String, context: RequestContext) throws -> RecipeDetail {
        let recipe = try store.saveCommunity(request.id, user: user)
        publish(CatalogTopics.recipeCreated, recipe: recipe.id, user: user, version: recipe.version)
        return recipe
    }

    // MARK: Sync and operators

    func changes(_ request: ChangesSince, context: RequestContext) throws -> CatalogChanges {
        try store.changes(since: request.version, user: context.user)
    }

    func reloadSeed(_ request: Empty, context: RequestContext) throws -> SeedReport {
        try store.reloadSeed(seed)
    }

    /// The filter a search asks for: the profile it passes, or the user's saved profile read
    /// (cached from the planner), with the request's switches over the profile's own; for the
    /// household (the default with the saved profile), every other member's diets, allergens and
    /// dislikes joined in, layer by layer where both the caller's and the member's switch is on,
    /// each one the caller did not have named with whose it is.
    func resolveFilter(
        _ request: RecipeSearch, user: String, context: RequestContext
    ) async throws -> (profile: RecipeFilterProfile, switches: FilterSwitches, household: [HouseholdRestriction])? {
        let saved = request.useSavedProfile == true && request.profile == nil ? try await profiles.value(for: user, context: context) : nil
        guard let resolved = try filter(of: request, saved: saved) else { return nil }
        var profile = resolved.profile
        let switches = resolved.switches
        guard saved != nil, request.forHousehold != false else { return (profile, switches, []) }
        let household = try await households.value(for: user, context: context)
        var restrictions: [HouseholdRestriction] = []
        for member in household.members where member.user != user {
            let (theirs, theirSwitches) = try await profiles.value(for: member.user, context: context).recipeFilter
            if switches.diets != false, theirSwitches.diets != false {
                for diet in theirs.diets where !profile.diets.contains(diet) {
                    profile.diets.append(diet)
                    restrictions.append(HouseholdRestriction(user: member.user, name: member.name, kind: .diet, value: diet.rawValue))
                }
            }
            if switches.allergens != false, theirSwitches.allergens != false {
                for allergen in theirs.allergens where !profile.allergens.contains(allergen) {
                    profile.allergens.append(allergen)
                    restrictions.append(HouseholdRestriction(user: member.user, name: member.name, kind: .allergen, value: allergen.rawValue))
                }
            }
            if switches.dislikes != false, theirSwitches.dislikes != false {
                for dislike in theirs.dislikes where !profile.dislikes.contains(dislike) && (try? store.ingredients([dislike])) != nil {
                    profile.dislikes.append(dislike)
                    restrictions.append(HouseholdRestriction(user: member.user, name: member.name, kind: .dislike, value: dislike))
                }
            }
        }
        return (profile, switches, restrictions)
    }

    /// The filter `request` asks for: its own profile, or `saved` (the user's saved profile,
    /// given when the request asks for it) with the request's switches over the saved ones.
    func filter(of request: RecipeSearch, saved: CookingProfile?) throws -> (profile: RecipeFilterProfile, switches: FilterSwitches)? {
        if request.useSavedProfile == true {
            if request.profile != nil {
                throw ServiceError.badRequest("pass a profile or ask for the saved one, not both", field: "useSavedProfile")
            }
            guard let saved else { throw ServiceError.internal("the saved profile was not read") }
            var (profile, switches) = saved.recipeFilter
            if let overrides = request.switches {
                switches.diets = overrides.diets ?? switches.diets
                switches.allergens = overrides.allergens ?? switches.allergens
                switches.dislikes = overrides.dislikes ?? switches.dislikes
                switches.equipment = overrides.equipment ?? switches.equipment
                switches.patience = overrides.patience ?? switches.patience
            }
            profile.dislikes = profile.dislikes.filter { (try? store.ingredients([$0])) != nil }
            return (profile, switches)
        }
        guard let profile = request.profile else { return nil }
        return (profile, request.switches ?? FilterSwitches())
    }

    func publish(_ topic: Topic<RecipeEvent>, recipe: String, user: String, version: Int64) {
        host.publisher.publish(topic, RecipeEvent(recipe: recipe, user: user, version: version))
    }
}

/// Checks imported ingredients before anything is written.
enum IngredientValidation {
    static func validate(_ ingredients: [Ingredient]) throws(ServiceError) {
        for (index, ingredient) in ingredients.enumerated() {
            let field = "ingredients.\(index)"
            guard !ingredient.id.isEmpty, ingredient.id.count <= 100, ingredient.id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
                throw .badRequest("id must be 1 to 100 letters, digits or dashes", field: "\(field).id")
            }
            guard !ingredient.name.trimmingCharacters(in: .whitespaces).isEmpty, ingredient.name.count <= 300 else {
                throw .badRequest("name must be 1 to 300 characters", field: "\(field).name")
            }
            let n = ingredient.nutrition
            for (name, value) in [
                ("kcal", n.kcal), ("carbohydrates", n.carbohydrates), ("protein", n.protein), ("fat", n.fat), ("fibre", n.fibre), ("sugar", n.sugar),
                ("salt", n.salt),
            ]
            where !value.isFinite || value < 0 || value > (name == "kcal" ? 1000 : 100) {
                throw .badRequest("\(name) per 100 g is out of range", field: "\(field).nutrition.\(name)")
            }
            if let price = ingredient.price, !(price.amount.isFinite && price.amount >= 0 && price.amount <= 100_000) {
                throw .badRequest("price must be 0 to 100 000", field: "\(field).price.amount")
            }
            guard ingredient.portions.count <= 50 else { throw .badRequest("at most 50 portions", field: "\(field).portions") }
            for (position, portion) in ingredient.portions.enumerated() {
                guard portion.amount.isFinite, portion.amount > 0, portion.amount <= 10_000 else {
                    throw .badRequest("a portion's amount must be above 0 and at most 10 000", field: "\(field).portions.\(position).amount")
                }
                guard portion.grams.isFinite, portion.grams > 0, portion.grams <= 100_000 else {
                    throw .badRequest("a portion weighs above 0 and at most 100 000 g", field: "\(field).portions.\(position).grams")
                }
                let name = portion.name.trimmingCharacters(in: .whitespacesAndNewlines)
                guard !name.isEmpty, name.count <= 120, !portion.name.contains(where: { $0 == "|" || $0.isNewline }) else {
                    throw .badRequest(
                        "a portion's name is 1 to 120 characters without \"|\" or line breaks", field: "\(field).portions.\(position).name")
                }
            }
            try PackValidation.check(ingredient.packs, of: ingredient, field: "\(field).packs")
            if let perPiece = ingredient.gramsPerPiece, !(perPiece > 0) {
                throw .badRequest("grams per piece must be positive", field: "\(field).gramsPerPiece")
            }
            if let perMl = ingredient.gramsPerMl, !(perMl > 0) {
                throw .badRequest("grams per ml must be positive", field: "\(field).gramsPerMl")
            }
            guard ingredient.synonyms.count <= 20 else { throw .badRequest("at most 20 synonyms", field: "\(field).synonyms") }
            for (position, synonym) in ingredient.synonyms.enumerated() {
                let trimmed = synonym.trimmingCharacters(in: .whitespacesAndNewlines)
                guard !trimmed.isEmpty, trimmed == synonym, synonym.count <= 100, !synonym.contains("|") else {
                    throw .badRequest("a synonym is 1 to 100 characters without surrounding spaces or \"|\"", field: "\(field).synonyms.\(position)")
                }
            }
        }
    }
}

/// The packs an ingredient is sold in: at most 5, all by weight, all by volume or all by count (a
/// family the ingredient can be measured in), each a whole number of g, ml or pieces (1 to
/// 100 000; pieces to 1000), priced above 0 and at most 10 000 EUR, no size twice.
enum PackValidation {
    static let maxPacks = 5

    static func check(_ packs: [PackSize], of ingredient: Ingredient, field: String) throws(ServiceError) {
        guard packs.count <= maxPacks else { throw .badRequest("at most \(maxPacks) pack sizes", field: field) }
        let usual = QuantityDimension(ingredient.unit)
        var sizes: Set<[Double]> = []
        for (index, pack) in packs.enumerated() {
            let packField = "\(field).\(index)"
            guard [.g, .kg, .ml, .l, .piece].contains(pack.unit) else {
                throw .badRequest("a pack is sold in g, kg, ml, l or pieces, not \(pack.unit.rawValue)", field: "\(packField).unit")
            }
            let dimension = QuantityDimension(pack.unit)
            guard dimension == QuantityDimension(packs[0].unit) else {
                throw .badRequest("an ingredient's packs are all by weight, all by volume or all by count", field: "\(packField).unit")
            }
            let measures = IngredientMeasures(
                unit: ingredient.unit, gramsPerPiece: ingredient.gramsPerPiece, gramsPerMl: ingredient.gramsPerMl, price: ingredient.price)
            guard measures.convert(1, from: dimension, to: usual) != nil else {
                throw .badRequest(
                    "\(ingredient.name) is measured in \(ingredient.unit.rawValue) and cannot be sold by \(pack.unit.rawValue) (no density or piece weight)",
                    field: "\(packField).unit")
            }
            let amount = pack.quantity * pack.unit.baseFactor
            let most: Double = dimension == .count ? 1000 : 100_000
            guard pack.quantity.isFinite, amount >= 1, amount <= most, amount.rounded() == amount else {
                throw .badRequest(
                    "a pack holds a whole number of \(dimension.baseUnit.rawValue), 1 to \(Int(most)), not \(pack.quantity) \(pack.unit.rawValue)",
                    field: "\(packField).quantity")
            }
            guard pack.price.isFinite, pack.price > 0, pack.price <= 10_000 else {
                throw .badRequest("a pack's price is above 0 and at most 10 000 EUR", field: "\(packField).price")
            }
            guard sizes.insert([Double(dimension.rawValue), amount]).inserted else {
                throw .badRequest("the pack size \(pack.quantity) \(pack.unit.rawValue) is listed twice", field: "\(packField).quantity")
            }
        }
    }
}
