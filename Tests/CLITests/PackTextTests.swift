import SousClient
import SousSchema
import Testing

/// How the CLI and the web app say which packs to buy.
struct PackTextTests {
    static func eggs(leftover: Double) -> PackChoice {
        PackChoice(packs: [PackCount(pack: PackSize(quantity: 6, unit: .piece, price: 1.80), count: 1)], price: 1.80, leftover: leftover)
    }

    @Test func leftoversInPiecesCountWholePiecesOnly() {
        #expect(Self.eggs(leftover: 0.5).summary(leftoverUnit: .piece) == "1 × 6 piece €1.80", "half an egg left is no egg")
        #expect(Self.eggs(leftover: 1).summary(leftoverUnit: .piece) == "1 × 6 piece €1.80, 1 piece over")
        #expect(Self.eggs(leftover: 4.9).summary(leftoverUnit: .piece) == "1 × 6 piece €1.80, 4 pieces over")
        let potatoes = PackChoice(
            packs: [
                PackCount(pack: PackSize(quantity: 1, unit: .kg, price: 1.30), count: 2),
                PackCount(pack: PackSize(quantity: 500, unit: .g, price: 0.7), count: 1),
            ],
            price: 3.30, leftover: 299.6)
        #expect(potatoes.summary(leftoverUnit: .g) == "2 × 1 kg + 1 × 500 g €3.30, 300 g over")
    }
}
