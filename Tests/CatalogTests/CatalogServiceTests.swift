import CatalogService
import CatalogTesting
import Foundation
import GRDB
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Synchronization
import Testing

@Suite(.closesItsSockets)
struct IngredientSearchTests {
    @Test func prefixMatchesComeFirstAndAccentsAndCaseAreIgnored() async throws {
        try await withCatalog { _, client in
            let tom = try await client.call(CatalogAPI.searchIngredients, .init(query: "TOM", limit: 5)).ingredients
            #expect(tom.first?.name == "Tomato")
            #expect(tom.allSatisfy { $0.name.lowercased().contains("tom") })
            let creme = try await client.call(CatalogAPI.searchIngredients, .init(query: "creme fr")).ingredients
            #expect(creme.map(\.name).contains("Crème fraîche"))
            let accented = try await client.call(CatalogAPI.searchIngredients, .init(query: "jalapeño")).ingredients
            #expect(accented.first?.name == "Jalapeño")
            // LIKE's wildcards in the text are plain characters.
            let percent = try await client.call(CatalogAPI.searchIngredients, .init(query: "%")).ingredients
            #expect(percent.contains { $0.name == "Dark chocolate (70%)" })
            #expect(percent.allSatisfy { ([$0.name] + $0.synonyms).contains { $0.contains("%") } })
            for wildcard in ["_", "to%", "t_m", "\\"] {
                #expect(try await client.call(CatalogAPI.searchIngredients, .init(query: wildcard)).ingredients.isEmpty, "\(wildcard)")
            }
        }
    }

    @Test func substringMatchesAreFoundAfterPrefixMatches() async throws {
        try await withCatalog { _, client in
            let results = try await client.call(CatalogAPI.searchIngredients, .init(query: "oil", limit: 50)).ingredients
            #expect(!results.isEmpty)
            let names = { (ingredient: Ingredient) in [ingredient.name.lowercased()] + ingredient.synonyms }
            #expect(results.allSatisfy { names($0).contains { $0.contains("oil") } })
            // The curated ingredients come before the USDA foods; within each, "Olive oil" (or
            // "canola oil", rapeseed oil's other name) matches on a word, so it ranks before
            // names merely containing "oil" mid-word.
            let firstDerived = results.firstIndex { $0.factsDerived } ?? results.endIndex
            #expect(firstDerived < results.endIndex && results[firstDerived...].allSatisfy(\.factsDerived), "curated first")
            func onAWord(_ ingredient: Ingredient) -> Bool {
                names(ingredient).contains { name in name.split(whereSeparator: { !$0.isLetter }).contains { $0.hasPrefix("oil") } }
            }
            for group in [Array(results[..<firstDerived]), Array(results[firstDerived...])] {
                let words = group.map(onAWord)
                #expect(words == words.sorted { $0 && !$1 }, "word matches first")
            }
        }
    }

    @Test func theUsdaFoodsAreFoundAfterTheCuratedOnes() async throws {
        try await withCatalog { _, client in
            let banana = try await client.call(CatalogAPI.searchIngredients, .init(query: "banana", limit: 20)).ingredients
            #expect(banana.first?.id == "banana" && banana.first?.price != nil)
            #expect(banana.dropFirst().contains { $0.name == "Bananas, dehydrated, or banana powder" && $0.price == nil && $0.factsDerived })
            // Only SR28 has fontina: found, with its household measures.
            let fontina = try #require(try await client.call(CatalogAPI.searchIngredients, .init(query: "fontina")).ingredients.first)
            #expect(fontina.id == "usda-01020" && fontina.portions.first == Portion(amount: 1, name: "cup, diced", grams: 132))
            // And by id or name for the diary and for recipes.
            let got = try await client.call(CatalogAPI.getIngredients, .init(ids: ["usda-01020", "Cheese, fontina"])).ingredients
            #expect(got.map(\.id) == ["usda-01020", "usda-01020"])
        }
    }

    @Test func limitsAreValidated() async throws {
        try await withCatalog { _, client in
            let error = await #expect(throws: ServiceError.self) {
                try await client.call(CatalogAPI.searchIngredients, .init(query: "x", limit: 500), user: "reader")
            }
            #expect(error?.code == .badRequest && error?.field == "limit")
            let empty = await #expect(throws: ServiceError.self) {
                try await client.call(CatalogAPI.searchIngredients, .init(query: "  "), user: "reader")
            }
            #expect(empty?.field == "query")
            // Numbers far out of range are refused before any arithmetic (page 2^62 used to trap).
            for (request, field) in [
                (RecipeSearch(page: 1 << 62), "page"), (RecipeSearch(page: 0), "page"), (RecipeSearch(pageSize: 1 << 62), "pageSize"),
            ] {
                let search = await #expect(throws: ServiceError.self) { try await client.call(CatalogAPI.searchRecipes, request, user: "reader") }
                #expect(search?.code == .badRequest && search?.field == field)
                let community = await #expect(throws: ServiceError.self) { try await client.call(CatalogAPI.community, request, user: "ada") }
                #expect(community?.code == .badRequest && community?.field == field)
            }
            let manyIngredients = RecipeSearch(ingredients: (0..<1001).map { "tomato-\($0)" })
            #expect(
                await #expect(throws: ServiceError.self) { try await client.call(CatalogAPI.searchRecipes, manyIngredients, user: "reader") }?.field
                    == "ingredients")
            let levels = try await client.call(CatalogAPI.searchRecipes, RecipeSearch(energyLevels: Array(repeating: 2, count: 5000)))
            #expect(levels.total > 0, "a long list of repeated levels is one condition")
        }
    }

    @Test func getByIDNamesTheFirstUnknownID() async throws {
        try await withCatalog { _, client in
            let found = try await client.call(CatalogAPI.getIngredients, .init(ids: ["egg", "tomato"])).ingredients
            #expect(found.map(\.id) == ["egg", "tomato"])
            let error = await #expect(throws: ServiceError.self) { try await client.call(CatalogAPI.getIngredients, .init(ids: ["egg", "unicorn"])) }
            #expect(error?.code == .notFound && error?.field == "ids.1")
        }
    }
}

@Suite(.closesItsSockets)
struct RecipeSearchTests {
    @Test func searchByNameUsesFullTextPrefixes() async throws {
        try await withCatalog { _, client in
            let page = try await client.call(CatalogAPI.searchRecipes, .init(query: "lentil sou"))
            #expect(page.recipes.contains { $0.id == "tomato-lentil-soup" })
            #expect(page.recipes.allSatisfy { $0.name.lowercased().contains("lentil") || $0.summary.lowercased().contains("lentil") })
        }
    }

    @Test func searchByIngredientAndEnergyLevelCombine() async throws {
        try await withCatalog { _, client in
            let ids = Set(try await client.allRecipeIDs(.init(ingredients: ["egg"], energyLevels: [1, 2])))
            let expected = Set(
                TestSeed.shared.recipes.filter { recipe in
                    recipe.ingredients.contains { $0.ingredient == "egg" } && [1, 2].contains(TestSeed.energy(recipe))
                }.map(\.id))
            #expect(!expected.isEmpty)
            #expect(ids == expected)
        }
    }

    @Test func textSearchPagesAreSlicesOfOneRankedOrder() async throws {
        try await withCatalog { _, client in
            let all = try await client.call(CatalogAPI.searchRecipes, .init(query: "with", page: 1, pageSize: 100)).recipes.map(\.id)
            #expect(all.count > 6)
            var paged: [String] = []
            for page in 1... {
                let slice = try await client.call(CatalogAPI.searchRecipes, .init(query: "with", page: page, pageSize: 4)).recipes.map(\.id)
                if slice.isEmpty { break }
                paged += slice
            }
            #expect(paged == all)
        }
    }

    @Test func aTextMatchingMoreThanTheRelevanceLimitListsNamesFirstThenNewest() throws {
        let store = try CatalogStore(database: CatalogFixture.database(), relevanceLimit: 3, copyOf: CatalogFixture.template)
        try Self.expectNamesFirstThenNewest(store, query: "garlic", named: 5)
        // Renamed into the name tier and out of it, then deleted: the name index follows.
        let mine = try store.create(RecipeDraft(name: "Toast", summary: "Toast rubbed with garlic."), user: "ada")
        _ = try store.edit(mine.id, changes: RecipeDraft(name: "Garlic toast"), user: "ada")
        try Self.expectNamesFirstThenNewest(store, query: "garlic", named: 6, first: mine.id)
        _ = try store.edit(mine.id, changes: RecipeDraft(name: "Rubbed toast"), user: "ada")
        try Self.expectNamesFirstThenNewest(store, query: "garlic", named: 5)
        _ = try store.delete(mine.id, user: "ada")
        #expect(try !store.searchRecipes(.init(query: "garlic", pageSize: 100), user: "ada", filter: nil).recipes.contains { $0.id == mine.id })
        // The same text on a store that ranks it matches the same recipes.
        let broad = try store.searchRecipes(.init(query: "garlic", page: 1, pageSize: 100), user: "ada", filter: nil).recipes.map(\.id)
        let ranked = try CatalogStore(database: CatalogFixture.database(), copyOf: CatalogFixture.template)
            .searchRecipes(.init(query: "garlic", page: 1, pageSize: 100), user: "ada", filter: nil).recipes.map(\.id)
        #expect(Set(ranked) == Set(broad))
    }

    /// A file written before the name index (migration v10) gets one that ranks as a new file's.
    @Test func theNameIndexIsBuiltForAnOlderFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sous-catalog-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let database = try CatalogService.openDatabase(at: .sqlite(directory: directory), logger: quietLogger("catalog"))
            try CatalogStore(database: database).loadSeedIfNeeded(CatalogFixture.curatedSeed)
            try await #require(database.sqliteWriter).writeWithoutTransaction { db in
                try db.execute(sql: "DROP TABLE recipe_name_fts; DELETE FROM grdb_migrations WHERE identifier LIKE 'v10:%'")
            }
        }
        let reopened = try CatalogStore(
            database: CatalogService.openDatabase(at: .sqlite(directory: directory), logger: quietLogger("catalog")), relevanceLimit: 3)
        try Self.expectNamesFirstThenNewest(reopened, query: "garlic", named: 5)
    }

    /// On PostgreSQL, recipes written before migration v4 get their name entries when a store
    /// opens, once.
    @Test(.enabled(if: TestDatabase.url != nil, "PostgreSQL's name index (SOUS_TEST_DATABASE_URL)"))
    func theNameIndexIsBuiltForRecipesWrittenBeforeIt() throws {
        let database = try CatalogFixture.database()
        try database.write { session in
            try session.execute("UPDATE recipe SET name_search = NULL, name_words = 1", [])
            try session.execute("DELETE FROM meta WHERE key = 'namesIndexed'", [])
        }
        try Self.expectNamesFirstThenNewest(CatalogStore(database: database, relevanceLimit: 3), query: "garlic", named: 5)
        #expect(try database.read { try $0.value(Int.self, "SELECT value FROM meta WHERE key = 'namesIndexed'", []) } == 1)
    }

    /// Checks a broad search's order: the `named` recipes whose name has the word first, fewer
    /// words before more, then newest first, then the rest newest first; and that pages of four
    /// are slices of it.
    static func expectNamesFirstThenNewest(_ store: CatalogStore, query: String, named: Int, first: String? = nil) throws {
        let found = try store.searchRecipes(.init(query: query, page: 1, pageSize: 100), user: "ada", filter: nil).recipes
        #expect(found.count > named)
        let order = store.database.engine == .sqlite ? "rowid" : "rid"
        let rowids = try store.database.read { session in
            try found.map { recipe in
                try #require(
                    try session.value(
                        Int64.self, "SELECT \(order) FROM recipe WHERE id = ? AND deleted = 0 AND (owner IS NULL OR owner = 'ada')", [recipe.id]))
            }
        }
        let words = found.map { $0.name.lowercased().split { !$0.isLetter && !$0.isNumber } }
        let hasWord = words.map { $0.contains { $0.hasPrefix(query) } }
        #expect(hasWord == Array(repeating: true, count: named) + Array(repeating: false, count: found.count - named), "\(found.map(\.name))")
        let namedKeys = (0..<named).map { (words[$0].count, -rowids[$0]) }
        #expect(zip(namedKeys, namedKeys.dropFirst()).allSatisfy { $0 < $1 }, "fewest words, then newest: \(found.prefix(named).map(\.name))")
        #expect(Array(rowids[named...]) == rowids[named...].sorted(by: >), "the rest newest first")
        if let first { #expect(found.first?.id == first) }
        var paged: [String] = []
        for page in 1... {
            let slice = try store.searchRecipes(.init(query: query, page: page, pageSize: 4), user: "ada", filter: nil).recipes.map(\.id)
            if slice.isEmpty { break }
            paged += slice
        }
        #expect(paged == found.map(\.id))
    }

    @Test func pagingCoversEveryRecipeOnce() async throws {
        try await withCatalog { _, client in
            var seen: [String] = []
            var names: [String] = []
            var page = 1
            while true {
                let result = try await client.call(CatalogAPI.searchRecipes, .init(page: page, pageSize: 7))
                #expect(result.total == TestSeed.shared.recipes.count)
                if result.recipes.isEmpty { break }
                seen += result.recipes.map(\.id)
                names += result.recipes.map(\.name)
                page += 1
            }
            #expect(seen.count == TestSeed.shared.recipes.count)
            #expect(Set(seen).count == seen.count)
            // By name regardless of case: "Apple and Blackberry Crumble" before "Apple Cinnamon Porridge".
            #expect(names == names.sorted { $0.lowercased() < $1.lowercased() })
            let error = await #expect(throws: ServiceError.self) { try await client.call(CatalogAPI.searchRecipes, .init(pageSize: 1000)) }
            #expect(error?.field == "pageSize")
        }
    }

    /// Every diet, allergen and appliance against the recipes computed independently here.
    @Test func filterTruthTable() async throws {
        try await withCatalog { _, client in
            let recipes = TestSeed.shared.recipes
            for diet in Diet.allCases {
                let ids = Set(try await client.allRecipeIDs(.init(profile: RecipeFilterProfile(diets: [diet]))))
                #expect(ids == Set(recipes.filter { TestSeed.fits($0, diet) }.map(\.id)), "diet \(diet)")
            }
            for allergen in Allergen.allCases {
                let ids = Set(try await client.allRecipeIDs(.init(profile: RecipeFilterProfile(allergens: [allergen]))))
                #expect(ids == Set(recipes.filter { !TestSeed.facts(of: $0).allergens.contains(allergen) }.map(\.id)), "allergen \(allergen)")
            }
            for appliance in Appliance.allCases {
                let without = Appliance.allCases.filter { $0 != appliance }
                let ids = Set(try await client.allRecipeIDs(.init(profile: RecipeFilterProfile(equipment: without))))
                #expect(ids == Set(recipes.filter { !$0.equipment.contains(appliance) }.map(\.id)), "without \(appliance)")
            }
            for patience in 1...5 {
                let ids = Set(try await client.allRecipeIDs(.init(profile: RecipeFilterProfile(patience: patience))))
                #expect(ids == Set(recipes.filter { TestSeed.energy($0) <= patience }.map(\.id)), "patience \(patience)")
            }
            let dislikes = Set(try await client.allRecipeIDs(.init(profile: RecipeFilterProfile(dislikes: ["garlic", "onion"]))))
            #expect(dislikes == Set(recipes.filter { !$0.ingredients.contains { ["garlic", "onion"].contains($0.ingredient) } }.map(\.id)))
        }
    }

    @Test func eachFilterLayerCanBeSwitchedOff() async throws {
        try await withCatalog { _, client in
            let strict = RecipeFilterProfile(diets: [.vegan], allergens: [.gluten], dislikes: ["garlic"], equipment: [], patience: 1)
            let all = TestSeed.shared.recipes.count
            let filtered = try await client.call(CatalogAPI.searchRecipes, .init(profile: strict)).total
            let off = FilterSwitches(diets: false, allergens: false, dislikes: false, equipment: false, patience: false)
            let unfiltered = try await client.call(CatalogAPI.searchRecipes, .init(profile: strict, switches: off)).total
            #expect(filtered < all)
            #expect(unfiltered == all)
            var dietOnly = off
            dietOnly.diets = true
            let vegan = try await client.call(CatalogAPI.searchRecipes, .init(profile: strict, switches: dietOnly)).total
            #expect(vegan == TestSeed.shared.recipes.filter { TestSeed.fits($0, .vegan) }.count)
        }
    }

    @Test func unknownVocabularyIsABadRequestNamingTheField() async throws {
        struct RawSearch: Codable, Sendable { var profile: [String: [String]] }
        try await withCatalog { _, client in
            let raw = Method<Catalog, RawSearch, RecipePage>.read(CatalogAPI.searchRecipes.name, .user)
            let error = await #expect(throws: ServiceError.self) {
                try await client.call(raw, RawSearch(profile: ["diets": ["keto"], "allergens": [], "dislikes": [], "equipment": []]), user: "reader")
            }
            #expect(error?.code == .badRequest)
            #expect(error?.field == "profile.diets.0")
        }
    }

    @Test func favoritesComeFirstUnlessSearching() async throws {
        try await withCatalog { _, client in
            let all = try await client.call(CatalogAPI.searchRecipes, .init(pageSize: 100), user: "ada").recipes
            let last = try #require(all.last)
            try await client.call(CatalogAPI.favorite, .init(id: last.id), user: "ada")
            let ordered = try await client.call(CatalogAPI.searchRecipes, .init(pageSize: 5), user: "ada").recipes
            #expect(ordered.first?.id == last.id)
            #expect(ordered.first?.isFavorite == true)
            // Another user's order is unaffected.
            #expect(try await client.call(CatalogAPI.searchRecipes, .init(pageSize: 5), user: "bob").recipes.first?.id != last.id)
            // With a search text, matches come in relevance order whatever their favorite status.
            let soup = try await client.call(CatalogAPI.searchRecipes, .init(query: "soup"), user: "ada").recipes
            #expect(!soup.isEmpty && soup.allSatisfy { $0.name.lowercased().contains("soup") || $0.summary.lowercased().contains("soup") })
            #expect(try await client.call(CatalogAPI.favorites, Empty(), user: "ada").recipes.map(\.id) == [last.id])
            try await client.call(CatalogAPI.unfavorite, .init(id: last.id), user: "ada")
            #expect(try await client.call(CatalogAPI.favorites, Empty(), user: "ada").recipes.isEmpty)
        }
    }

    @Test func savedProfileIsReadFromThePlannerOnceThenKeptCurrentByItsEvents() async throws {
        // A stand-in for the planner (real sockets and runtime) that counts the reads it answers.
        let clock = WallClock.manual(at: localDate("2026-03-10").instant(hour: 12, minute: 0, in: .gmt))
        let planner = try ServiceHost(
            configuration: .inProcess(.planner, clock: clock), logger: quietLogger("planner"), databaseHealth: { DatabaseHealth(status: "none") })
        let reads = Atomic<Int>(0)
        let vegetarianWithoutOven = CookingProfile(diets: [.vegetarian], equipment: [.stove, .mixer, .microwave, .fryer])
        planner.server.register(PlannerAPI.getProfile) { _, context in
            reads.add(1, ordering: .relaxed)
            return context.user == "vera" ? vegetarianWithoutOven : .defaults
        }
        // Vera lives alone: her search for the household is her own.
        planner.server.register(HouseholdAPI.get) { _, context in
            let user = context.user ?? "vera"
            return HouseholdInfo(
                id: user, name: "Home", members: [HouseholdMember(user: user, name: "Vera", role: .owner, mayInvite: true, joinedAt: Date())],
                people: 2, peopleOverride: nil)
        }
        try await withRunningService(planner) { planner in
            let catalog = try CatalogFixture.make(peers: [.planner: planner.boundEndpoints], clock: clock)
            let client = ServiceClient<Catalog>(
                endpoint: catalog.host.boundEndpoints.requests, options: .init(timeout: .seconds(30), retries: 0),
                session: TestSessions.token(for: "vera"))
            try await withRunningService(catalog.host) { _ in
                await catalog.profiles.waitUntilSubscribed()
                let ids = Set(try await client.allRecipeIDs(.init(useSavedProfile: true), user: "vera"))
                let expected = Set(TestSeed.shared.recipes.filter { TestSeed.fits($0, .vegetarian) && !$0.equipment.contains(.oven) }.map(\.id))
                #expect(ids == expected)
                let off = Set(try await client.allRecipeIDs(.init(useSavedProfile: true, switches: .init(equipment: false)), user: "vera"))
                #expect(off == Set(TestSeed.shared.recipes.filter { TestSeed.fits($0, .vegetarian) }.map(\.id)))
                #expect(reads.load(ordering: .relaxed) == 1, "every page after the first uses the kept profile")

                // The planner announces a change: the catalog applies it without asking again.
                // (Announced until applied: a subscription's first messages may be missed.)
                let applied = catalog.profiles.applied.subscribe()
                let vegan = CookingProfile(diets: [.vegan])
                let seen = await announceUntilSeen(in: applied, where: { $0 == "vera" }) {
                    planner.publisher.publish(PlannerTopics.profileChanged, ProfileChangedEvent(user: "vera", profile: vegan))
                }
                #expect(seen)
                let veganIDs = Set(try await client.allRecipeIDs(.init(useSavedProfile: true), user: "vera"))
                #expect(veganIDs == Set(TestSeed.shared.recipes.filter { TestSeed.fits($0, .vegan) }.map(\.id)))
                #expect(reads.load(ordering: .relaxed) == 1)

                // A kept profile is read again once it is older than the cache's maximum age, in
                // case a change was announced while the subscription was down.
                clock.advance(by: catalog.profiles.maximumAge + 1)
                #expect(Set(try await client.allRecipeIDs(.init(useSavedProfile: true), user: "vera")) == expected)
                #expect(reads.load(ordering: .relaxed) == 2)
            }
        }
    }

    @Test func savedProfileWithoutAPlannerIsUnavailable() async throws {
        // The fixture's planner is absent. The caller waits far longer than the catalog waits for
        // the planner, so the answer is the catalog's, however busy the machine.
        try await withCatalog { _, client in
            let error = await #expect(throws: ServiceError.self) {
                try await client.call(CatalogAPI.searchRecipes, .init(useSavedProfile: true), user: "vera", timeout: .seconds(120))
            }
            #expect(error?.code == .unavailable)
            #expect(error?.message.contains("planner") == true, "\(error?.message ?? "no error")")
        }
    }
}

@Suite(.closesItsSockets)
struct RecipeDetailTests {
    @Test func derivedCostNutritionDietsAndAllergensMatchAHandComputation() async throws {
        try await withCatalog { _, client in
            let draft = RecipeDraft(
                name: "Tomato eggs", summary: "Eggs in tomato.", servings: 2, prepMinutes: 5, cookMinutes: 10,
                ingredients: [
                    .init(ingredient: "tomato", quantity: 400, unit: .g),
                    .init(ingredient: "egg", quantity: 4, unit: .piece),
                    .init(ingredient: "olive-oil", quantity: 2, unit: .tbsp),
                ],
                steps: [.init(description: "Cook it all.", minutes: 10, type: .cooking, ingredients: ["tomato", "egg", "olive-oil"])],
                equipment: [.stove], dishTypes: [.breakfast]
            )
            let recipe = try await client.call(CatalogAPI.createRecipe, draft, user: "ada")
            // tomato 400 g × 2.90 €/kg = 1.16; egg 4 × 0.30 = 1.20; oil 30 ml × 9.00 €/l = 0.27
            #expect(abs(recipe.cost - 2.63) < 1e-9)
            #expect(abs(recipe.costPerServing - 1.315) < 1e-9)
            // kcal: 400 g × 0.18 + 200 g × 1.43 + 27.3 g (30 ml × 0.91) × 8.84 = 599.332 → ÷ 2
            #expect(abs(recipe.nutritionPerServing.kcal - 299.666) < 1e-6)
            // protein: 400 × 0.0088 + 200 × 0.1256 = 28.64 → ÷ 2
            #expect(abs(recipe.nutritionPerServing.protein - 14.32) < 1e-9)
            #expect(recipe.diets == [.glutenFree, .halal, .vegetarian])
            #expect(recipe.allergens == [.eggs])
            #expect(recipe.energyLevel == 1)
            #expect(recipe.origin == .custom && recipe.owner == "ada")
            #expect(recipe.ingredients.map(\.grams) == [400, 200, 27.3])
        }
    }

    @Test func quantitiesScaleForPeople() async throws {
        try await withCatalog { _, client in
            let original = try await client.call(CatalogAPI.getRecipe, .init(id: "tomato-lentil-soup"))
            let forTwo = try await client.call(CatalogAPI.getRecipe, .init(id: "tomato-lentil-soup", people: 2))
            #expect(original.people == original.servings)
            #expect(forTwo.people == 2)
            for (scaled, base) in zip(forTwo.ingredients, original.ingredients) {
                #expect(abs(scaled.quantity - base.quantity * 2 / Double(original.servings)) < 1e-9)
            }
            #expect(forTwo.costPerServing == original.costPerServing, "per-serving figures do not depend on the people asked for")
            let error = await #expect(throws: ServiceError.self) {
                try await client.call(CatalogAPI.getRecipe, .init(id: "tomato-lentil-soup", people: 0))
            }
            #expect(error?.field == "people")
            let missing = await #expect(throws: ServiceError.self) { try await client.call(CatalogAPI.getRecipe, .init(id: "no-such-recipe")) }
            #expect(missing?.code == .notFound)
        }
    }

    @Test func createValidationNamesTheField() async throws {
        try await withCatalog { _, client in
            func rejection(_ draft: RecipeDraft) async -> ServiceError? {
                await #expect(throws: ServiceError.self) { try await client.call(CatalogAPI.createRecipe, draft, user: "ada") }
            }
            #expect(await rejection(RecipeDraft(summary: "x"))?.field == "name")
            #expect(await rejection(RecipeDraft(name: "x"))?.field == "summary")
            #expect(await rejection(RecipeDraft(name: "x", summary: "y", servings: 0))?.field == "servings")
            let unknown = await rejection(
                RecipeDraft(name: "x", summary: "y", ingredients: [.init(ingredient: "unobtainium", quantity: 1, unit: .g)]))
            #expect(unknown?.code == .notFound && unknown?.field == "ingredients.0.ingredient")
            #expect(
                await rejection(RecipeDraft(name: "x", summary: "y", ingredients: [.init(ingredient: "egg", quantity: -1, unit: .piece)]))?.field
                    == "ingredients.0.quantity")
            #expect(
                await rejection(RecipeDraft(name: "x", summary: "y", ingredients: [.init(ingredient: "chicken-breast", quantity: 1, unit: .ml)]))?
                    .field
                    == "ingredients.0.unit", "no density: neither curated nor SR28 measures chicken breast by volume")
            #expect(
                await rejection(RecipeDraft(name: "x", summary: "y", steps: [.init(description: "add egg", type: .cooking, ingredients: ["egg"])]))?
                    .field == "steps.0.ingredients.0")
            #expect(await rejection(RecipeDraft(name: "x", summary: "y", link: "javascript:alert(1)"))?.field == "link")
            // Nothing was half-written.
            let mine = try await client.call(CatalogAPI.myRecipes, Empty(), user: "ada")
            #expect(mine.recipes.isEmpty)
        }
    }

    /// Only an operator imports, and an empty import changes nothing, the version included.
    @Test func importsAreForOperatorsAndAnEmptyOneChangesNothing() async throws {
        try await withCatalog { _, client in
            let tomato = try #require(try await client.call(CatalogAPI.getIngredients, .init(ids: ["tomato"])).ingredients.first)
            let refused = await #expect(throws: ServiceError.self) {
                try await client.call(CatalogAPI.importIngredients, IngredientImport(source: "test", ingredients: [tomato]), user: "ada")
            }
            #expect(refused?.code == .forbidden)
            let first = try await client.call(CatalogAPI.importIngredients, IngredientImport(source: "test", ingredients: [tomato]), user: "operator")
            let empty = try await client.call(CatalogAPI.importIngredients, IngredientImport(source: "test", ingredients: []), user: "operator")
            #expect(empty == ImportReport(imported: 0, catalogVersion: first.catalogVersion))
        }
    }

    @Test func writesNeedAUser() async throws {
        try await withCatalog { service, _ in
            let anonymous = service.host.client(Catalog.self)
            let error = await #expect(throws: ServiceError.self) {
                try await anonymous.call(CatalogAPI.createRecipe, RecipeDraft(name: "x", summary: "y"))
            }
            #expect(error?.code == .unauthorized && error?.field == "header.session")
        }
    }
}

@Suite(.closesItsSockets)
struct PersonalVersionTests {
    /// Ada edits a built-in: she sees her version under the same id, Bob still sees the original;
    /// deleting her version brings the original back for her.
    @Test func personalVersionShadowsTheOriginalOnlyForItsOwner() async throws {
        try await withCatalog { _, client in
            let id = "tomato-lentil-soup"
            let original = try await client.call(CatalogAPI.getRecipe, .init(id: id))
            let edited = try await client.call(
                CatalogAPI.editRecipe, .init(id: id, changes: RecipeDraft(name: "Ada's lentil soup", servings: 2)), user: "ada")
            #expect(edited.id == id)
            #expect(edited.origin == .personal && edited.owner == "ada" && edited.basedOn == id)
            #expect(edited.ingredients.count == original.ingredients.count, "unchanged fields are kept")

            #expect(try await client.call(CatalogAPI.getRecipe, .init(id: id), user: "ada").name == "Ada's lentil soup")
            #expect(try await client.call(CatalogAPI.getRecipe, .init(id: id), user: "bob").name == original.name)

            let adaSearch = try await client.call(CatalogAPI.searchRecipes, .init(query: "lentil"), user: "ada").recipes.filter { $0.id == id }
            #expect(adaSearch.map(\.name) == ["Ada's lentil soup"], "one entry per id: the personal version")
            let bobSearch = try await client.call(CatalogAPI.searchRecipes, .init(query: "lentil"), user: "bob").recipes.filter { $0.id == id }
            #expect(bobSearch.map(\.name) == [original.name])

            // Editing again changes her version in place.
            let again = try await client.call(CatalogAPI.editRecipe, .init(id: id, changes: RecipeDraft(summary: "Mine.")), user: "ada")
            #expect(again.name == "Ada's lentil soup" && again.summary == "Mine.")
            // A bad change names its documented path, under `changes`.
            let blank = await #expect(throws: ServiceError.self) {
                try await client.call(CatalogAPI.editRecipe, .init(id: id, changes: RecipeDraft(name: "")), user: "ada")
            }
            #expect(blank?.code == .badRequest && blank?.field == "changes.name")

            try await client.call(CatalogAPI.deleteRecipe, .init(id: id), user: "ada")
            #expect(try await client.call(CatalogAPI.getRecipe, .init(id: id), user: "ada").name == original.name)
        }
    }

    /// Personal versions used to be keyed "<id>@<user>": user "example.com" asking for
    /// "tomato-lentil-soup@alice" read alice@example.com's private version.
    /// Details are kept at the row they came from: every edit of the steps is in the next read,
    /// and the original's steps stay what everyone else reads.
    @Test func editedStepsAreWhatTheNextReadShows() async throws {
        try await withCatalog { _, client in
            let id = "tomato-lentil-soup"
            let original = try await client.call(CatalogAPI.getRecipe, .init(id: id), user: "bob")
            for text in ["Simmer everything for 30 minutes.", "Simmer everything for 40 minutes."] {
                let steps = [RecipeStep(description: text, minutes: 30, type: .cooking)]
                _ = try await client.call(CatalogAPI.editRecipe, .init(id: id, changes: RecipeDraft(steps: steps)), user: "ada")
                #expect(try await client.call(CatalogAPI.getRecipe, .init(id: id), user: "ada").steps == steps)
                #expect(try await client.call(CatalogAPI.getRecipe, .init(id: id), user: "bob").steps == original.steps)
            }
        }
    }

    /// `recipes.get` keeps the details it built: each caller still gets their own favourite
    /// mark, the people asked for, and prices as the ingredients are now.
    @Test(arguments: CatalogStorage.allCases)
    func keptDetailsStayPerCallerAndFollowTheIngredients(storage: CatalogStorage) async throws {
        try await withCatalog(storage: storage) { _, client in
            let id = "tomato-lentil-soup"
            _ = try await client.call(CatalogAPI.getRecipe, .init(id: id), user: "bob")
            try await client.call(CatalogAPI.favorite, .init(id: id), user: "ada")
            #expect(try await client.call(CatalogAPI.getRecipe, .init(id: id), user: "ada").isFavorite)
            #expect(try await client.call(CatalogAPI.getRecipe, .init(id: id), user: "bob").isFavorite == false)
            let forTwo = try await client.call(CatalogAPI.getRecipe, .init(id: id, people: 2), user: "bob")
            let forFour = try await client.call(CatalogAPI.getRecipe, .init(id: id, people: 4), user: "bob")
            #expect(forFour.people == 4 && forTwo.people == 2)
            #expect(forFour.ingredients.map(\.quantity) != forTwo.ingredients.map(\.quantity))
            #expect(try await client.call(CatalogAPI.getRecipe, .init(id: id, people: 2), user: "bob") == forTwo)

            let before = try await client.call(CatalogAPI.getRecipe, .init(id: id), user: "bob")
            _ = try await client.call(CatalogAPI.getRecipe, .init(id: id, withIngredients: true), user: "bob")
            let line = try #require(before.ingredients.first { ($0.cost ?? 0) > 0 })
            var ingredient = try #require(try await client.call(CatalogAPI.getIngredients, .init(ids: [line.ingredient])).ingredients.first)
            ingredient.price?.amount *= 2
            _ = try await client.call(CatalogAPI.importIngredients, IngredientImport(source: "test", ingredients: [ingredient]), user: "operator")
            let after = try await client.call(CatalogAPI.getRecipe, .init(id: id), user: "bob")
            let changed = try #require(after.ingredients.first { $0.ingredient == line.ingredient })
            let costs = (after: try #require(changed.cost), before: try #require(line.cost))
            #expect(abs(costs.after - 2 * costs.before) < 0.01)
            #expect(after.cost > before.cost)
            // The kept facts of a lookup with ingredients follow too.
            let withFacts = try await client.call(CatalogAPI.getRecipe, .init(id: id, withIngredients: true), user: "bob")
            #expect(withFacts.ingredientFacts?.first { $0.id == line.ingredient }?.price == ingredient.price)
        }
    }

    /// An ingredient's new price or facts reach every recipe using it: the summaries a search
    /// lists (cost, diets) and the sync feed, not only the details read whole.
    @Test func anIngredientsChangeReachesTheRecipesUsingIt() async throws {
        try await withCatalog { catalog, client in
            let id = "tomato-lentil-soup"
            let soup = {
                try #require(
                    try await client.call(CatalogAPI.searchRecipes, RecipeSearch(query: "lentil soup"), user: "ada").recipes.first { $0.id == id })
            }
            let before = try await soup()
            #expect(before.diets.contains(.vegan))
            let mine = try await client.call(
                CatalogAPI.createRecipe,
                RecipeDraft(name: "Ada's lentils", summary: "Lentils.", ingredients: [.init(ingredient: "red-lentils", quantity: 200, unit: .g)]),
                user: "ada")
            let version = try catalog.store.catalogVersion
            var lentils = try #require(try await client.call(CatalogAPI.getIngredients, .init(ids: ["red-lentils"])).ingredients.first)
            lentils.price?.amount *= 2
            lentils.contains.append(.meat)
            _ = try await client.call(CatalogAPI.importIngredients, IngredientImport(source: "test", ingredients: [lentils]), user: "operator")

            let after = try await soup()
            #expect(after.costPerServing > before.costPerServing)
            #expect(after.diets.contains(.vegan) == false && after.diets.contains(.vegetarian) == false)
            let detail = try await client.call(CatalogAPI.getRecipe, .init(id: id), user: "ada")
            #expect(abs(detail.costPerServing - after.costPerServing) < 1e-9, "the summary and the details agree")
            let changes = try await client.call(CatalogAPI.changes, .init(version: version), user: "ada")
            #expect(Set([id, mine.id]).isSubset(of: Set(changes.recipes.map(\.id))), "the sync feed lists every recipe whose facts changed")
            #expect(changes.recipes.first { $0.id == mine.id }?.diets.contains(.vegan) == false)
        }
    }

    /// Pack sizes: every shop-bought ingredient ships with some; a bad one is refused naming it,
    /// with nothing of the import written.
    @Test func packSizesShipAndABadOneIsRefusedNamingIt() async throws {
        try await withCatalog { catalog, client in
            let potato = try #require(try await client.call(CatalogAPI.getIngredients, .init(ids: ["potato"])).ingredients.first)
            #expect(potato.packs == [PackSize(quantity: 1, unit: .kg, price: 1.30), PackSize(quantity: 2.5, unit: .kg, price: 3.09)])
            let version = try catalog.store.catalogVersion
            let bad: [([PackSize], String)] = [
                ([PackSize(quantity: 0, unit: .g, price: 1)], "ingredients.0.packs.0.quantity"),
                ([PackSize(quantity: 0.5, unit: .g, price: 1)], "ingredients.0.packs.0.quantity"),
                ([PackSize(quantity: -1, unit: .kg, price: 1)], "ingredients.0.packs.0.quantity"),
                ([PackSize(quantity: .infinity, unit: .kg, price: 1)], "ingredients.0.packs.0.quantity"),
                ([PackSize(quantity: 101, unit: .kg, price: 1)], "ingredients.0.packs.0.quantity"),
                ([PackSize(quantity: 1, unit: .kg, price: 0)], "ingredients.0.packs.0.price"),
                ([PackSize(quantity: 1, unit: .kg, price: .nan)], "ingredients.0.packs.0.price"),
                ([PackSize(quantity: 1, unit: .tbsp, price: 1)], "ingredients.0.packs.0.unit"),
                ([PackSize(quantity: 1, unit: .kg, price: 1), PackSize(quantity: 4, unit: .piece, price: 1)], "ingredients.0.packs.1.unit"),
                ([PackSize(quantity: 1, unit: .kg, price: 1), PackSize(quantity: 1000, unit: .g, price: 2)], "ingredients.0.packs.1.quantity"),
                ((1...6).map { PackSize(quantity: Double($0), unit: .kg, price: 1) }, "ingredients.0.packs"),
            ]
            for (packs, field) in bad {
                var changed = potato
                changed.packs = packs
                let error = await #expect(throws: ServiceError.self) {
                    try await client.call(CatalogAPI.importIngredients, IngredientImport(source: "test", ingredients: [changed]), user: "operator")
                }
                #expect(error?.code == .badRequest && error?.field == field, "\(packs): \(String(describing: error))")
            }
            #expect(try catalog.store.catalogVersion == version)
            // Potatoes have a piece weight: a net of 10 is a pack they can be sold in.
            var nets = potato
            nets.packs = [PackSize(quantity: 10, unit: .piece, price: 2.5)]
            _ = try await client.call(CatalogAPI.importIngredients, IngredientImport(source: "test", ingredients: [nets]), user: "operator")
            let now = try #require(try await client.call(CatalogAPI.getIngredients, .init(ids: ["potato"])).ingredients.first)
            #expect(now.packs == nets.packs)
        }
    }

    /// An import that would leave a recipe unmeasurable (onions no longer counted in pieces, and
    /// recipes asking for "1 onion") is refused naming the ingredient and the recipe, with nothing
    /// of it written.
    @Test func anImportLeavingARecipeUnmeasurableIsRefusedWhole() async throws {
        try await withCatalog { catalog, client in
            let all = try await client.call(CatalogAPI.getIngredients, .init(ids: ["carrot", "onion"])).ingredients
            var carrot = try #require(all.first { $0.id == "carrot" })
            var onion = try #require(all.first { $0.id == "onion" })
            let version = try catalog.store.catalogVersion
            carrot.price?.amount += 1
            onion.unit = .g
            onion.gramsPerPiece = nil
            onion.packs = []  // its nets of onions could no longer be sold either
            let error = await #expect(throws: ServiceError.self) {
                try await client.call(CatalogAPI.importIngredients, IngredientImport(source: "test", ingredients: [carrot, onion]), user: "operator")
            }
            #expect(error?.code == .badRequest && error?.field == "ingredients.1")
            #expect(error?.message.contains("could no longer be measured") == true)
            #expect(try catalog.store.catalogVersion == version)
            let now = try await client.call(CatalogAPI.getIngredients, .init(ids: ["carrot", "onion"])).ingredients
            #expect(now == all, "nothing of the import was written")
        }
    }

    @Test func personalVersionsCannotBeReachedThroughUserNamesWithAtSignsAndDots() async throws {
        try await withCatalog { _, client in
            let id = "tomato-lentil-soup"
            _ = try await client.call(
                CatalogAPI.editRecipe, .init(id: id, changes: RecipeDraft(name: "Alice's secret soup")), user: "alice@example.com")
            for (user, asked) in [
                ("example.com", "\(id)@alice"), ("com", "\(id)@alice@example"), ("alice@example.com", "\(id)@"), ("", "\(id)@alice@example.com"),
            ] {
                let found =
                    try? await
                    (user.isEmpty
                    ? client.call(CatalogAPI.getRecipe, .init(id: asked)) : client.call(CatalogAPI.getRecipe, .init(id: asked), user: user))
                #expect(found?.name != "Alice's secret soup", "\(user) asking for \(asked)")
            }
            let search = try await client.call(CatalogAPI.searchRecipes, .init(query: "secret"), user: "example.com")
            #expect(search.recipes.isEmpty)
            #expect(try await client.call(CatalogAPI.getRecipe, .init(id: id), user: "alice@example.com").name == "Alice's secret soup")
        }
    }

    /// A database written before version 3 keyed personal versions "<id>@<user>"; opening it
    /// re-keys them and their ingredient lines.
    @Test func personalVersionsFromOlderDatabasesAreRekeyed() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sous-catalog-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let id = "tomato-lentil-soup"
        do {
            let database = try CatalogService.openDatabase(at: .sqlite(directory: directory), logger: quietLogger("catalog"))
            let store = try CatalogStore(database: database)
            try store.loadSeedIfNeeded(try CatalogFixture.curatedSeed)
            _ = try store.edit(id, changes: RecipeDraft(name: "Ada's soup"), user: "ada@home.example")
            try await #require(database.sqliteWriter).writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA foreign_keys = OFF")
                try db.execute(sql: "UPDATE recipe SET key = id || '@' || owner WHERE origin = 'personal'")
                try db.execute(
                    sql: "UPDATE recipe_ingredient SET recipe_key = 'tomato-lentil-soup@ada@home.example' WHERE recipe_key LIKE 'personal:%'")
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier LIKE 'v3:%'")
                try db.execute(sql: "PRAGMA foreign_keys = ON")
            }
        }
        let reopened = try CatalogStore(database: CatalogService.openDatabase(at: .sqlite(directory: directory), logger: quietLogger("catalog")))
        let mine = try reopened.recipe(id, user: "ada@home.example", people: nil)
        #expect(mine.name == "Ada's soup" && !mine.ingredients.isEmpty)
        #expect(try reopened.recipe(id, user: "home.example", people: nil).name != "Ada's soup")
    }

    /// Versions 6, 7 and 9 copy the search entries into new tables (prefix indexes, a column for
    /// tags, prefix indexes up to 8 characters): a database written before them finds and ranks
    /// exactly what it found before, and new recipes are indexed.
    @Test func searchEntriesSurviveTheMoveToPrefixIndexes() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sous-catalog-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let words = ["to", "pea", "lent", "soup", "chick", "ri", "tomato", "lentils", "chickpea", "vegetable"]
        func results(_ store: CatalogStore) throws -> [[String]] {
            try words.map { word in try store.searchRecipes(RecipeSearch(query: word, pageSize: 50), user: "ada", filter: nil).recipes.map(\.id) }
        }
        let before: [[String]]
        do {
            let database = try CatalogService.openDatabase(at: .sqlite(directory: directory), logger: quietLogger("catalog"))
            let store = try CatalogStore(database: database)
            try store.loadSeedIfNeeded(try CatalogFixture.curatedSeed)
            _ = try store.edit("tomato-lentil-soup", changes: RecipeDraft(name: "Ada's pea soup"), user: "ada")
            try await #require(database.sqliteWriter).writeWithoutTransaction { db in
                // Back to the table of version 5, with the same entries.
                try db.execute(
                    sql: """
                        ALTER TABLE recipe_fts RENAME TO recipe_fts_v6;
                        CREATE VIRTUAL TABLE recipe_fts USING fts5(name, summary, ingredients, tokenize = "porter unicode61 remove_diacritics 2");
                        INSERT INTO recipe_fts (recipe_fts, rank) VALUES ('rank', 'bm25(1.0, 1.0, 0.5)');
                        INSERT INTO recipe_fts (rowid, name, summary, ingredients) SELECT rowid, name, summary, ingredients FROM recipe_fts_v6;
                        DROP TABLE recipe_fts_v6;
                        DELETE FROM grdb_migrations WHERE identifier LIKE 'v6:%' OR identifier LIKE 'v9:%';
                        """)
            }
            before = try results(store)
            // And without what version 7 added (notes, variations, tags, photos).
            try await #require(database.sqliteWriter).writeWithoutTransaction { db in
                try db.execute(
                    sql: """
                        DROP TABLE recipe_photo;
                        ALTER TABLE recipe DROP COLUMN notes;
                        ALTER TABLE recipe DROP COLUMN variations;
                        ALTER TABLE recipe DROP COLUMN tags;
                        ALTER TABLE recipe DROP COLUMN photo_type;
                        ALTER TABLE recipe DROP COLUMN photo_bytes;
                        DELETE FROM grdb_migrations WHERE identifier LIKE 'v7:%';
                        """)
            }
        }
        #expect(before.allSatisfy { !$0.isEmpty }, "every word finds something")
        let database = try CatalogService.openDatabase(at: .sqlite(directory: directory), logger: quietLogger("catalog"))
        let reopened = try CatalogStore(database: database)
        let definition = try await #require(database.sqliteWriter).read { db in
            try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'recipe_fts'")
        }
        #expect(definition?.contains("prefix = '2 3 4 5 6 7 8'") == true && definition?.contains("tags") == true)
        #expect(try results(reopened) == before)
        let created = try reopened.create(
            RecipeDraft(name: "Peach crumble", summary: "Fruit under crumbs.", servings: 4, prepMinutes: 15, cookMinutes: 30), user: "ada")
        for word in ["pe", "peach", "crumbl"] {
            let found = try reopened.searchRecipes(RecipeSearch(query: word, pageSize: 100), user: "ada", filter: nil).recipes
            #expect(found.contains { $0.id == created.id }, "\(word)")
        }
    }

    @Test func builtInsAndOthersRecipesCannotBeDeleted() async throws {
        try await withCatalog { _, client in
            let error = await #expect(throws: ServiceError.self) {
                try await client.call(CatalogAPI.deleteRecipe, .init(id: "tomato-lentil-soup"), user: "ada")
            }
            // Signed in, but not hers to delete: forbidden, not "sign in".
            #expect(error?.code == .forbidden)
            let mine = try await client.call(CatalogAPI.createRecipe, RecipeDraft(name: "Ada's toast", summary: "Toast."), user: "ada")
            let notFound = await #expect(throws: ServiceError.self) {
                try await client.call(CatalogAPI.deleteRecipe, .init(id: mine.id), user: "bob")
            }
            #expect(notFound?.code == .notFound, "an unshared recipe is invisible to others")
        }
    }

    /// Checked at commit (docs/PROTOCOL.md, "Idempotency"): a retried recipe write is answered
    /// as the first attempt and changes nothing, also where run anew it would apply again or fail.
    @Test func aRetriedRecipeWriteIsAnsweredAsTheFirstAndAppliedOnce() async throws {
        try await withCatalog { _, client in
            let draft = RecipeDraft(name: "Ada's toast", summary: "Toast, once.")
            let created = try await client.call(CatalogAPI.createRecipe, draft, user: "ada", idempotencyKey: "create")
            #expect(try await client.call(CatalogAPI.createRecipe, draft, user: "ada", idempotencyKey: "create") == created)
            #expect(try await client.call(CatalogAPI.myRecipes, Empty(), user: "ada").recipes.map(\.id) == [created.id], "a retry created it twice")

            let soup = RecipeID(id: "tomato-lentil-soup")
            _ = try await client.call(CatalogAPI.favorite, soup, user: "ada", idempotencyKey: "favorite")
            _ = try await client.call(CatalogAPI.unfavorite, soup, user: "ada")
            #expect(try await client.call(CatalogAPI.favorite, soup, user: "ada", idempotencyKey: "favorite") == Empty())
            #expect(try await client.call(CatalogAPI.favorites, Empty(), user: "ada").recipes.isEmpty, "a retry favorited it again")

            // Run anew, the retry would find no recipe to delete: it is answered as the first.
            let delete = RecipeID(id: created.id)
            #expect(try await client.call(CatalogAPI.deleteRecipe, delete, user: "ada", idempotencyKey: "delete") == Empty())
            #expect(try await client.call(CatalogAPI.deleteRecipe, delete, user: "ada", idempotencyKey: "delete") == Empty())
            let again = await #expect(throws: ServiceError.self) { try await client.call(CatalogAPI.deleteRecipe, delete, user: "ada") }
            #expect(again?.code == .notFound, "a new request is run anew")
        }
    }
}

@Suite(.closesItsSockets)
struct CommunityTests {
    @Test func shareListWithFavoriteCountsAndSave() async throws {
        try await withCatalog { _, client in
            let mine = try await client.call(
                CatalogAPI.createRecipe, RecipeDraft(name: "Ada's famous toast", summary: "Toast with care."), user: "ada")
            #expect(try await client.call(CatalogAPI.community, RecipeSearch()).recipes.isEmpty)
            let shared = try await client.call(CatalogAPI.share, .init(id: mine.id), user: "ada")
            #expect(shared.id == mine.id)
            try await client.call(CatalogAPI.favorite, .init(id: mine.id), user: "bob")
            try await client.call(CatalogAPI.favorite, .init(id: mine.id), user: "cy")
            let community = try await client.call(CatalogAPI.community, RecipeSearch(), user: "bob")
            #expect(community.recipes.map(\.recipe.id) == [mine.id])
            #expect(community.recipes.first?.favoriteCount == 2)
            #expect(community.recipes.first?.sharedBy == "ada")
            #expect(community.recipes.first?.recipe.isFavorite == true)
            // The sync feed keeps a shared recipe Bob favorited: it is in his library.
            let feed = try await client.call(CatalogAPI.changes, .init(version: 0), user: "bob")
            #expect(feed.recipes.map(\.id).contains(mine.id) && !feed.deletedRecipes.contains(mine.id))

            let saved = try await client.call(CatalogAPI.saveCommunity, .init(id: mine.id), user: "bob")
            #expect(saved.origin == .saved && saved.owner == "bob" && saved.basedOn == mine.id && saved.id != mine.id)
            #expect(try await client.call(CatalogAPI.myRecipes, Empty(), user: "bob").recipes.map(\.id) == [saved.id])

            let notMine = await #expect(throws: ServiceError.self) {
                try await client.call(CatalogAPI.share, .init(id: "tomato-lentil-soup"), user: "bob")
            }
            #expect(notMine?.code == .forbidden)
        }
    }
}

@Suite(.closesItsSockets)
struct SyncTests {
    @Test func changesSinceReportCreatesEditsAndDeletes() async throws {
        try await withCatalog { _, client in
            let start = try await client.call(CatalogAPI.changes, .init(version: 0), user: "ada")
            #expect(start.recipes.count == TestSeed.shared.recipes.count)
            #expect(start.ingredients.count == TestSeed.shared.ingredients.count)
            let v0 = start.version

            let created = try await client.call(CatalogAPI.createRecipe, RecipeDraft(name: "Sync me", summary: "A recipe to sync."), user: "ada")
            let afterCreate = try await client.call(CatalogAPI.changes, .init(version: v0), user: "ada")
            #expect(afterCreate.recipes.map(\.id) == [created.id])
            #expect(afterCreate.deletedRecipes.isEmpty && afterCreate.ingredients.isEmpty)
            #expect(try await client.call(CatalogAPI.changes, .init(version: v0), user: "bob").recipes.isEmpty, "others do not see ada's recipe")

            _ = try await client.call(CatalogAPI.editRecipe, .init(id: "tomato-lentil-soup", changes: RecipeDraft(name: "Ada's soup")), user: "ada")
            let afterEdit = try await client.call(CatalogAPI.changes, .init(version: afterCreate.version), user: "ada")
            #expect(afterEdit.recipes.map(\.name) == ["Ada's soup"])

            try await client.call(CatalogAPI.deleteRecipe, .init(id: created.id), user: "ada")
            try await client.call(CatalogAPI.deleteRecipe, .init(id: "tomato-lentil-soup"), user: "ada")
            let afterDelete = try await client.call(CatalogAPI.changes, .init(version: afterEdit.version), user: "ada")
            #expect(afterDelete.deletedRecipes == [created.id])
            #expect(afterDelete.recipes.map(\.id) == ["tomato-lentil-soup"], "the original comes back when the personal version goes")
            #expect(afterDelete.recipes.first?.origin == .builtIn)
            #expect(try await client.call(CatalogAPI.changes, .init(version: afterDelete.version), user: "ada").recipes.isEmpty)
        }
    }

    /// Marking or unmarking a favourite changes the recipe as its user sees it (`isFavorite`):
    /// their feed reports it, nobody else's does.
    @Test func aFavouriteChangeIsReportedToItsUser() async throws {
        try await withCatalog { _, client in
            let start = try await client.call(CatalogAPI.changes, .init(version: 0), user: "ada").version
            try await client.call(CatalogAPI.favorite, RecipeID(id: "minestrone"), user: "ada")
            let marked = try await client.call(CatalogAPI.changes, .init(version: start), user: "ada")
            #expect(marked.recipes.map(\.id) == ["minestrone"] && marked.recipes.first?.isFavorite == true)
            #expect(try await client.call(CatalogAPI.changes, .init(version: start), user: "bob").recipes.isEmpty)
            try await client.call(CatalogAPI.unfavorite, RecipeID(id: "minestrone"), user: "ada")
            let unmarked = try await client.call(CatalogAPI.changes, .init(version: marked.version), user: "ada")
            #expect(unmarked.recipes.map(\.id) == ["minestrone"] && unmarked.recipes.first?.isFavorite == false)
            #expect(try await client.call(CatalogAPI.changes, .init(version: unmarked.version), user: "ada").recipes.isEmpty)
        }
    }

    @Test func reloadingTheSeedKeepsUsersData() async throws {
        try await withCatalog { _, client in
            _ = try await client.call(CatalogAPI.editRecipe, .init(id: "tomato-lentil-soup", changes: RecipeDraft(name: "Mine")), user: "ada")
            try await client.call(CatalogAPI.favorite, .init(id: "tomato-lentil-soup"), user: "ada")
            let versionBefore = try await client.call(CatalogAPI.changes, .init(version: Int64.max), user: "ada").version
            // The whole shipped seed written again: on PostgreSQL, beside the rest of the suite, it
            // has taken over 30 s. A bound on a hang, not a speed check.
            let report = try await client.call(CatalogAPI.reloadSeed, Empty(), user: "operator", timeout: .seconds(180))
            #expect(report.recipes == TestSeed.shared.recipes.count)
            // The same seed again changes no ingredient (facts listed in another order included):
            // sync clients fetch none of them again.
            let changed = try await client.call(CatalogAPI.changes, .init(version: versionBefore), user: "ada").ingredients
            #expect(changed.map(\.id) == [])
            #expect(try await client.call(CatalogAPI.getRecipe, .init(id: "tomato-lentil-soup"), user: "ada").name == "Mine")
            #expect(try await client.call(CatalogAPI.favorites, Empty(), user: "ada").recipes.count == 1)
        }
    }
}
