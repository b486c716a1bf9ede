import CatalogService
import CatalogTesting
import Foundation
import GRDB
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing

/// `recipes.search` serves a page kept at the versions of what it was read from: the built-in
/// catalog's and the user's own (triggers raise them on every recipe, favorite and ingredient
/// row written). Whatever changes, the page it answers is the one the database gives now.
@Suite(.closesItsSockets)
struct KeptSearchTests {
    static let searches = [RecipeSearch(), RecipeSearch(query: "soup"), RecipeSearch(page: 2, pageSize: 5)]

    /// Each search as `recipes.search` answers it, checked against the same search read from the
    /// database with nothing kept.
    func currentPages(_ catalog: CatalogService, _ client: ServiceClient<Catalog>, user: String = "ada") async throws -> [RecipePage] {
        var pages: [RecipePage] = []
        for search in Self.searches {
            let answered = try await client.call(CatalogAPI.searchRecipes, search, user: user)
            #expect(answered == (try catalog.store.searchRecipes(search, user: user, filter: nil)), "\(search) for \(user)")
            pages.append(answered)
        }
        return pages
    }

    @Test(arguments: CatalogStorage.allCases)
    func everyKindOfChangeIsInTheNextSearch(storage: CatalogStorage) async throws {
        try await withCatalog(storage: storage) { catalog, client in
            var pages = try await currentPages(catalog, client)
            // Asked again with nothing between: the kept pages.
            #expect(try await currentPages(catalog, client) == pages)
            let soup = "tomato-lentil-soup"

            try await client.call(CatalogAPI.favorite, .init(id: soup), user: "ada")
            pages = try await currentPages(catalog, client)
            #expect(pages[0].recipes.first?.id == soup && pages[0].recipes.first?.isFavorite == true)

            let mine = try await client.call(
                CatalogAPI.createRecipe, RecipeDraft(name: "Aaa quick soup", summary: "A soup of one's own."), user: "ada")
            pages = try await currentPages(catalog, client)
            #expect(pages[1].recipes.contains { $0.id == mine.id })

            // A built-in edited becomes her personal version, in place of the original.
            _ = try await client.call(CatalogAPI.editRecipe, .init(id: soup, changes: RecipeDraft(name: "Ada's lentil soup")), user: "ada")
            pages = try await currentPages(catalog, client)
            #expect(pages[0].recipes.first { $0.id == soup }?.name == "Ada's lentil soup")

            try await client.call(CatalogAPI.deleteRecipe, .init(id: mine.id), user: "ada")
            pages = try await currentPages(catalog, client)
            #expect(!pages[1].recipes.contains { $0.id == mine.id })

            try await client.call(CatalogAPI.unfavorite, .init(id: soup), user: "ada")
            pages = try await currentPages(catalog, client)
            #expect(pages[0].recipes.first { $0.id == soup }?.isFavorite != true)

            // Someone else's favourite is theirs alone; her pages are as they were.
            try await client.call(CatalogAPI.favorite, .init(id: "chilled-gazpacho"), user: "bob")
            #expect(try await currentPages(catalog, client) == pages)
            _ = try await currentPages(catalog, client, user: "bob")

            // An ingredient's new price is in the built-in recipes' cost per serving.
            let before = try #require(pages[0].recipes.first { $0.origin == .builtIn && $0.costPerServing > 0 })
            let detail = try await client.call(CatalogAPI.getRecipe, .init(id: before.id), user: "ada")
            let line = try #require(detail.ingredients.first { ($0.cost ?? 0) > 0 })
            var ingredient = try #require(try await client.call(CatalogAPI.getIngredients, .init(ids: [line.ingredient])).ingredients.first)
            ingredient.price?.amount *= 3
            _ = try await client.call(CatalogAPI.importIngredients, IngredientImport(source: "test", ingredients: [ingredient]), user: "operator")
            pages = try await currentPages(catalog, client)
            #expect(try #require(pages[0].recipes.first { $0.id == before.id }).costPerServing > before.costPerServing)
        }
    }

    /// Writes that bypass the store, and another store on the same database (another process
    /// on the same file, a replica on the same server), are seen as well: the versions come from
    /// the database on every search, or on a file its stamp (``DataStamp``) says that nothing
    /// was committed since they were read.
    @Test(arguments: CatalogStorage.allCases)
    func rawStatementsAndASecondStoreAreSeen(storage: CatalogStorage) async throws {
        try await withCatalog(storage: storage) { catalog, client in
            let first = try await currentPages(catalog, client)
            let renamed = try #require(first[0].recipes.first { $0.origin == .builtIn })
            try catalog.store.database.write { session in
                _ = try session.execute("UPDATE recipe SET name = ? WHERE id = ? AND origin = 'builtIn'", ["Zzz renamed by hand", renamed.id])
            }
            var pages = try await currentPages(catalog, client)
            #expect(!pages[0].recipes.contains { $0.id == renamed.id }, "now listed last by name")

            let other = try CatalogStore(database: catalog.store.database, copyOf: catalog.store)
            try other.setFavorite("chilled-gazpacho", user: "ada", favorite: true)
            pages = try await currentPages(catalog, client)
            #expect(pages[0].recipes.first?.id == "chilled-gazpacho")

            // Another connection to the file, as another process writes it: the details and the
            // pages answered from what was kept since are read again.
            guard storage == .file, catalog.store.database.engine == .sqlite else { return }
            let gazpacho = RecipeLookup(id: "chilled-gazpacho")
            let detail = try await client.call(CatalogAPI.getRecipe, gazpacho, user: "ada")
            #expect(try await client.call(CatalogAPI.getRecipe, gazpacho, user: "ada") == detail)
            #expect(try await currentPages(catalog, client) == pages)
            let outside = try DatabaseQueue(path: catalog.store.database.path)
            try await outside.write { db in
                try db.execute(sql: "UPDATE recipe SET name = ? WHERE id = ? AND origin = 'builtIn'", arguments: ["Gazpacho by hand", gazpacho.id])
            }
            #expect(try await client.call(CatalogAPI.getRecipe, gazpacho, user: "ada").name == "Gazpacho by hand")
            #expect(try await currentPages(catalog, client)[0].recipes.first?.name == "Gazpacho by hand")
        }
    }

    /// Erasing a user leaves no version of theirs behind, and what they search afterwards has
    /// nothing of what they had; versions never repeat, so nothing kept before comes back.
    @Test func erasureLeavesNoVersionAndNothingKeptComesBack() async throws {
        try await withCatalog { catalog, client in
            try await client.call(CatalogAPI.favorite, .init(id: "chilled-gazpacho"), user: "eve")
            _ = try await client.call(CatalogAPI.createRecipe, RecipeDraft(name: "Eve's soup", summary: "Hers."), user: "eve")
            let before = try await currentPages(catalog, client, user: "eve")
            #expect(before[0].recipes.first?.id == "chilled-gazpacho")
            func versions() throws -> Int {
                try catalog.store.database.read { session in
                    try session.value(Int.self, #"SELECT COUNT(*) FROM search_version WHERE "user" = ?"#, ["eve"]) ?? 0
                }
            }
            #expect(try versions() == 1)
            _ = try catalog.store.database.eraseUser("eve")
            #expect(try versions() == 0)
            let after = try await currentPages(catalog, client, user: "eve")
            #expect(after[0].recipes.first?.isFavorite != true)
            #expect(!after[1].recipes.contains { $0.owner == "eve" })

            // Written again after the erasure: a version she never had before.
            try await client.call(CatalogAPI.favorite, .init(id: "chilled-gazpacho"), user: "eve")
            #expect(try await currentPages(catalog, client, user: "eve")[0].recipes.first?.id == "chilled-gazpacho")
        }
    }

    /// A bad request is refused naming the field, the same whether a page is kept or not.
    @Test func badRequestsAreRefusedWhetherOrNotAPageIsKept() async throws {
        try await withCatalog { _, client in
            _ = try await client.call(CatalogAPI.searchRecipes, RecipeSearch(), user: "ada")
            for (search, field) in [(RecipeSearch(page: 0), "page"), (RecipeSearch(pageSize: 101), "pageSize")] {
                let error = await #expect(throws: ServiceError.self) { try await client.call(CatalogAPI.searchRecipes, search, user: "ada") }
                #expect(error?.code == .badRequest && error?.field == field)
            }
            let both = await #expect(throws: ServiceError.self) {
                try await client.call(
                    CatalogAPI.searchRecipes, RecipeSearch(profile: RecipeFilterProfile(), useSavedProfile: true), user: "ada")
            }
            #expect(both?.field == "useSavedProfile")
        }
    }
}

/// `recipes.get` serves details kept at the search version of the rows they came from (the
/// owner's, or the built-in catalog's) and the ingredients' version: whatever changes, the
/// details it answers are the ones the database gives now.
@Suite(.closesItsSockets)
struct KeptDetailTests {
    /// `id` as `recipes.get` answers it to `user`, checked against the same read with nothing kept.
    /// With its ingredients' facts too: as they are now, in line order.
    func current(_ id: String, _ catalog: CatalogService, _ client: ServiceClient<Catalog>, user: String) async throws -> RecipeDetail {
        let answered = try await client.call(CatalogAPI.getRecipe, .init(id: id), user: user)
        let read = try catalog.store.recipe(id, user: user, people: nil)
        #expect(answered == read, "\(id) for \(user)")
        let withFacts = try await client.call(CatalogAPI.getRecipe, .init(id: id, withIngredients: true), user: user)
        var expected = read
        expected.ingredientFacts = try catalog.store.ingredients(
            read.ingredients.map(\.ingredient).reduce(into: []) { ids, id in
                if !ids.contains(id) { ids.append(id) }
            })
        #expect(withFacts == expected, "\(id) with its ingredients for \(user)")
        return answered
    }

    @Test func everyWriteToARecipeIsInTheNextRead() async throws {
        try await withCatalog { catalog, client in
            let soup = "tomato-lentil-soup"
            _ = try await current(soup, catalog, client, user: "ada")
            _ = try await current(soup, catalog, client, user: "bob")

            // A raw statement on a built-in row, then a second store on the same file.
            try catalog.store.database.write { session in
                _ = try session.execute("UPDATE recipe SET summary = ? WHERE id = ? AND origin = 'builtIn'", ["Changed by hand.", soup])
            }
            #expect(try await current(soup, catalog, client, user: "bob").summary == "Changed by hand.")
            let other = try CatalogStore(database: catalog.store.database, copyOf: catalog.store)
            try other.setFavorite(soup, user: "bob", favorite: true)
            #expect(try await current(soup, catalog, client, user: "bob").isFavorite)
            #expect(try await current(soup, catalog, client, user: "ada").isFavorite == false)

            // Ada's edit is her personal version; Bob still reads the original.
            _ = try await client.call(CatalogAPI.editRecipe, .init(id: soup, changes: RecipeDraft(name: "Ada's lentil soup")), user: "ada")
            #expect(try await current(soup, catalog, client, user: "ada").name == "Ada's lentil soup")
            #expect(try await current(soup, catalog, client, user: "bob").name != "Ada's lentil soup")

            // A shared recipe edited by its owner: the edit reaches every reader.
            let mine = try await client.call(CatalogAPI.createRecipe, RecipeDraft(name: "Ada's stew", summary: "Hers."), user: "ada")
            _ = try await client.call(CatalogAPI.share, .init(id: mine.id), user: "ada")
            #expect(try await current(mine.id, catalog, client, user: "bob").summary == "Hers.")
            _ = try await client.call(CatalogAPI.editRecipe, .init(id: mine.id, changes: RecipeDraft(summary: "Still hers.")), user: "ada")
            #expect(try await current(mine.id, catalog, client, user: "bob").summary == "Still hers.")

            // Deleted: gone for everyone, kept or not.
            try await client.call(CatalogAPI.deleteRecipe, .init(id: mine.id), user: "ada")
            for user in ["ada", "bob"] {
                let error = await #expect(throws: ServiceError.self) { try await client.call(CatalogAPI.getRecipe, .init(id: mine.id), user: user) }
                #expect(error?.code == .notFound && error?.field == "id")
            }
        }
    }
}
