public import SousSchema
public import SousUnits

/// The cheapest packs that cover a need: a small exact optimisation (an unbounded covering
/// knapsack, solved by dynamic programming in whole cents).
///
/// Among every combination of packs holding at least the need, it takes the one that costs
/// least; of those that cost the same, the one with the least left over; of those, the fewest
/// packs, taking the larger pack where that makes no difference. Amounts are counted in steps of the
/// greatest common divisor of the pack sizes (in g, ml or pieces), so 500 g and 1 kg bags make a
/// table of a few rows. A need of more than ``largestTable`` steps first takes packs of the best
/// value (least money per unit) until the rest fits: some cheapest combination always has fewer
/// than (best pack's steps) other packs, so the price stays the least, though among equally
/// cheap ones the fewest packs may then not be chosen.
public enum PackOptimizer {
    /// Rows of the table before the best-value packs are taken first (a need of 100 kg in 1 g
    /// steps fits).
    static let largestTable = 200_000
    /// Rows of the table at most, whatever the packs.
    static let hardestTable = 2_000_000

    /// The packs for `need` base units of `dimension` (g, ml or pieces) of the ingredient with
    /// `facts`; nil when it is sold loose, nothing is needed, or the need cannot be converted
    /// into the packs' family.
    public static func choose(need: Double, in dimension: QuantityDimension, _ facts: ListIngredientFacts) -> PackChoice? {
        guard let packs = facts.packs, let first = packs.first, need > 0, need.isFinite else { return nil }
        let family = QuantityDimension(first.unit)
        let sizes = packs.filter { QuantityDimension($0.unit) == family }
        guard let inFamily = facts.convert(need, from: dimension, to: family), inFamily.isFinite else { return nil }
        guard let choice = cheapest(need: inFamily, packs: sizes) else { return nil }
        let held = choice.reduce(0.0) { $0 + Double($1.count) * $1.pack.quantity * $1.pack.unit.baseFactor }
        let leftover = facts.convert(max(held - inFamily, 0), from: family, to: dimension) ?? 0
        let total = choice.reduce(0) { $0 + $1.count * Self.cents($1.pack.price) }
        return PackChoice(packs: choice, price: Double(total) / 100, leftover: leftover)
    }

    /// The cheapest packs holding at least `need` base units; every pack in one family, each a
    /// whole number of base units (the catalog checks both). Largest first.
    static func cheapest(need: Double, packs: [PackSize]) -> [PackCount]? {
        let sizes = packs.map { Int(($0.quantity * $0.unit.baseFactor).rounded()) }
        guard !packs.isEmpty, sizes.allSatisfy({ $0 > 0 }) else { return nil }
        let step = sizes.reduce(0, gcd)
        // A need no shop could fill (the list's own bounds keep real ones far below).
        guard need / Double(step) < 1e12 else { return nil }
        // Largest first, so that of equally good rows the one reached by larger packs is kept.
        let order = sizes.indices.sorted { sizes[$0] != sizes[$1] ? sizes[$0] > sizes[$1] : $0 < $1 }
        let steps = order.map { sizes[$0] / step }
        let prices = order.map { cents(packs[$0].price) }
        var wanted = Int((need / Double(step)).rounded(.up))
        var counts = Array(repeating: 0, count: order.count)

        // Best value: least cents per step, then the larger pack.
        let best = steps.indices.min { prices[$0] * steps[$1] != prices[$1] * steps[$0] ? prices[$0] * steps[$1] < prices[$1] * steps[$0] : $0 < $1 }!
        let largest = steps.max()!
        if wanted + largest > largestTable {
            // Fewer than (best pack's steps) other packs in some cheapest choice: that much is
            // kept for the table, within a hard ceiling for packs no shop sells (a 100 kg sack
            // beside a 99 999 g one), where the price may then miss the least by a pack.
            let keep = min(max(largestTable - largest - steps[best], steps[best] * largest), Self.hardestTable)
            let taken = max((wanted - keep) / steps[best], 0)
            counts[best] = taken
            wanted -= taken * steps[best]
        }

        // cost[x], packs[x]: the least cents (then fewest packs) holding exactly x steps.
        let size = max(wanted, 0) + largest
        var cost = Array(repeating: Int.max, count: size)
        var used = Array(repeating: Int.max, count: size)
        var last = Array(repeating: -1, count: size)
        cost[0] = 0
        used[0] = 0
        for amount in 1..<max(size, 1) {
            for (index, pack) in steps.enumerated() where pack <= amount && cost[amount - pack] != Int.max {
                let candidate = (cost[amount - pack] + prices[index], used[amount - pack] + 1)
                if candidate < (cost[amount], used[amount]) {
                    (cost[amount], used[amount]) = candidate
                    last[amount] = index
                }
            }
        }
        var chosen = -1
        // Ascending, replaced only when cheaper: of equal prices the least left over wins (and at
        // that amount the table kept the fewest packs).
        for amount in max(wanted, 0)..<size where cost[amount] != Int.max {
            if chosen < 0 || cost[amount] < cost[chosen] { chosen = amount }
        }
        guard chosen >= 0 || wanted <= 0 else { return nil }
        var amount = max(chosen, 0)
        while amount > 0 {
            counts[last[amount]] += 1
            amount -= steps[last[amount]]
        }
        return order.indices.compactMap { position in
            counts[position] > 0 ? PackCount(pack: packs[order[position]], count: counts[position]) : nil
        }
    }

    static func cents(_ euros: Double) -> Int { Int((euros * 100).rounded()) }

    private static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
}
