import CatalogService
import CatalogTesting
import Foundation
import GroceriesService
import PlannerService
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing

@Suite(.closesItsSockets)
struct ScalingTests {
    /// Quantity = recipe quantity × (people ÷ servings) × multiplier.
    @Test func quantitiesScaleByPeopleServingsAndMultiplier() async throws {
        try await withGroceries { env in
            try await env.setPeople(6)
            // tomato-lentil-soup serves 4 with 200 g red lentils and 1 l vegetable stock.
            let list = try await env.add("tomato-lentil-soup", multiplier: 2)
            let lentils = try #require(list.line("red-lentils"))
            #expect(near(lentils.exactQuantity, 200 * 6.0 / 4 * 2) && lentils.exactUnit == .g)
            #expect(lentils.quantity == 600 && lentils.unit == .g)
            #expect(list.line("vegetable-stock")?.quantity == 3 && list.line("vegetable-stock")?.unit == .l)
            #expect(lentils.sources == [GroceryLineSource(recipe: "tomato-lentil-soup", name: "Tomato and Red Lentil Soup", quantity: 600, unit: .g)])
            let recipe = try #require(list.recipes.first)
            #expect(recipe.people == 6 && recipe.servings == 4 && recipe.multiplier == 2)
        }
    }

    /// The add reads a recipe at its own servings (at the same time as the household's size),
    /// only the fields the list keeps (``RecipeForList``), and scales it itself: the quantities
    /// must be the very doubles the catalog's own scaling gives, or lists built before and after
    /// would not aggregate to the same lines.
    @Test func aRecipeScaledHereEqualsTheCatalogsScalingExactly() async throws {
        try await withGroceries { env in
            let page = try await env.catalog.call(CatalogAPI.searchRecipes, RecipeSearch(pageSize: 24), user: "ada")
            #expect(page.recipes.count == 24)
            for summary in page.recipes {
                let lookup = RecipeLookup(id: summary.id, withIngredients: true)
                let own = try await env.catalog.call(CatalogAPI.getRecipeForList, lookup, user: "ada")
                // The list reads the same reply as these fields only: each the very value of the whole.
                let whole = try await env.catalog.call(CatalogAPI.getRecipe, lookup, user: "ada")
                #expect(own == RecipeForList(whole) && own.ingredientFacts?.isEmpty == false, "\(summary.id)")
                for people in [1, 2, 3, 5, 6, 7, 11, 50] {
                    let scaled = try await env.catalog.call(CatalogAPI.getRecipe, RecipeLookup(id: summary.id, people: people), user: "ada")
                    let snapshot = RecipeSnapshot(own, people: people)
                    let catalogs = scaled.ingredients.map { RecipeSnapshot.Line(ingredient: $0.ingredient, quantity: $0.quantity, unit: $0.unit) }
                    #expect(snapshot.lines == catalogs && snapshot.people == people, "\(summary.id) for \(people)")
                }
            }
        }
    }

    @Test func theDefaultMultiplierIsThePlannersSuggestion() async throws {
        try await withGroceries { env in
            let unplanned = try await env.add("tomato-lentil-soup", user: "ada")
            #expect(unplanned.recipes.first?.multiplier == 1)
            let today = LocalDate(env.clock.now, in: TimeZone(identifier: "UTC")!)
            for (date, slot) in [(today, 1), (today, 2), (today.adding(days: 3), 2)] {
                try await env.planner.call(PlannerAPI.putSlot, SlotAssignment(date: date, slot: slot, recipe: "tomato-lentil-soup"), user: "bob")
            }
            let planned = try await env.add("tomato-lentil-soup", user: "bob")
            #expect(planned.recipes.first?.multiplier == 3)
            // Default people (2) for a recipe serving 4, three times: 200 × 2/4 × 3.
            #expect(near(planned.line("red-lentils")?.exactQuantity, 300))
        }
    }

    /// The household an add scales by is kept from the planner: a change there reaches the next
    /// add once announced, and the planned slots move on at the user's midnight.
    @Test func theKeptHouseholdFollowsThePlannersChangesAndTheUsersMidnight() async throws {
        try await withGroceries { env in
            let soup = "tomato-lentil-soup"
            func readd() async throws -> GroceryList {
                _ = try await env.groceries.call(GroceriesAPI.removeRecipe, RemoveListRecipe(id: soup), user: "ada")
                return try await env.add(soup)
            }
            // 23:59:30 UTC (the default zone) on the first day.
            let day = LocalDate(env.clock.now, in: TimeZone(identifier: "UTC")!)
            _ = env.clock.set(day.adding(days: 1).instant(hour: 0, in: TimeZone(identifier: "UTC")!) - 30)
            let first = try await env.add(soup)
            #expect(first.recipes.map(\.multiplier) == [1] && first.recipes.map(\.people) == [2])
            #expect(env.service.households.fresh(for: "ada") != nil, "kept")

            try await env.setPeople(4)
            #expect(try await readd().recipes.map(\.people) == [4])
            for date in [day, day.adding(days: 1)] {
                try await env.changingHousehold(of: "ada") {
                    try await env.planner.call(PlannerAPI.putSlot, SlotAssignment(date: date, slot: 2, recipe: soup), user: "ada")
                }
            }
            // 200 g for 4 people, planned twice.
            let planned = try await readd()
            #expect(planned.recipes.map(\.multiplier) == [2] && near(planned.line("red-lentils")?.exactQuantity, 400))

            // Forty seconds later, well within the kept value's age, the first day is history.
            _ = env.clock.advance(by: 40)
            #expect(env.service.households.fresh(for: "ada") == nil, "no longer valid after midnight")
            #expect(try await readd().recipes.map(\.multiplier) == [1])
        }
    }

    @Test func addingAgainRaisesTheMultiplierAndSettingItRescalesTheShares() async throws {
        try await withGroceries { env in
            _ = try await env.add("tomato-lentil-soup", multiplier: 1)
            let twice = try await env.add("tomato-lentil-soup", multiplier: 2)
            #expect(twice.recipes.map(\.multiplier) == [3])
            #expect(near(twice.line("red-lentils")?.exactQuantity, 300))
            let set = try await env.write(GroceriesAPI.setRecipe, SetListRecipe(recipe: "tomato-lentil-soup", multiplier: 5), user: "ada")
            #expect(near(set.line("red-lentils")?.exactQuantity, 500))
            let tooMany = await #expect(throws: ServiceError.self) { try await env.add("tomato-lentil-soup", multiplier: 96) }
            #expect(tooMany?.code == .badRequest && tooMany?.field == "multiplier")
        }
    }

    /// The groceries' writes check their idempotency key at commit (no read before the
    /// handler): a retried add is answered as the first attempt was and applied once, also when
    /// the retry would now fail (the recipe taken off the list, the multiplier past 100), and the
    /// same key with another request is a conflict.
    @Test func aRetriedAddIsAppliedOnceAndAnsweredAsTheFirst() async throws {
        try await withGroceries { env in
            let add = AddRecipeToList(recipe: "tomato-lentil-soup", multiplier: 60)
            let first = try await env.groceries.call(GroceriesAPI.addRecipe, add, user: "ada", idempotencyKey: "k1")
            // Run anew, the retry would be refused (60 + 60 > 100): it gets the first reply.
            #expect(try await env.groceries.call(GroceriesAPI.addRecipe, add, user: "ada", idempotencyKey: "k1") == first)
            #expect(try await env.list().recipes.map(\.multiplier) == [60], "a retry raised the multiplier again")
            // Taken off the list, the recipe is not put back by a retry.
            _ = try await env.groceries.call(GroceriesAPI.removeRecipe, RemoveListRecipe(id: "tomato-lentil-soup"), user: "ada")
            #expect(try await env.groceries.call(GroceriesAPI.addRecipe, add, user: "ada", idempotencyKey: "k1") == first)
            #expect(try await env.list().recipes.isEmpty, "a retry put the removed recipe back")
            let other = await #expect(throws: ServiceError.self) {
                try await env.groceries.call(GroceriesAPI.addRecipe, AddRecipeToList(recipe: "mushroom-risotto"), user: "ada", idempotencyKey: "k1")
            }
            #expect(other?.code == .conflict && other?.field == "header.idempotencyKey")
            #expect(try await env.list().recipes.isEmpty)
        }
    }

    /// A line keeps the quantities of the recipe as it was added, even after the recipe is edited.
    @Test func linesAreSnapshotsOfTheRecipeWhenItWasAdded() async throws {
        try await withGroceries { env in
            let id = try await env.createRecipe("Pancakes", servings: 2, [RecipeIngredient(ingredient: "flour", quantity: 200, unit: .g)])
            _ = try await env.add(id, multiplier: 1)
            _ = try await env.catalog.call(
                CatalogAPI.editRecipe,
                RecipeEdit(id: id, changes: RecipeDraft(ingredients: [RecipeIngredient(ingredient: "flour", quantity: 900, unit: .g)])),
                user: "ada"
            )
            try await env.setPeople(4)
            #expect(near(try await env.list().line("flour")?.exactQuantity, 200))
            // Adding it again raises the multiplier of the snapshot, not the edited recipe.
            #expect(near(try await env.add(id, multiplier: 1).line("flour")?.exactQuantity, 400))
        }
    }

    /// An add asks the catalog first (most adds are of a recipe not listed yet): a listed recipe
    /// the catalog no longer gives is added again from its snapshot, and one that is not listed
    /// still gets the catalog's notFound.
    @Test func aListedRecipeIsAddedAgainWhenTheCatalogNoLongerHasIt() async throws {
        try await withGroceries { env in
            let id = try await env.createRecipe("Pancakes", servings: 2, [RecipeIngredient(ingredient: "flour", quantity: 200, unit: .g)])
            _ = try await env.add(id, multiplier: 1)
            _ = try await env.catalog.call(CatalogAPI.deleteRecipe, RecipeID(id: id), user: "ada")
            let again = try await env.add(id, multiplier: 2)
            #expect(again.recipes.map(\.multiplier) == [3])
            #expect(near(again.line("flour")?.exactQuantity, 600))
            let gone = await #expect(throws: ServiceError.self) { try await env.add(id, multiplier: 1, user: "grace") }
            #expect(gone?.code == .notFound && gone?.field == "recipe")
        }
    }
}

@Suite(.closesItsSockets)
struct AggregationTests {
    @Test func mixedUnitsAcrossRecipesMakeOneLine() async throws {
        try await withGroceries { env in
            // Default profile: 2 people, so recipes serving 2 are not scaled.
            let a = try await env.createRecipe(
                "Crêpes", servings: 2,
                [
                    RecipeIngredient(ingredient: "flour", quantity: 500, unit: .g), RecipeIngredient(ingredient: "egg", quantity: 2, unit: .piece),
                    RecipeIngredient(ingredient: "onion", quantity: 1, unit: .piece),
                ])
            let b = try await env.createRecipe(
                "Bread", servings: 2,
                [
                    RecipeIngredient(ingredient: "flour", quantity: 1, unit: .kg), RecipeIngredient(ingredient: "egg", quantity: 100, unit: .g),
                    RecipeIngredient(ingredient: "onion", quantity: 55, unit: .g),
                ])
            _ = try await env.add(a, multiplier: 1)
            let list = try await env.add(b, multiplier: 1)
            let flour = try #require(list.line("flour"))
            #expect(flour.quantity == 1.5 && flour.unit == .kg)
            #expect(flour.sources.map(\.recipe) == [a, b])
            // Eggs are counted (50 g each): 2 + 100 g = 4 eggs.
            #expect(list.line("egg")?.quantity == 4 && list.line("egg")?.unit == .piece)
            // Onions are counted too (110 g each): 1 + 55 g = 1.5 → 2 to buy, 1.5 exactly.
            #expect(near(list.line("onion")?.exactQuantity, 1.5) && list.line("onion")?.quantity == 2)
            #expect(list.lines.count { $0.ingredient == "flour" } == 1)
        }
    }

    /// Removing a recipe leaves exactly what a list of the other recipes alone would hold.
    @Test func removingARecipeRestoresTheOtherRecipesExactQuantities() async throws {
        try await withGroceries { env in
            // Three seed recipes sharing onion, garlic, olive oil and salt.
            let chosen = ["tomato-lentil-soup", "shakshuka", "buttermilk-pancakes"]
            try await env.setPeople(3, user: "ada")
            try await env.setPeople(3, user: "bob")
            for recipe in chosen { _ = try await env.add(recipe, multiplier: 2, user: "ada") }
            _ = try await env.add(chosen[0], multiplier: 2, user: "bob")
            let expected = try await env.add(chosen[2], multiplier: 2, user: "bob")
            let removed = try await env.write(GroceriesAPI.removeRecipe, RemoveListRecipe(id: chosen[1]), user: "ada")
            #expect(removed.categories == expected.categories)
            #expect(removed.total == expected.total)
            #expect(removed.recipes.map(\.recipe) == [chosen[0], chosen[2]])
            let missing = await #expect(throws: ServiceError.self) {
                try await env.write(GroceriesAPI.removeRecipe, RemoveListRecipe(id: chosen[1]), user: "ada")
            }
            #expect(missing?.code == .notFound)
        }
    }

    @Test func excludedIngredientsStayOffTheListUntilIncluded() async throws {
        try await withGroceries { env in
            let list = try await env.add("tomato-lentil-soup", multiplier: 1, exclude: ["salt", "olive-oil"])
            #expect(list.line("salt") == nil && list.line("olive-oil") == nil)
            #expect(list.line("red-lentils") != nil)
            #expect(list.recipes.first?.excluded == ["olive-oil", "salt"])
            let back = try await env.write(GroceriesAPI.setRecipe, SetListRecipe(recipe: "tomato-lentil-soup", include: ["salt"]), user: "ada")
            #expect(back.line("salt") != nil && back.line("olive-oil") == nil)
            let unknown = await #expect(throws: ServiceError.self) {
                try await env.write(GroceriesAPI.setRecipe, SetListRecipe(recipe: "tomato-lentil-soup", exclude: ["chocolate"]), user: "ada")
            }
            #expect(unknown?.code == .notFound && unknown?.field == "exclude.0")
            let notInRecipe = await #expect(throws: ServiceError.self) { try await env.add("buttermilk-pancakes", exclude: ["red-lentils"]) }
            #expect(notInRecipe?.code == .notFound && notInRecipe?.field == "exclude.0")
        }
    }
}

@Suite(.closesItsSockets)
struct PriceTests {
    @Test func pricesAndTotalMatchAHandComputation() async throws {
        try await withGroceries { env in
            // Prices from the catalog: flour per kg, milk per l, eggs per piece.
            let flour = try await env.ingredient("flour"), milk = try await env.ingredient("milk"), egg = try await env.ingredient("egg")
            #expect(flour.price?.per == .kg && milk.price?.per == .l && egg.price?.per == .piece)
            let id = try await env.createRecipe(
                "Batter", servings: 2,
                [
                    RecipeIngredient(ingredient: "flour", quantity: 500, unit: .g), RecipeIngredient(ingredient: "milk", quantity: 500, unit: .ml),
                    RecipeIngredient(ingredient: "egg", quantity: 3, unit: .piece),
                ])
            _ = try await env.add(id, multiplier: 1)
            let list = try await env.write(GroceriesAPI.addItem, AddListItem(ingredient: "flour", quantity: 250, unit: .g), user: "ada")
            let flourPrice = 0.75 * (flour.price?.amount ?? .nan), milkPrice = 0.5 * (milk.price?.amount ?? .nan),
                eggPrice = 3 * (egg.price?.amount ?? .nan)
            #expect(near(list.line("flour")?.price, flourPrice))
            #expect(near(list.line("milk")?.price, milkPrice))
            #expect(near(list.line("egg")?.price, eggPrice))
            #expect(near(list.total, flourPrice + milkPrice + eggPrice))
            #expect(list.line("flour")?.quantity == 750 && list.line("flour")?.sources.last?.recipe == nil)
        }
    }
}

@Suite(.closesItsSockets)
struct ItemsAndCheckOffTests {
    /// An item's ingredient may be named as search takes it ("aubergine" is `eggplant`).
    @Test func anItemsIngredientMayBeNamedByASynonym() async throws {
        try await withGroceries { env in
            let list = try await env.write(GroceriesAPI.addItem, AddListItem(ingredient: "aubergine", quantity: 300, unit: .g), user: "ada")
            #expect(list.line("eggplant")?.quantity == 300)
        }
    }

    @Test func manualItemsMergeOrGoUnderOther() async throws {
        try await withGroceries { env in
            _ = try await env.add("tomato-lentil-soup", multiplier: 1)
            let before = try #require(try await env.list().line("red-lentils")?.exactQuantity)
            _ = try await env.write(GroceriesAPI.addItem, AddListItem(ingredient: "red-lentils", quantity: 0.5, unit: .kg), user: "ada")
            let list = try await env.write(GroceriesAPI.addItem, AddListItem(text: " paper towels ", count: 2), user: "ada")
            #expect(near(list.line("red-lentils")?.exactQuantity, before + 500))
            #expect(list.line("red-lentils")?.sources.last?.name == "manual")
            let towels = try #require(list.categories.last?.lines.first)
            #expect(list.categories.last?.category == .other && towels.name == "paper towels" && towels.count == 2)
            for bad in [
                AddListItem(text: "   "), AddListItem(), AddListItem(ingredient: "egg"), AddListItem(ingredient: "egg", quantity: -1),
                AddListItem(ingredient: "egg", quantity: 1, text: "eggs"), AddListItem(text: "bags", count: 0),
            ] {
                let error = await #expect(throws: ServiceError.self) { try await env.write(GroceriesAPI.addItem, bad, user: "ada") }
                #expect(error?.code == .badRequest && error?.field != nil, "\(bad)")
            }
            let unknown = await #expect(throws: ServiceError.self) {
                try await env.write(GroceriesAPI.addItem, AddListItem(ingredient: "unicorn", quantity: 1), user: "ada")
            }
            #expect(unknown?.code == .notFound && unknown?.field == "ingredient")
        }
    }

    @Test func checkUncheckAndClear() async throws {
        try await withGroceries { env in
            _ = try await env.add("tomato-lentil-soup", multiplier: 1)
            let added = try await env.write(GroceriesAPI.addItem, AddListItem(text: "bin bags"), user: "ada")
            let item = try #require(added.lines.first { $0.ingredient == nil }).id
            let checked = try await env.write(GroceriesAPI.check, CheckLines(lines: ["red-lentils", item], checked: true), user: "ada")
            #expect(checked.checkedCount == 2 && checked.line("red-lentils")?.checked == true)
            #expect(checked.lines.map(\.id) == added.lines.map(\.id), "checked lines stay in place")
            let unchecked = try await env.write(GroceriesAPI.check, CheckLines(lines: [item], checked: false), user: "ada")
            #expect(unchecked.checkedCount == 1 && unchecked.line(item)?.checked == false)
            let unknown = await #expect(throws: ServiceError.self) {
                try await env.write(GroceriesAPI.check, CheckLines(lines: ["red-lentils", "caviar"], checked: true), user: "ada")
            }
            #expect(unknown?.code == .notFound && unknown?.field == "lines.1")
            let cleared = try await env.write(GroceriesAPI.clear, ClearList(checkedOnly: true), user: "ada")
            #expect(cleared.line("red-lentils") == nil && cleared.line(item) != nil)
            #expect(cleared.lineCount == added.lineCount - 1 && cleared.checkedCount == 0)
            let number = try #require(Int64(item.dropFirst("item:".count)))
            let removed = try await env.write(GroceriesAPI.removeItem, RemoveListItem(id: number), user: "ada")
            #expect(removed.line(item) == nil && removed.lineCount == cleared.lineCount - 1)
            let gone = await #expect(throws: ServiceError.self) {
                try await env.write(GroceriesAPI.removeItem, RemoveListItem(id: number), user: "ada")
            }
            #expect(gone?.code == .notFound && gone?.field == "id")
            let empty = try await env.write(GroceriesAPI.clear, ClearList(checkedOnly: false), user: "ada")
            #expect(empty.lineCount == 0 && empty.recipes.isEmpty && empty.total == 0)
        }
    }
}

@Suite(.closesItsSockets)
struct CheckoutTests {
    let address = DeliveryAddress(street: "Via Roma 1", postalCode: "00184", city: "Roma")

    @Test func checkoutStoresTheOrderAndEmptiesTheList() async throws {
        try await withGroceries { env in
            let emptyList = await #expect(throws: ServiceError.self) {
                try await env.groceries.call(GroceriesAPI.checkout, Checkout(phone: "+39 06 1234 5678", address: address), user: "ada")
            }
            #expect(emptyList?.code == .badRequest && emptyList?.field == "list")
            let list = try await env.add("tomato-lentil-soup", multiplier: 1)
            let invalid = await #expect(throws: ServiceError.self) {
                try await env.groceries.call(
                    GroceriesAPI.checkout, Checkout(phone: "555", address: DeliveryAddress(street: "Via Roma 1", postalCode: nil, city: "")),
                    user: "ada"
                )
            }
            #expect(invalid?.code == .badRequest && invalid?.field == "phone")
            #expect(invalid?.message.contains("address.postalCode") == true && invalid?.message.contains("address.city") == true)
            let unchanged = try await env.list()
            #expect(unchanged.lineCount == list.lineCount, "a refused checkout changes nothing")

            let order = try await env.groceries.call(GroceriesAPI.checkout, Checkout(phone: "+39 06 1234 5678", address: address), user: "ada")
            #expect(order.phone == "+390612345678" && order.address == address && order.placedAt == testStart)
            #expect(order.lines.count == list.lineCount && near(order.total, list.total) && order.recipes == ["tomato-lentil-soup"])
            #expect(order.lines.map(\.name) == list.lines.map(\.name))
            #expect(try await env.list().lineCount == 0)

            env.clock.advance(by: 3600)
            _ = try await env.write(GroceriesAPI.addItem, AddListItem(text: "candles", count: 3), user: "ada")
            let second = try await env.groceries.call(
                GroceriesAPI.checkout, Checkout(phone: "06 1234 5678", address: address, note: "ring twice"), user: "ada")
            let history = try await env.groceries.call(GroceriesAPI.orders, OrderQuery(), user: "ada")
            #expect(history.orders.map(\.id) == [second.id, order.id])
            #expect(history.orders.first == second && history.orders.last == order)
            #expect(try await env.groceries.call(GroceriesAPI.orders, OrderQuery(), user: "bob").orders.isEmpty)
        }
    }
}

@Suite(.closesItsSockets)
struct GroceriesErrorTests {
    @Test func unknownIdsAndAbsurdNumbersAreRefused() async throws {
        try await withGroceries { env in
            let unknown = await #expect(throws: ServiceError.self) { try await env.add("no-such-recipe", multiplier: 1) }
            #expect(unknown?.code == .notFound && unknown?.field == "recipe")
            for multiplier in [0, -3, 101] {
                let error = await #expect(throws: ServiceError.self) { try await env.add("tomato-lentil-soup", multiplier: multiplier) }
                #expect(error?.code == .badRequest && error?.field == "multiplier")
            }
            let notListed = await #expect(throws: ServiceError.self) {
                try await env.write(GroceriesAPI.setRecipe, SetListRecipe(recipe: "buttermilk-pancakes", multiplier: 2), user: "ada")
            }
            #expect(notListed?.code == .notFound && notListed?.field == "recipe")
            let noUser = await #expect(throws: ServiceError.self) { try await env.groceries.call(GroceriesAPI.list, Empty()) }
            #expect(noUser?.code == .unauthorized)
            let after = try await env.list()
            #expect(after.lineCount == 0, "nothing was written")
        }
    }

    @Test func aPlannerThatDoesNotAnswerIsNamed() async throws {
        let catalog = try CatalogFixture.make()
        var configuration = ServiceConfiguration.inProcess(.groceries, peers: [.catalog: catalog.host.boundEndpoints])
        configuration.makeAbsent(.planner)
        let groceries = try GroceriesService(configuration: configuration, logger: quietLogger("groceries"))
        try await withRunningServices([catalog.host, groceries.host]) { _ in
            let client = groceries.host.client(Groceries.self)
            let error = await #expect(throws: ServiceError.self) {
                try await client.call(GroceriesAPI.addRecipe, AddRecipeToList(recipe: "tomato-lentil-soup", multiplier: 1), user: "ada")
            }
            #expect(error?.code == .unavailable && error?.message.contains("planner") == true)
        }
    }
}

@Suite(.closesItsSockets)
struct GroceriesEventTests {
    @Test func changesPublishGroceriesChangedAndActivity() async throws {
        try await withGroceries { env in
            let subscriber = EventSubscriber(
                endpoints: [env.service.host.boundEndpoints.events], prefixes: [GroceriesTopics.changed.name, EventTopics.activity.name],
                logger: quietLogger("sub")
            )
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await subscriber.run() }
                await subscriber.waitUntilSubscribed()
                // Subscriptions propagate asynchronously; keep acting until the first event arrives.
                let writer = Task {
                    for _ in 0..<200 {
                        if Task.isCancelled { return }
                        _ = try? await env.write(GroceriesAPI.addItem, AddListItem(text: "napkins"), user: "ada")
                    }
                }
                let changed = try await firstElement(of: subscriber.events, within: .seconds(10)) { $0.header.topic == GroceriesTopics.changed.name }
                let activity = try await firstElement(of: subscriber.events, within: .seconds(10)) { $0.header.topic == EventTopics.activity.name }
                writer.cancel()
                let body = try changed.decode(GroceriesChangedEvent.self)
                #expect(body.user == "ada" && body.change == "groceries.addItem" && body.version >= 1)
                #expect(try activity.decode(ActivityEvent.self).service == "groceries")
                group.cancelAll()
            }
        }
    }
}

@Suite(.closesItsSockets)
struct GroceriesQuotaTests {
    /// One user cannot fill the disk: past the quota a write is refused, naming what is full,
    /// and nothing is written; other users are not affected.
    @Test func itemsPastTheQuotaAreRefused() async throws {
        try await withGroceries { env in
            let client = env.groceries
            try await withThrowingTaskGroup(of: Void.self) { group in
                for batch in 0..<10 {
                    group.addTask {
                        for index in 0..<50 {
                            _ = try await client.call(GroceriesAPI.addItem, AddListItem(text: "thing \(batch)-\(index)"), user: "ada")
                        }
                    }
                }
                try await group.waitForAll()
            }
            let refused = await #expect(throws: ServiceError.self) {
                try await client.call(GroceriesAPI.addItem, AddListItem(text: "one more"), user: "ada")
            }
            #expect(refused?.code == .quotaExceeded && refused?.field == "text" && refused?.message.contains("500") == true)
            #expect(try await client.call(GroceriesAPI.list, Empty(), user: "ada").lineCount == 500)
            _ = try await client.call(GroceriesAPI.addItem, AddListItem(text: "bread"), user: "bob")
        }
    }
}

/// What a shopper sees: no tap water, spoonfuls of spices in grams, frying oil bought in full.
@Suite(.closesItsSockets)
struct ShoppingUnitsTests {
    @Test func tapWaterIsLeftOffAndSpoonfulsOfSpicesAreShownInGrams() async throws {
        try await withGroceries { env in
            try await env.setPeople(4)
            // red-lentil-dal serves 4: 900 ml water, 1 tsp salt (6 g at 1.2 g/ml), 1 tsp cumin (2 g at 0.4 g/ml).
            let list = try await env.add("red-lentil-dal", multiplier: 1)
            #expect(list.line("water") == nil, "water comes from the tap")
            #expect(list.lines.allSatisfy { $0.name != "Water" })
            let salt = try #require(list.line("salt"))
            #expect(salt.unit == .g && near(salt.quantity, 6) && salt.exactUnit == .g && near(salt.exactQuantity, 6))
            let cumin = try #require(list.line("cumin"))
            #expect(cumin.unit == .g && near(cumin.quantity, 2))
            #expect(near(salt.price, 6.0 / 1000 * 0.6), "priced by weight as before")
            // Liquids bought by volume stay in ml.
            let coconut = try #require(list.line("coconut-milk"))
            #expect(coconut.unit == .ml && near(coconut.quantity, 200))

            // Water the user puts on the list themselves is what they asked for.
            let manual = try await env.write(GroceriesAPI.addItem, AddListItem(ingredient: "water", quantity: 1, unit: .l), user: "ada")
            #expect(manual.line("water")?.sources.map(\.name) == ["manual"])
        }
    }

    @Test func aFryingBathIsBoughtInFull() async throws {
        try await withGroceries { env in
            try await env.setPeople(4)
            let list = try await env.add("crispy-homemade-fries", multiplier: 1)
            let oil = try #require(list.line("sunflower-oil"))
            #expect(oil.unit == .l && near(oil.quantity, 1.5) && near(oil.price, 1.5 * 2.5))
        }
    }
}

@Suite(.closesItsSockets)
struct ListPackTests {
    /// The shipped catalog's packs (illustrative): potatoes 1 kg €1.30 and 2.5 kg €3.09 (€1.30 a
    /// kg loose); eggs 6 for €1.80 and 12 for €3.42 (€0.30 each loose).
    @Test func eachLineShowsItsCheapestPacksAndTheListItsTotalByPacks() async throws {
        try await withGroceries { env in
            _ = try await env.write(GroceriesAPI.addItem, AddListItem(ingredient: "potato", quantity: 1200, unit: .g))
            let list = try await env.write(GroceriesAPI.addItem, AddListItem(ingredient: "egg", quantity: 7, unit: .piece))
            // Potatoes: 2 × 1 kg €2.60 (800 g over) beats 2.5 kg €3.09; loose 1.2 kg × €1.30 = €1.56.
            let potato = try #require(list.line("potato"))
            #expect(potato.packs?.packs == [PackCount(pack: PackSize(quantity: 1, unit: .kg, price: 1.30), count: 2)])
            #expect(potato.packs?.price == 2.60 && potato.packs?.leftover == 800 && near(potato.price, 1.56))
            // Eggs: a box of 12 €3.42 (5 over) beats two of 6 €3.60; loose 7 × €0.30 = €2.10.
            let egg = try #require(list.line("egg"))
            #expect(egg.packs?.packs == [PackCount(pack: PackSize(quantity: 12, unit: .piece, price: 3.42), count: 1)])
            #expect(egg.packs?.price == 3.42 && egg.packs?.leftover == 5 && near(egg.price, 2.10))
            #expect(near(list.total, 3.66) && near(list.totalByPacks, 6.02))
            // A non-edible item has no packs and counts nothing.
            let withItem = try await env.write(GroceriesAPI.addItem, AddListItem(text: "paper towels", count: 2))
            #expect(withItem.lines.first { $0.ingredient == nil }?.packs == nil && near(withItem.totalByPacks, 6.02))
        }
    }
}
