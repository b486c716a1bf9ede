import Foundation
import GroceriesService
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing

/// The pantry, against the real catalog, planner and groceries services: the list takes off
/// what it holds (across units), staples stay off, a cooked meal takes what it used once and
/// never below zero, a checkout restocks it. The shipped catalog's illustrative figures: potatoes
/// €1.30 a kg (170 g each; bags of 1 kg €1.30 and 2.5 kg €3.09), eggs €0.30 each (50 g; boxes of
/// 6 €1.80 and 12 €3.42), butter €10 a kg (250 g €2.50). Every figure is worked out by hand.
@Suite(.closesItsSockets)
struct PantryTests {
    func add(
        _ env: GroceriesEnvironment, _ ingredient: String, _ quantity: Double, _ unit: MeasureUnit? = nil, bestBefore: String? = nil
    ) async throws
        -> Pantry
    {
        try await env.groceries.call(
            PantryAPI.add, PantryAdd(ingredient: ingredient, quantity: quantity, unit: unit, bestBefore: bestBefore.map(localDate)), user: "ada")
    }

    @Test func theListBuysTheNeedLessWhatThePantryHolds() async throws {
        try await withGroceries { env in
            _ = try await env.write(GroceriesAPI.addItem, AddListItem(ingredient: "potato", quantity: 1200, unit: .g))
            _ = try await env.write(GroceriesAPI.addItem, AddListItem(ingredient: "egg", quantity: 7, unit: .piece))
            let before = try await env.list()
            _ = try await add(env, "potato", 250, .g)
            _ = try await add(env, "potato", 2, .piece)  // 2 × 170 g
            let pantry = try await add(env, "egg", 100, .g)  // 2 eggs of 50 g
            #expect(
                pantry.items.map(\.name) == ["Egg", "Potato (floury)", "Potato (floury)"] && pantry.items.allSatisfy { $0.location == "cupboard" })
            let list = try await env.list()
            #expect(list.version > before.version, "a pantry change is a change of the list")

            // Potatoes: need 1200 g, have 250 + 340 = 590 g → buy 610 g: €0.793 by weight, one 1 kg bag €1.30 (390 g over).
            let potato = try #require(list.line("potato"))
            #expect(potato.exactQuantity == 1200 && potato.pantry == PantryCover(have: 590, buy: 610))
            #expect(potato.quantity == 610 && potato.unit == .g && near(potato.price, 0.793))
            #expect(
                potato.packs
                    == PackChoice(packs: [PackCount(pack: PackSize(quantity: 1, unit: .kg, price: 1.30), count: 1)], price: 1.30, leftover: 390))
            // Eggs: need 7, have 2 → buy 5: €1.50, one box of 6 €1.80 (1 over).
            let egg = try #require(list.line("egg"))
            #expect(egg.pantry == PantryCover(have: 2, buy: 5) && egg.quantity == 5 && near(egg.price, 1.50))
            #expect(egg.packs?.packs == [PackCount(pack: PackSize(quantity: 6, unit: .piece, price: 1.80), count: 1)] && egg.packs?.leftover == 1)
            #expect(near(list.total, 2.293) && near(list.totalByPacks, 3.10))

            // More in the pantry than needed: nothing to buy, no packs, no price.
            _ = try await add(env, "egg", 12, .piece)
            let covered = try #require(try await env.list().line("egg"))
            #expect(covered.pantry == PantryCover(have: 14, buy: 0) && covered.quantity == 0 && covered.price == 0 && covered.packs == nil)
        }
    }

    @Test func staplesStayOffTheListUntilTheyRunOut() async throws {
        try await withGroceries { env in
            _ = try await env.add("tomato-lentil-soup", multiplier: 1)
            #expect(try await env.list().line("salt") != nil)
            let pantry = try await env.groceries.call(PantryAPI.staple, StapleSetting(ingredient: "salt", staple: true), user: "ada")
            #expect(pantry.staples == [Staple(ingredient: "salt", name: "Salt", out: false)])
            #expect(try await env.list().line("salt") == nil, "always in the cupboard: not on the list")
            // What a person adds by hand is what they asked for.
            _ = try await env.write(GroceriesAPI.addItem, AddListItem(ingredient: "salt", quantity: 1, unit: .kg))
            #expect(try await env.list().line("salt")?.exactQuantity == 1000)
            _ = try await env.write(GroceriesAPI.removeItem, RemoveListItem(id: try #require(try await env.list().line("salt")?.sources.first?.item)))
            _ = try await env.groceries.call(PantryAPI.staple, StapleSetting(ingredient: "salt", staple: true, out: true), user: "ada")
            #expect(try await env.list().line("salt") != nil, "out of stock: back on the list")
            let off = try await env.groceries.call(PantryAPI.staple, StapleSetting(ingredient: "salt", staple: false), user: "ada")
            #expect(off.staples.isEmpty)
        }
    }

    /// Mash for 2: 600 g potatoes, 50 g butter; cooked for 4 it uses 1200 g and 100 g. The pantry
    /// holds 250 g potatoes (best before 30 May), 1 kg (no date) and 20 g butter: the dated bag
    /// goes first, 950 g come out of the kilo (50 g left), the butter runs out.
    @Test func aCookedMealTakesWhatItUsedOnceAndNeverBelowZero() async throws {
        try await withGroceries { env in
            let mash = try await env.createRecipe(
                "Mash", servings: 2,
                [RecipeIngredient(ingredient: "potato", quantity: 600, unit: .g), RecipeIngredient(ingredient: "butter", quantity: 50, unit: .g)])
            _ = try await add(env, "potato", 1, .kg)
            _ = try await add(env, "potato", 250, .g, bestBefore: "2026-05-30")
            _ = try await add(env, "butter", 20, .g)
            let cook = PantryCook(recipe: mash, people: 4, date: localDate("2026-05-28"), slot: 2)
            let taken = try await env.groceries.call(PantryAPI.cook, cook, user: "ada")
            #expect(!taken.already)
            #expect(
                taken.taken == [
                    PantryUse(ingredient: "potato", name: "Potato (floury)", quantity: 1200, unit: .g, ranOut: false),
                    PantryUse(ingredient: "butter", name: "Butter", quantity: 20, unit: .g, ranOut: true),
                ])
            let pantry = try await env.groceries.call(PantryAPI.get, Empty(), user: "ada")
            #expect(pantry.items.count == 1 && pantry.items[0].ingredient == "potato" && near(pantry.items[0].quantity, 0.05))
            #expect(pantry.items[0].unit == .kg, "what is left of an item stays in its own unit")

            let again = try await env.groceries.call(PantryAPI.cook, cook, user: "ada")
            #expect(again.already && again.taken.isEmpty)
            #expect(try await env.groceries.call(PantryAPI.get, Empty(), user: "ada") == pantry, "the same meal takes once")
        }
    }

    @Test func aCheckoutRestocksThePantryWithWholePacksWhenAsked() async throws {
        try await withGroceries { env in
            _ = try await env.write(GroceriesAPI.addItem, AddListItem(ingredient: "potato", quantity: 1200, unit: .g))
            _ = try await env.write(GroceriesAPI.addItem, AddListItem(ingredient: "butter", quantity: 100, unit: .g))
            let on = try await env.groceries.call(PantryAPI.settings, PantrySettings(restockOnCheckout: true), user: "ada")
            #expect(on.restockOnCheckout)
            _ = try await env.groceries.call(
                GroceriesAPI.checkout,
                Checkout(phone: "+39 06 1234 5678", address: DeliveryAddress(street: "Via Roma 1", postalCode: "00184", city: "Roma")), user: "ada")
            // Potatoes: 2 × 1 kg bags (€2.60) for 1200 g; butter: one 250 g pack for 100 g.
            let pantry = try await env.groceries.call(PantryAPI.get, Empty(), user: "ada")
            #expect(
                pantry.items.map { "\($0.ingredient) \($0.quantity) \($0.unit.rawValue) \($0.location)" } == [
                    "butter 250.0 g fridge", "potato 2000.0 g cupboard",
                ])
        }
    }

    @Test func theTickedLinesClearedAfterShoppingRestockThePantryAndNothingElse() async throws {
        try await withGroceries { env in
            _ = try await env.write(GroceriesAPI.addItem, AddListItem(ingredient: "potato", quantity: 1200, unit: .g))
            _ = try await env.write(GroceriesAPI.addItem, AddListItem(ingredient: "butter", quantity: 100, unit: .g))
            _ = try await env.write(GroceriesAPI.addItem, AddListItem(ingredient: "egg", quantity: 7, unit: .piece))
            _ = try await env.write(GroceriesAPI.check, CheckLines(lines: ["potato", "egg"], checked: true), user: "ada")
            // Without the setting, clearing the ticked lines puts nothing away.
            _ = try await env.write(GroceriesAPI.clear, ClearList(checkedOnly: true), user: "ada")
            #expect(try await env.groceries.call(PantryAPI.get, Empty(), user: "ada").items.isEmpty)

            _ = try await env.groceries.call(PantryAPI.settings, PantrySettings(restockOnCheckout: true), user: "ada")
            _ = try await env.write(GroceriesAPI.addItem, AddListItem(ingredient: "potato", quantity: 1200, unit: .g))
            _ = try await env.write(GroceriesAPI.addItem, AddListItem(ingredient: "egg", quantity: 7, unit: .piece))
            _ = try await env.write(GroceriesAPI.check, CheckLines(lines: ["potato", "egg"], checked: true), user: "ada")
            // Ticking alone changes nothing in the pantry (the line would cover itself).
            #expect(try await env.groceries.call(PantryAPI.get, Empty(), user: "ada").items.isEmpty)
            let cleared = try await env.write(GroceriesAPI.clear, ClearList(checkedOnly: true, withList: true), user: "ada")
            // Potatoes: 2 × 1 kg bags for 1200 g; 7 eggs: a box of 12 (€3.42, less than two of 6 at €1.80).
            let pantry = try await env.groceries.call(PantryAPI.get, Empty(), user: "ada")
            #expect(
                pantry.items.map { "\($0.ingredient) \($0.quantity) \($0.unit.rawValue) \($0.location)" } == [
                    "egg 12.0 piece fridge", "potato 2000.0 g cupboard",
                ])
            // The unticked butter stays on the list, and the emptied list puts nothing away.
            #expect(cleared.lines.map(\.id) == ["butter"])
            _ = try await env.write(GroceriesAPI.clear, ClearList(checkedOnly: false), user: "ada")
            #expect(try await env.groceries.call(PantryAPI.get, Empty(), user: "ada").items.count == 2)
        }
    }

    @Test func expiringListsWhatGoesOffSoonestFirst() async throws {
        try await withGroceries { env in
            // Today is 2026-05-28 (UTC).
            _ = try await add(env, "potato", 1, .kg, bestBefore: "2026-06-10")
            _ = try await add(env, "butter", 250, .g, bestBefore: "2026-05-31")
            _ = try await add(env, "egg", 6, .piece, bestBefore: "2026-05-27")
            _ = try await add(env, "egg", 6, .piece)
            let soon = try await env.groceries.call(PantryAPI.expiring, ExpiringQuery(), user: "ada")
            #expect(soon.today == localDate("2026-05-28") && soon.items.map(\.ingredient) == ["egg", "butter"])
            let fortnight = try await env.groceries.call(PantryAPI.expiring, ExpiringQuery(days: 14), user: "ada")
            #expect(fortnight.items.map(\.ingredient) == ["egg", "butter", "potato"])
        }
    }

    @Test func badInputIsRefusedNamingTheFieldAndWritesNothing() async throws {
        try await withGroceries { env in
            let cases: [(PantryAdd, String)] = [
                (PantryAdd(ingredient: "potato", quantity: 0), "quantity"),
                (PantryAdd(ingredient: "potato", quantity: -1), "quantity"),
                (PantryAdd(ingredient: "potato", quantity: .nan), "quantity"),
                (PantryAdd(ingredient: "potato", quantity: 1e12), "quantity"),
                (PantryAdd(ingredient: "butter", quantity: 1, unit: .piece), "unit"),
                (PantryAdd(ingredient: "potato", quantity: 1, bestBefore: localDate("1999-12-31")), "bestBefore"),
                (PantryAdd(ingredient: "potato", quantity: 1, bestBefore: localDate("2099-01-01")), "bestBefore"),
                (PantryAdd(ingredient: "potato", quantity: 1, location: "   "), "location"),
                (PantryAdd(ingredient: "potato", quantity: 1, location: String(repeating: "x", count: 41)), "location"),
                (PantryAdd(ingredient: "unicorn-dust", quantity: 1), "ingredient"),
                (PantryAdd(ingredient: "", quantity: 1), "ingredient"),
            ]
            for (request, field) in cases {
                let error = await #expect(throws: ServiceError.self) { try await env.groceries.call(PantryAPI.add, request, user: "ada") }
                #expect(error?.field == field && [.badRequest, .notFound].contains(error?.code), "\(request): \(String(describing: error))")
            }
            let hostile = try await add(env, "potato", 1, .kg)
            _ = try await env.groceries.call(
                PantryAPI.add, PantryAdd(ingredient: "potato", quantity: 1, location: "<script>alert(1)</script>"), user: "ada")
            #expect(try await env.groceries.call(PantryAPI.get, Empty(), user: "ada").items.last?.location == "<script>alert(1)</script>")
            let missing = await #expect(throws: ServiceError.self) {
                try await env.groceries.call(PantryAPI.remove, PantryItemRef(id: 999_999), user: "ada")
            }
            #expect(missing?.code == .notFound && missing?.field == "id")
            let theirs = await #expect(throws: ServiceError.self) {
                try await env.groceries.call(PantryAPI.remove, PantryItemRef(id: hostile.items[0].id), user: "bob")
            }
            #expect(theirs?.code == .notFound, "another household's item is not there")
            let out = await #expect(throws: ServiceError.self) {
                try await env.groceries.call(PantryAPI.staple, StapleSetting(ingredient: "salt", staple: false, out: true), user: "ada")
            }
            #expect(out?.code == .badRequest && out?.field == "out")
            let days = await #expect(throws: ServiceError.self) {
                try await env.groceries.call(PantryAPI.expiring, ExpiringQuery(days: 61), user: "ada")
            }
            #expect(days?.field == "days")
            let people = await #expect(throws: ServiceError.self) {
                try await env.groceries.call(
                    PantryAPI.cook, PantryCook(recipe: "tomato-lentil-soup", people: 0, date: localDate("2026-05-28"), slot: 1), user: "ada")
            }
            #expect(people?.field == "people")
            #expect(try await env.groceries.call(PantryAPI.get, Empty(), user: "ada").items.count == 2, "nothing half-written")
        }
    }
}
