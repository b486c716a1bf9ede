import Foundation
import GRDB
import SousRuntime
import SousSchema
import SousTestSupport
import Testing

@testable import GroceriesService

/// Lists are kept in memory at their version; these pin that no change is ever hidden by that:
/// not one made through another store on the same database (another process), not a refreshed
/// price another user's add brought, not an erasure.
@Suite(.closesItsSockets) struct ListVersionTests {
    static let oats = ListIngredientFacts(
        id: "oats", name: "Oats", unit: .g, gramsPerPiece: nil, gramsPerMl: nil, price: Price(amount: 2, per: .kg), category: .breads, bought: true)

    /// Two stores on one database (one file, or one PostgreSQL schema), as two processes would be.
    func withTwoStores(_ body: (GroceriesStore, GroceriesStore, SousDatabase) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sous-list-version-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let location = DatabaseLocation.testing(.groceries, dataDirectory: directory)
        let first = try GroceriesService.openDatabase(at: location, logger: quietLogger("groceries"))
        defer { first.close() }
        let second = try GroceriesService.openDatabase(at: location, logger: quietLogger("groceries"))
        defer { second.close() }
        try body(GroceriesStore(database: first), GroceriesStore(database: second), first)
    }

    @Test func everyWriteRaisesTheVersionAndTheReadAnswersWhatTheWriteDid() throws {
        try withTwoStores { store, _, _ in
            #expect(try store.list(household: "ada").version == 0)
            let added = try store.addEdibleItem(Self.oats, quantity: 500, unit: .g, household: "ada", now: Date(), withList: true)
            let read = try store.list(household: "ada")
            #expect(read == added.list && read.version > 0)
            let checked = try store.check(["oats"], checked: true, household: "ada", withList: true)
            #expect(checked.version > added.version && checked.list?.checkedCount == 1)
            #expect(try store.list(household: "ada") == checked.list)
        }
    }

    /// Without `withList`, a write answers counts read in its own transaction, and the list the
    /// next read builds is the one at the version the write answered.
    @Test func aWriteWithoutTheListAnswersItsVersionAndCounts() throws {
        try withTwoStores { store, _, _ in
            let oats = try store.addEdibleItem(Self.oats, quantity: 500, unit: .g, household: "ada", now: Date())
            #expect(oats.list == nil && oats.itemCount == 1 && oats.recipeCount == 0 && oats.checkedCount == 0)
            let towels = try store.addNonEdibleItem("paper towels", count: 2, household: "ada", now: Date())
            #expect(towels.version > oats.version && towels.itemCount == 2)
            let checked = try store.check(["oats"], checked: true, household: "ada")
            #expect(checked.checkedCount == 1 && checked.list == nil)
            let read = try store.list(household: "ada")
            #expect(read.version == checked.version && read.lineCount == 2 && read.checkedCount == 1)
            let cleared = try store.clear(checkedOnly: true, household: "ada", now: Date())
            #expect(cleared.itemCount == 1 && cleared.checkedCount == 0 && cleared.list == nil, "the oats item went with its check")
            #expect(try store.list(household: "ada").lines.map(\.name) == ["paper towels"])
        }
    }

    @Test func aChangeThroughAnotherStoreOnTheSameDatabaseIsSeen() throws {
        try withTwoStores { store, other, _ in
            _ = try store.addEdibleItem(Self.oats, quantity: 500, unit: .g, household: "ada", now: Date())
            #expect(try store.list(household: "ada").lineCount == 1)  // kept in memory now
            let elsewhere = try other.addNonEdibleItem("paper towels", count: 2, household: "ada", now: Date(), withList: true)
            let read = try store.list(household: "ada")
            #expect(read.lineCount == 2 && read == elsewhere.list)
        }
    }

    /// A store skips writing facts it knows stored, but only while no other writer changed any
    /// facts since: a price another store (another process, a replica) changed back is written
    /// again, not taken for the one this store wrote before.
    @Test func factsKnownStoredAreWrittenAgainOnceAnotherWriterChangedAny() throws {
        try withTwoStores { store, other, _ in
            _ = try store.addEdibleItem(Self.oats, quantity: 1000, unit: .g, household: "ada", now: Date())
            let cheap = try store.list(household: "ada").total
            var dearer = Self.oats
            dearer.price = Price(amount: 3, per: .kg)
            _ = try other.addEdibleItem(dearer, quantity: 100, unit: .g, household: "grace", now: Date())
            #expect(try store.list(household: "ada").total > cheap)
            // The catalog's price is the first one again: this store knew it stored, once.
            _ = try store.addEdibleItem(Self.oats, quantity: 1, unit: .g, household: "ada", now: Date())
            #expect(abs(try store.list(household: "ada").total - cheap) < 0.01, "the first price, written again")
            // One ingredient twice: the last is stored, though this store knows it stored already.
            let porridge = RecipeSnapshot(
                id: "porridge", name: "Porridge", people: 2, servings: 2, lines: [.init(ingredient: "oats", quantity: 1, unit: .g)])
            _ = try store.addRecipe(
                "porridge", snapshot: porridge, multiplier: 1, exclude: [], ingredients: [dearer, Self.oats], household: "ada", now: Date())
            #expect(abs(try store.list(household: "ada").total - cheap) < 0.01, "the last of the two")
        }
    }

    @Test func aPriceAnotherUsersAddRefreshedChangesEveryListUsingIt() throws {
        try withTwoStores { store, _, _ in
            let before = try #require(
                try store.addEdibleItem(Self.oats, quantity: 1000, unit: .g, household: "ada", now: Date(), withList: true).list)
            #expect(try store.list(household: "ada").total == before.total)
            var dearer = Self.oats
            dearer.price = Price(amount: 3, per: .kg)
            _ = try store.addEdibleItem(dearer, quantity: 100, unit: .g, household: "grace", now: Date())
            let after = try store.list(household: "ada")
            #expect(after.version == before.version, "ada's rows did not change")
            #expect(after.total > before.total, "but the price her line is built from did")
        }
    }

    /// A recipe's facts are stored in one go: the new ones added, a changed one replaced (and
    /// every list using it moved), the same ingredient twice in one call stored as its last.
    @Test func aRecipesFactsAreStoredTogetherAndOnlyAChangeMovesOtherLists() throws {
        try withTwoStores { store, _, _ in
            let before = try #require(
                try store.addEdibleItem(Self.oats, quantity: 1000, unit: .g, household: "ada", now: Date(), withList: true).list)
            let rice = ListIngredientFacts(
                id: "rice", name: "Rice", unit: .g, gramsPerPiece: nil, gramsPerMl: nil, price: Price(amount: 3, per: .kg), category: .breads,
                bought: true)
            let porridge = RecipeSnapshot(
                id: "porridge", name: "Porridge", people: 2, servings: 2,
                lines: [.init(ingredient: "oats", quantity: 200, unit: .g), .init(ingredient: "rice", quantity: 100, unit: .g)])
            // Same facts as stored: ada's list is left as it was.
            _ = try store.addRecipe(
                "porridge", snapshot: porridge, multiplier: 1, exclude: [], ingredients: [Self.oats, rice], household: "grace", now: Date())
            #expect(try store.list(household: "ada") == before)
            let grace = try store.list(household: "grace")
            #expect(Set(grace.lines.compactMap(\.ingredient)) == ["oats", "rice"])
            #expect(abs(grace.total - (0.2 * 2 + 0.1 * 3)) < 0.001)
            // Oats dearer, given twice (the last wins): ada's total follows, her version does not move.
            var dearer = Self.oats
            dearer.price = Price(amount: 4, per: .kg)
            var dearest = Self.oats
            dearest.price = Price(amount: 5, per: .kg)
            _ = try store.addRecipe(
                "porridge", snapshot: nil, multiplier: 1, exclude: [], ingredients: [dearer, rice, dearest], household: "grace", now: Date())
            let after = try store.list(household: "ada")
            #expect(after.version == before.version)
            #expect(abs(after.total - 5) < 0.001)
        }
    }

    @Test func aVersionIsNeverReusedAfterAnErasure() throws {
        try withTwoStores { store, _, database in
            let first = try store.addNonEdibleItem("candles", count: 1, household: "ada", now: Date())
            _ = try database.eraseHousehold("ada")
            let emptied = try store.list(household: "ada")
            #expect(emptied.lineCount == 0 && emptied.version == 0)
            let again = try store.addNonEdibleItem("matches", count: 1, household: "ada", now: Date())
            #expect(again.version > first.version)
            #expect(try store.list(household: "ada").lines.map(\.name) == ["matches"])
        }
    }

    /// A database written before list recipes were keyed by (user, recipe) (migration v5) keeps
    /// every recipe, its shares and the list's order; a recipe added afterwards goes last, and
    /// the list's version keeps counting up.
    @Test func listsWrittenBeforeTheKeyedTableKeepTheirRecipesAndOrder() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sous-list-upgrade-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let old = try DatabaseQueue(path: directory + "/groceries.sqlite")
        try GroceriesMigrations.migrator.migrate(old, upTo: "v4: a list's versions count up from its own")
        try old.write { db in
            try db.execute(
                sql: "INSERT INTO ingredient (id, name, unit, price_amount, price_per, category) VALUES ('oats', 'Oats', 'g', 2, 'kg', ?)",
                arguments: [ShoppingCategory.breads.rawValue])
            // Added soup, then porridge (for ada), in rowid order; grace's in between.
            for (user, recipe) in [("ada", "soup"), ("grace", "stew"), ("ada", "porridge")] {
                try db.execute(
                    sql: "INSERT INTO list_recipe (user, recipe, name, multiplier, people, servings, added_at) VALUES (?, ?, ?, 1, 2, 2, 0)",
                    arguments: [user, recipe, recipe.capitalized])
                try db.execute(
                    sql: "INSERT INTO recipe_share (user, recipe, position, ingredient, quantity, unit) VALUES (?, ?, 0, 'oats', 100, 'g')",
                    arguments: [user, recipe])
            }
            try db.execute(sql: "INSERT INTO list_version (user, version) VALUES ('ada', 7)")
        }
        try old.close()
        let database = try GroceriesService.openDatabase(at: .sqlite(directory: directory), logger: quietLogger("groceries"))
        let store = GroceriesStore(database: database)
        let before = try store.list(household: "ada")
        #expect(before.recipes.map(\.recipe) == ["soup", "porridge"] && before.version == 7)
        #expect(before.line("oats")?.exactQuantity == 200)
        let snapshot = RecipeSnapshot(
            id: "muesli", name: "Muesli", people: 2, servings: 2, lines: [RecipeSnapshot.Line(ingredient: "oats", quantity: 50, unit: .g)])
        _ = try store.addNonEdibleItem("candles", count: 1, household: "ada", now: Date())
        let added = try store.addRecipe(
            "muesli", snapshot: snapshot, multiplier: 1, exclude: [], ingredients: [Self.oats], household: "ada", now: Date(), withList: true)
        #expect(added.list?.recipes.map(\.recipe) == ["soup", "porridge", "muesli"] && added.version == 9)
        #expect(added.recipeCount == 3 && added.itemCount == 1 && added.checkedCount == 0)
        // Added again without the list: the counts the add read with its own check.
        let again = try store.addRecipe("muesli", snapshot: nil, multiplier: 2, exclude: [], ingredients: [], household: "ada", now: Date())
        #expect(again.recipeCount == 3 && again.itemCount == 1 && again.list == nil && again.version == 10)
        _ = try store.removeRecipe("soup", household: "ada")
        // Porridge's 100 g and muesli's 3 × 50 g are left.
        #expect(try store.list(household: "ada").line("oats")?.exactQuantity == 250, "the soup's share went with it")
        #expect(try store.list(household: "grace").recipes.map(\.recipe) == ["stew"])
    }

}

/// PostgreSQL's side of the keyed `list_recipe` (migration v2 there) and of lists becoming
/// households' (v3): a schema written by v1 keeps its recipes, their shares and order, each
/// user's list now their household's.
@Suite(.closesItsSockets, .enabled(if: TestDatabase.url != nil, "needs the test PostgreSQL (SOUS_TEST_DATABASE_URL)"))
struct PostgresListUpgradeTests {
    @Test func listsWrittenBeforeThePositionColumnKeepTheirRecipesAndOrder() throws {
        let location = try #require(TestDatabase.freshLocation("groceries_upgrade"))
        let first = DatabaseSchema(sqlite: GroceriesMigrations.migrator, postgres: [GroceriesMigrations.postgres[0]])
        let old = try SousDatabase(name: "groceries", location: .postgres(location), schema: first, logger: quietLogger("groceries"))
        try old.write { session in
            try session.execute(
                "INSERT INTO ingredient (id, name, unit, price_amount, price_per, category) VALUES ('oats', 'Oats', 'g', 2, 'kg', ?)",
                [ShoppingCategory.breads.rawValue])
            // Soup, then grace's stew, then ada's porridge: the identity column numbers them.
            for (user, recipe) in [("ada", "soup"), ("grace", "stew"), ("ada", "porridge")] {
                try session.execute(
                    #"INSERT INTO list_recipe ("user", recipe, name, multiplier, people, servings, added_at) VALUES (?, ?, ?, 1, 2, 2, 0)"#,
                    [user, recipe, recipe.capitalized])
                try session.execute(
                    #"INSERT INTO recipe_share ("user", recipe, position, ingredient, quantity, unit) VALUES (?, ?, 0, 'oats', 100, 'g')"#,
                    [user, recipe])
            }
        }
        old.close()
        let database = try GroceriesService.openDatabase(at: .postgres(location), logger: quietLogger("groceries"))
        defer { database.close() }
        let store = GroceriesStore(database: database)
        let before = try store.list(household: "ada")
        #expect(before.recipes.map(\.recipe) == ["soup", "porridge"])
        #expect(before.line("oats")?.exactQuantity == 200)
        let snapshot = RecipeSnapshot(
            id: "muesli", name: "Muesli", people: 2, servings: 2, lines: [RecipeSnapshot.Line(ingredient: "oats", quantity: 50, unit: .g)])
        let added = try store.addRecipe(
            "muesli", snapshot: snapshot, multiplier: 1, exclude: [], ingredients: [ListVersionTests.oats], household: "ada", now: Date(),
            withList: true)
        #expect(added.list?.recipes.map(\.recipe) == ["soup", "porridge", "muesli"] && added.recipeCount == 3)
        _ = try store.removeRecipe("soup", household: "ada")
        #expect(try store.list(household: "ada").line("oats")?.exactQuantity == 150, "the soup's share went with it")
        #expect(try store.list(household: "grace").recipes.map(\.recipe) == ["stew"])
    }
}
