import CatalogService
import CatalogTesting
import Foundation
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing
import TrackerService

@Suite(.closesItsSockets)
struct BarcodeTests {
    @Test func checkDigitsOfEAN13EAN8AndUPCA() {
        // Published examples: an EAN-13, an EAN-8 and a UPC-A code with correct check digits.
        #expect(Barcode.check("4006381333931") == .success(.ean13))
        #expect(Barcode.check("96385074") == .success(.ean8))
        #expect(Barcode.check("036000291452") == .success(.upcA))
        for wrong in ["4006381333932", "96385075", "036000291453"] {
            guard case .failure = Barcode.check(wrong) else {
                Issue.record("\(wrong) has a wrong check digit")
                continue
            }
        }
        for malformed in ["", "12345", "40063813339311", "40063813339a1", " 4006381333931"] {
            guard case .failure = Barcode.check(malformed) else {
                Issue.record("\(malformed) is not a barcode")
                continue
            }
        }
    }

    @Test func everyShippedProductHasAValidInStoreCodeAndUSDANutrition() throws {
        let seed = try ProductSeed.bundled()
        #expect((35...45).contains(seed.products.count))
        #expect(Set(seed.products.map(\.code)).count == seed.products.count, "codes are unique")
        let usda = Dictionary(
            (try CatalogFixture.seed).ingredients.compactMap { ingredient in ingredient.usdaNdb.map { ($0, ingredient.nutrition) } }
        ) { first, _ in first }
        for product in seed.products {
            #expect(Barcode.check(product.code) == .success(.ean13), "\(product.code)")
            #expect((200...299).contains(Int(product.code.prefix(3))!), "\(product.code) is in the in-store range")
            let ndb = try #require(product.usdaNdb, "\(product.name) names its USDA food")
            let nutrition = try #require(usda[ndb], "\(ndb) is a catalog ingredient's SR28 number")
            #expect(
                product.per100g
                    == Macros(kcal: nutrition.kcal, carbohydrates: nutrition.carbohydrates, protein: nutrition.protein, fat: nutrition.fat))
        }
    }

    @Test func lookupValidatesAndLogsByBarcode() async throws {
        try await withTracker(planner: false) { world in
            let spaghetti = try await world.call(TrackerAPI.product, BarcodeLookup(code: "2100000000005"))
            #expect(spaghetti.name == "Spaghetti No. 5" && spaghetti.brand == "Campo Dorato" && spaghetti.allergens == ["en:gluten"])
            let invalid = await world.failure(TrackerAPI.product, BarcodeLookup(code: "2100000000006"))
            #expect(invalid?.code == .badRequest && invalid?.field == "code")
            let unknown = await world.failure(TrackerAPI.product, BarcodeLookup(code: "4006381333931"))
            #expect(unknown?.code == .notFound)

            let entry = try await world.call(
                TrackerAPI.addEntry, DiaryAdd(date: localDate("2026-03-10"), meal: .dinner, grams: 125, barcode: spaghetti.code))
            #expect(
                entry.food == "Spaghetti No. 5" && entry.per100g == spaghetti.per100g
                    && entry.source == EntrySource(kind: .product, reference: spaghetti.code))
            let badLog = await world.failure(
                TrackerAPI.addEntry, DiaryAdd(date: localDate("2026-03-10"), meal: .dinner, grams: 125, barcode: "12345678"))
            #expect(badLog?.code == .badRequest && badLog?.field == "barcode")
        }
    }

    /// A product a user adds is theirs alone: it comes first for them, and never replaces the
    /// shipped product or another user's.
    @Test func productsAUserAddsAreTheirOwn() async throws {
        try await withTracker(planner: false) { world in
            let shipped = try await world.call(TrackerAPI.product, BarcodeLookup(code: "2100000000005"), user: "bob")
            #expect(shipped.source == "seed")
            var mine = shipped
            mine.source = "yours"
            mine.name = "Ada's spaghetti"
            mine.per100g = Macros(kcal: 777, carbohydrates: 1, protein: 1, fat: 1)
            #expect(try await world.call(TrackerAPI.addProduct, mine, user: "ada") == mine)
            #expect(try await world.call(TrackerAPI.product, BarcodeLookup(code: shipped.code), user: "ada") == mine)
            #expect(
                try await world.call(TrackerAPI.product, BarcodeLookup(code: shipped.code), user: "bob") == shipped, "the shipped one is untouched")
            let logged = try await world.call(
                TrackerAPI.addEntry, DiaryAdd(date: localDate("2026-03-10"), meal: .lunch, grams: 100, barcode: shipped.code), user: "ada")
            #expect(logged.per100g.kcal == 777)
            // A code nobody ships: Ada's only.
            let crackers = Product(
                code: "4006381333931", name: "Crackers", brand: nil, quantity: nil,
                per100g: Macros(kcal: 420, carbohydrates: 70, protein: 9, fat: 11), allergens: [])
            _ = try await world.call(TrackerAPI.addProduct, crackers, user: "ada")
            #expect(await world.failure(TrackerAPI.product, BarcodeLookup(code: crackers.code), user: "bob")?.code == .notFound)
            let bad = await world.failure(
                TrackerAPI.addProduct, Product(code: "12345678", name: "x", brand: nil, quantity: nil, per100g: crackers.per100g, allergens: []),
                user: "ada")
            #expect(bad?.code == .badRequest && bad?.field == "code")
        }
    }
}

@Suite(.closesItsSockets)
struct ProductImportTests {
    static let products = [
        Product(
            code: "4006381333931", name: "Pen Biscuits", brand: "Stabilo Snacks", quantity: "200 g",
            per100g: Macros(kcal: 480, carbohydrates: 65.5, protein: 7, fat: 21.2), allergens: ["en:gluten", "en:milk"]),
        Product(
            code: "036000291452", name: "Oat Drink", brand: nil, quantity: nil, per100g: Macros(kcal: 46, carbohydrates: 6.7, protein: 1, fat: 1.5),
            allergens: []),
    ]

    @Test func importedProductsCanBeLookedUpAndLogged() async throws {
        try await withTracker(planner: false) { world in
            let products = Self.products
            let result = try await world.call(TrackerAPI.importProducts, ProductImport(source: "test-off", products: products), user: "operator")
            #expect(result == ProductImportResult(added: 2, replaced: 0))
            #expect(try await world.call(TrackerAPI.product, BarcodeLookup(code: "036000291452")).name == "Oat Drink")
            let again = try await world.call(TrackerAPI.importProducts, ProductImport(source: "test-off", products: [products[0]]), user: "operator")
            #expect(again == ProductImportResult(added: 0, replaced: 1))

            var broken = products
            broken[1].code = "036000291453"
            let refused = await world.failure(
                TrackerAPI.importProducts, ProductImport(source: "x", products: [products[0], broken[1]]), user: "operator")
            #expect(refused?.code == .badRequest && refused?.field == "products.1.code")
        }
    }
}

@Suite(.closesItsSockets)
struct RecipeLoggingTests {
    @Test func aRecipeServingIsLoggedFromTheRealCatalog() async throws {
        try await withTracker(planner: false, catalog: true) { world in
            let catalogEndpoint = world.tracker.host.configuration.endpoints(of: .catalog).requests
            let catalog = ServiceClient<Catalog>(
                endpoint: catalogEndpoint, options: .init(timeout: .seconds(30), retries: 0), session: TestSessions.token(for: "reader")
            )
            let recipe = try await catalog.call(CatalogAPI.getRecipe, RecipeLookup(id: "tomato-lentil-soup"))
            let servingGrams = recipe.ingredients.reduce(0) { $0 + $1.grams } / Double(recipe.servings)

            let entry = try await world.call(
                TrackerAPI.logRecipeServing, RecipeServingLog(date: localDate("2026-03-10"), meal: .dinner, recipe: recipe.id, servings: 2))
            #expect(entry.food == recipe.name && entry.source == EntrySource(kind: .recipe, reference: recipe.id))
            #expect(near([entry.grams], [servingGrams * 2]))
            let perServing = recipe.nutritionPerServing
            #expect(
                near(
                    [entry.totals.kcal, entry.totals.protein, entry.totals.carbohydrates, entry.totals.fat],
                    [perServing.kcal * 2, perServing.protein * 2, perServing.carbohydrates * 2, perServing.fat * 2]))
            let status = try await world.call(TrackerAPI.diaryStatus, DiaryStatusRequest(date: localDate("2026-03-10")))
            #expect(status.mealsLogged == [.dinner] && near([status.kcal], [perServing.kcal * 2]))
            // `date` may be left out, as in every day-based tracker request: today in the user's zone.
            let today = LocalDate(world.clock.now, in: .gmt)
            let lunch = try await world.call(TrackerAPI.logRecipeServing, RecipeServingLog(meal: .lunch, recipe: recipe.id))
            #expect(lunch.date == today)
            #expect(try await world.call(TrackerAPI.diaryStatus, DiaryStatusRequest()).date == today)

            let unknown = await world.failure(
                TrackerAPI.logRecipeServing, RecipeServingLog(date: localDate("2026-03-10"), meal: .dinner, recipe: "no-such-recipe"))
            #expect(unknown?.code == .notFound && unknown?.field == "recipe")
            let zero = await world.failure(
                TrackerAPI.logRecipeServing, RecipeServingLog(date: localDate("2026-03-10"), meal: .dinner, recipe: recipe.id, servings: 0))
            #expect(zero?.code == .badRequest && zero?.field == "servings")

            let egg = try await world.call(
                TrackerAPI.addEntry, DiaryAdd(date: localDate("2026-03-10"), meal: .breakfast, grams: 60, ingredient: "egg"))
            #expect(egg.food == "Egg" && egg.source == EntrySource(kind: .ingredient, reference: "egg") && egg.per100g.protein > 10)
            // Named as search takes it: by a synonym, recorded by the ingredient's id.
            let aubergine = try await world.call(
                TrackerAPI.addEntry, DiaryAdd(date: localDate("2026-03-10"), meal: .dinner, grams: 200, ingredient: "aubergine"))
            #expect(aubergine.source == EntrySource(kind: .ingredient, reference: "eggplant"))
            #expect(
                await world.failure(TrackerAPI.addEntry, DiaryAdd(date: localDate("2026-03-10"), meal: .breakfast, grams: 60, ingredient: "unicorn"))?
                    .field
                    == "ingredient")
        }
    }
}
