import Foundation
import SousSchema

/// Every ingredient's folded name and synonyms as bytes, searched in memory: a scan of the
/// 8 796 shipped foods with SQL `LIKE` took 4.6 ms (p99 5.9 ms) a search; this one takes a
/// fraction of that.
///
/// Best first: the curated ingredients before the USDA foods; then an exact name or synonym, one
/// starting with the text, a word starting with it (after a space, "-" or "("), any substring;
/// shorter names first, then by name and id.
struct IngredientSearchIndex: Sendable {
    private struct Entry: Sendable {
        let id: String
        let name: String
        let nameLength: Int
        let derived: Bool
        let folded: [UInt8]
        let synonyms: [[UInt8]]
    }

    private let entries: [Entry]

    /// `folded` holds each ingredient's folded name and synonyms by id (``IngredientBook``).
    init(_ ingredients: some Sequence<Ingredient>, folded: [String: IngredientBook.FoldedNames]) {
        entries = ingredients.map { ingredient in
            let names = folded[ingredient.id]
            return Entry(
                id: ingredient.id, name: ingredient.name, nameLength: ingredient.name.count, derived: ingredient.factsDerived,
                folded: Array((names?.name ?? "").utf8), synonyms: (names?.synonyms ?? []).map { Array($0.utf8) })
        }
    }

    /// The ids of at most `limit` ingredients matching `text` (already folded), best first.
    func search(_ text: String, limit: Int) -> [String] {
        let needle = Array(text.utf8)
        var found: [(entry: Int, rank: Int)] = []
        for (index, entry) in entries.enumerated() {
            var best = Self.rank(of: needle, in: entry.folded)
            for synonym in entry.synonyms where best != 0 {
                if let rank = Self.rank(of: needle, in: synonym), rank < (best ?? 4) { best = rank }
            }
            if let best { found.append((index, best)) }
        }
        found.sort { a, b in
            let x = entries[a.entry], y = entries[b.entry]
            if x.derived != y.derived { return !x.derived }
            if a.rank != b.rank { return a.rank < b.rank }
            if x.nameLength != y.nameLength { return x.nameLength < y.nameLength }
            if x.name != y.name { return x.name < y.name }
            return x.id < y.id
        }
        return found.prefix(limit).map { entries[$0.entry].id }
    }

    /// 0 when `haystack` is `needle`, 1 when it starts with it, 2 when a word in it does (after a
    /// space, "-" or "("), 3 when it has it anywhere; nil when it has not. UTF-8 bytes: a match
    /// never starts inside a character.
    static func rank(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        return haystack.withUnsafeBytes { hay in
            needle.withUnsafeBytes { pin -> Int? in
                guard let base = hay.baseAddress, let pinBase = pin.baseAddress else { return nil }
                let first = Int32(pin[0])
                var offset = 0
                var found: Int?
                // Each place the first byte occurs (memchr), compared whole (memcmp).
                while offset + pin.count <= hay.count, let hit = memchr(base + offset, first, hay.count - offset - pin.count + 1) {
                    let position = base.distance(to: UnsafeRawPointer(hit))
                    offset = position + 1
                    guard memcmp(hit, pinBase, pin.count) == 0 else { continue }
                    if position == 0 { return hay.count == pin.count ? 0 : 1 }
                    if [UInt8(ascii: " "), UInt8(ascii: "-"), UInt8(ascii: "(")].contains(hay[position - 1]) { return 2 }
                    found = 3
                }
                return found
            }
        }
    }
}
