import Foundation
import GroceriesService
import SousSchema
import SousUnits
import Testing

/// The packs a list line is bought in: the least money that covers the need, ties broken by
/// the least left over, then the fewest packs. Every figure here is worked out by hand.
@Suite struct PackOptimizerTests {
    static func facts(unit: MeasureUnit, gramsPerPiece: Double? = nil, _ packs: [PackSize]) -> ListIngredientFacts {
        ListIngredientFacts(
            id: "x", name: "X", unit: unit, gramsPerPiece: gramsPerPiece, gramsPerMl: nil, price: nil, category: .produce, packs: packs)
    }

    static func grams(_ quantity: Double, _ price: Double) -> PackSize { PackSize(quantity: quantity, unit: .g, price: price) }

    @Test func theCheapestCombinationThatCoversTheNeedIsChosen() throws {
        // 1200 g from 500 g at €1.00 and 1 kg at €1.80: 1 kg + 500 g €2.80 (300 g over) beats
        // 3 × 500 g €3.00 and 2 × 1 kg €3.60.
        let facts = Self.facts(unit: .g, [Self.grams(500, 1.00), PackSize(quantity: 1, unit: .kg, price: 1.80)])
        let choice = try #require(PackOptimizer.choose(need: 1200, in: .mass, facts))
        #expect(
            choice.packs == [
                PackCount(pack: PackSize(quantity: 1, unit: .kg, price: 1.80), count: 1), PackCount(pack: Self.grams(500, 1.00), count: 1),
            ])
        #expect(choice.price == 2.80 && choice.leftover == 300)
    }

    @Test func equalPricesGoToTheLeastLeftOverThenTheFewestPacks() throws {
        // Eggs: 6 at €1.80 and 12 at €3.60 cost the same per egg. 12 eggs: one box of 12, not two of 6.
        let eggs = Self.facts(unit: .piece, [PackSize(quantity: 6, unit: .piece, price: 1.80), PackSize(quantity: 12, unit: .piece, price: 3.60)])
        let twelve = try #require(PackOptimizer.choose(need: 12, in: .count, eggs))
        #expect(twelve.packs == [PackCount(pack: PackSize(quantity: 12, unit: .piece, price: 3.60), count: 1)] && twelve.leftover == 0)
        // 400 g and 600 g at €1 each: 350 g takes the 400 g pack (50 g over, not 250 g).
        let odd = Self.facts(unit: .g, [Self.grams(600, 1), Self.grams(400, 1)])
        let small = try #require(PackOptimizer.choose(need: 350, in: .mass, odd))
        #expect(small.packs == [PackCount(pack: Self.grams(400, 1), count: 1)] && small.leftover == 50 && small.price == 1)
    }

    @Test func aNeedInPiecesMeetsPacksByWeightThroughThePieceWeight() throws {
        // 3 onions of 50 g = 150 g; 100 g bags at €1: two bags, 50 g (one onion) over.
        let onions = Self.facts(unit: .piece, gramsPerPiece: 50, [Self.grams(100, 1)])
        let choice = try #require(PackOptimizer.choose(need: 3, in: .count, onions))
        #expect(choice.packs == [PackCount(pack: Self.grams(100, 1), count: 2)] && choice.price == 2 && choice.leftover == 1)
        // Without a piece weight the need cannot meet the packs: no packs shown.
        #expect(PackOptimizer.choose(need: 3, in: .count, Self.facts(unit: .piece, [Self.grams(100, 1)])) == nil)
        #expect(PackOptimizer.choose(need: 0, in: .mass, Self.facts(unit: .g, [Self.grams(100, 1)])) == nil)
        #expect(PackOptimizer.choose(need: 10, in: .mass, Self.facts(unit: .g, [])) == nil)
    }

    @Test func aHugeNeedTakesTheBestValuePackFirstAndStaysCheapest() throws {
        // 250 kg from 1 kg at €2.00 and 500 g at €1.10: 250 × 1 kg, €500.00, nothing over.
        let facts = Self.facts(unit: .g, [Self.grams(500, 1.10), PackSize(quantity: 1, unit: .kg, price: 2.00)])
        let choice = try #require(PackOptimizer.choose(need: 250_000, in: .mass, facts))
        #expect(choice.packs == [PackCount(pack: PackSize(quantity: 1, unit: .kg, price: 2.00), count: 250)])
        #expect(choice.price == 500 && choice.leftover == 0)
        // 250.3 kg: one 500 g bag tops it up (€501.10), rather than a 251st kilo (€502.00).
        let more = try #require(PackOptimizer.choose(need: 250_300, in: .mass, facts))
        #expect(more.price == 501.10 && more.leftover == 200)
    }

    /// Packs no shop sells (a 100 kg sack beside one of 99 999 g: 1 g steps) and a need of 5 t:
    /// the table stays within its ceiling, and the packs cover the need within a pack's price of
    /// the least possible (€1 a kg: €5000).
    @Test func packsNoShopSellsStillAnswerWithinBounds() throws {
        let facts = Self.facts(unit: .g, [Self.grams(100_000, 100), Self.grams(99_999, 99.999)])
        let choice = try #require(PackOptimizer.choose(need: 5_000_000, in: .mass, facts))
        let held = choice.packs.reduce(0.0) { $0 + Double($1.count) * $1.pack.quantity }
        #expect(held >= 5_000_000 && choice.price >= 5000 && choice.price <= 5100, "\(choice)")
    }

    /// Against every combination, for random pack sets and needs small enough to enumerate.
    @Test func theChoiceIsAlwaysTheCheapestAndLeastLeftOver() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let sizes = Array(Set((0..<Int.random(in: 1...3, using: &generator)).map { _ in Int.random(in: 1...40, using: &generator) }))
            let packs = sizes.map { Self.grams(Double($0), Double(Int.random(in: 5...400, using: &generator)) / 100) }
            let need = Int.random(in: 1...120, using: &generator)
            let choice = try #require(PackOptimizer.choose(need: Double(need), in: .mass, Self.facts(unit: .g, packs)))
            // Brute force: every count of each pack up to what could matter.
            var best: (cents: Int, over: Int)?
            func walk(_ index: Int, held: Int, cents: Int) {
                if held >= need {
                    if best == nil || (cents, held - need) < (best!.cents, best!.over) { best = (cents, held - need) }
                    return
                }
                guard index < packs.count else { return }
                let size = Int(packs[index].quantity)
                for count in 0...((need - held + size - 1) / size) {
                    walk(index + 1, held: held + count * size, cents: cents + count * Int((packs[index].price * 100).rounded()))
                }
            }
            walk(0, held: 0, cents: 0)
            let expected = try #require(best)
            #expect(
                Int((choice.price * 100).rounded()) == expected.cents && Int(choice.leftover) == expected.over, "\(packs) need \(need): \(choice)")
        }
    }
}
