import Foundation
import GroceriesService
import SousSchema
import SousTestSupport
import SousUnits
import SousWire
import Testing

/// Facts for hand-made ingredients, so the expected numbers can be worked out on paper.
enum Facts {
    static let flour = ListIngredientFacts(
        id: "flour", name: "Flour", unit: .g, gramsPerPiece: nil, gramsPerMl: 0.5, price: Price(amount: 2, per: .kg), category: .baking
    )
    static let egg = ListIngredientFacts(
        id: "egg", name: "Egg", unit: .piece, gramsPerPiece: 50, gramsPerMl: nil, price: Price(amount: 0.3, per: .piece), category: .dairy
    )
    static let milk = ListIngredientFacts(
        id: "milk", name: "Milk", unit: .ml, gramsPerPiece: nil, gramsPerMl: 1.03, price: Price(amount: 1.2, per: .l), category: .dairy
    )
    static let onion = ListIngredientFacts(
        id: "onion", name: "Onion", unit: .g, gramsPerPiece: 150, gramsPerMl: nil, price: Price(amount: 2, per: .kg), category: .produce
    )
    static let all = Dictionary(uniqueKeysWithValues: [flour, egg, milk, onion].map { ($0.id, $0) })
}

func share(_ ingredient: String, _ quantity: Double, _ unit: MeasureUnit, from recipe: String = "r") -> GroceryContribution {
    GroceryContribution(
        ingredient: ingredient, quantity: quantity, unit: unit,
        source: GroceryLineSource(recipe: recipe, name: recipe, quantity: quantity, unit: unit))
}

func build(_ contributions: [GroceryContribution], items: [NonEdibleItem] = [], checked: Set<String> = []) -> GroceryList {
    GroceryAggregator.build(recipes: [], contributions: contributions, items: items, ingredients: Facts.all, checked: checked)
}

@Suite(.closesItsSockets)
struct GroceryUnitsTests {
    @Test func massAddsUpAcrossGramsAndKilogramsAndIsShownInKilograms() {
        let list = build([share("flour", 500, .g, from: "a"), share("flour", 1, .kg, from: "b")])
        let line = list.line("flour")
        #expect(line?.quantity == 1.5 && line?.unit == .kg)
        #expect(line?.exactQuantity == 1500 && line?.exactUnit == .g)
        #expect(line?.sources.map(\.recipe) == ["a", "b"])
    }

    @Test func piecesMeetMassThroughTheirWeightInTheIngredientsUsualFamily() {
        // Onion is usually weighed: 1 piece (150 g) + 200 g = 350 g.
        let onion = build([share("onion", 1, .piece), share("onion", 200, .g)]).line("onion")
        #expect(onion?.quantity == 350 && onion?.unit == .g)
        // Eggs are usually counted: 2 pieces + 100 g (2 × 50 g) = 4 pieces.
        let egg = build([share("egg", 2, .piece), share("egg", 100, .g)]).line("egg")
        #expect(egg?.quantity == 4 && egg?.unit == .piece)
    }

    @Test func volumesAddUpInMillilitresAndLitres() {
        // 2 tbsp (30 ml) + 1 tsp (5 ml) + 1 l = 1035 ml → 1.04 l (to 0.01 l).
        let milk = build([share("milk", 2, .tbsp), share("milk", 1, .tsp), share("milk", 1, .l)]).line("milk")
        #expect(milk?.exactQuantity == 1035 && milk?.exactUnit == .ml)
        #expect(milk?.quantity == 1.04 && milk?.unit == .l)
    }

    @Test func roundingIsShopperFriendly() {
        #expect(GroceryUnits.display(999.4, .mass) == (999, .g))
        #expect(GroceryUnits.display(999.6, .mass) == (1, .kg))
        #expect(GroceryUnits.display(2.345, .mass) == (2.3, .g))
        #expect(GroceryUnits.display(0.01, .volume) == (0.1, .ml))
        #expect(GroceryUnits.display(1234, .volume) == (1.23, .l))
        #expect(GroceryUnits.display(0.25, .count) == (1, .piece))
        #expect(GroceryUnits.display(2.0000001, .count) == (2, .piece))
        #expect(GroceryUnits.display(2.5, .count) == (3, .piece))
    }

    @Test func pricesFollowTheUnitTheIngredientIsPricedIn() {
        // Flour €2/kg: 750 g → €1.50. Eggs €0.30 each: 3 → €0.90; 100 g = 2 eggs → €0.60.
        // Milk €1.20/l: 500 ml → €0.60; 103 g = 100 ml → €0.12.
        #expect(abs(GroceryUnits.price(of: [.mass: 750], Facts.flour)! - 1.5) < 1e-9)
        #expect(abs(GroceryUnits.price(of: [.count: 3], Facts.egg)! - 0.9) < 1e-9)
        #expect(abs(GroceryUnits.price(of: [.mass: 100], Facts.egg)! - 0.6) < 1e-9)
        #expect(abs(GroceryUnits.price(of: [.volume: 500, .mass: 103], Facts.milk)! - 0.72) < 1e-9)
    }

    @Test func totalIsTheSumOfLinePrices() {
        let list = build([share("flour", 750, .g), share("egg", 3, .piece), share("milk", 500, .ml)])
        #expect(abs(list.total - (1.5 + 0.9 + 0.6)) < 1e-9)
        #expect(list.categories.map(\.category) == [.dairy, .baking])
        #expect(abs(list.categories[0].subtotal - 1.5) < 1e-9)
    }
}

@Suite(.closesItsSockets)
struct GroceryGroupingTests {
    @Test func categoriesFollowTheShoppingOrderAndItemsGoUnderOther() {
        let list = build(
            [share("flour", 100, .g), share("onion", 1, .piece), share("milk", 100, .ml)],
            items: [NonEdibleItem(id: 7, text: "Paper towels", count: 2)]
        )
        #expect(list.categories.map(\.category) == [.produce, .dairy, .baking, .other])
        let towels = list.line("item:7")
        #expect(towels?.name == "Paper towels" && towels?.count == 2 && towels?.price == nil && towels?.category == .other)
        #expect(list.lineCount == 4)
    }

    @Test func checkedLinesStayInPlaceAndAreMarked() {
        let contributions = [share("milk", 100, .ml), share("egg", 2, .piece)]
        let unchecked = build(contributions)
        let checked = build(contributions, checked: ["egg"])
        #expect(checked.lines.map(\.id) == unchecked.lines.map(\.id))
        #expect(checked.line("egg")?.checked == true && checked.line("milk")?.checked == false)
        #expect(checked.checkedCount == 1)
    }

    @Test func removingAContributionRestoresTheExactTotalsOfTheRest() {
        let a = [share("flour", 333.3, .g, from: "a"), share("egg", 1.5, .piece, from: "a")]
        let b = [share("flour", 0.7777, .kg, from: "b")]
        let c = [share("flour", 12.34, .g, from: "c"), share("egg", 2, .piece, from: "c")]
        #expect(build(a + c) == build(a + c))
        let withoutB = build(a + c)
        let all = build(a + b + c)
        #expect(all.line("flour")?.exactQuantity != withoutB.line("flour")?.exactQuantity)
        #expect(withoutB.line("flour")?.exactQuantity == 333.3 + 12.34)
        #expect(withoutB.line("egg")?.exactQuantity == 3.5)
    }
}

@Suite(.closesItsSockets)
struct CheckoutValidationTests {
    @Test func phoneNumbersInBothFormsAreNormalized() {
        #expect(CheckoutValidation.normalizedPhone("+39 06 1234 5678") == "+390612345678")
        #expect(CheckoutValidation.normalizedPhone("+1 (415) 555-0100") == "+14155550100")
        #expect(CheckoutValidation.normalizedPhone("030-123 4567") == "0301234567")
        #expect(CheckoutValidation.normalizedPhone("+1234567") == nil, "7 digits is too short for E.164")
        #expect(CheckoutValidation.normalizedPhone("+0123456789") == nil, "country codes do not start with 0")
        #expect(CheckoutValidation.normalizedPhone("12345678") == nil, "a national number starts with 0")
        #expect(CheckoutValidation.normalizedPhone("01234") == nil, "too short")
        #expect(CheckoutValidation.normalizedPhone("0123 abc 456") == nil)
        #expect(CheckoutValidation.normalizedPhone("+1234567890123456") == nil, "16 digits")
    }

    @Test func everyMissingFieldIsNamedAtOnce() {
        #expect(throws: Never.self) {
            try CheckoutValidation.validate(
                Checkout(phone: "+4930123456", address: DeliveryAddress(street: "Main St 1", postalCode: "10115", city: "Berlin")))
        }
        do {
            _ = try CheckoutValidation.validate(Checkout(phone: "12", address: DeliveryAddress(street: " ", postalCode: nil, city: "Berlin")))
            Issue.record("accepted an invalid checkout")
        } catch {
            #expect(error.code == .badRequest)
            #expect(error.field == "phone")
            #expect(error.message.contains("phone must be"))
            #expect(error.message.contains("address.street"))
            #expect(error.message.contains("address.postalCode"))
            #expect(!error.message.contains("address.city"))
        }
        do {
            _ = try CheckoutValidation.validate(Checkout(phone: "+4930123456", address: nil))
            Issue.record("accepted a checkout without an address")
        } catch {
            #expect(error.field == "address.street")
            #expect(error.message.contains("address.city is required"))
        }
    }
}

@Suite(.closesItsSockets)
struct GroceryLineIDTests {
    @Test func lineIDsReadAndWriteBothKinds() {
        #expect(GroceryLineID("item:42") == .item(42) && GroceryLineID.item(42).description == "item:42")
        #expect(GroceryLineID("red-lentils") == .ingredient("red-lentils") && GroceryLineID.ingredient("egg").description == "egg")
        #expect(GroceryLineID("item:x") == nil && GroceryLineID("") == nil)
    }
}
