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

    init(_ ingredients: some Sequence<Ingredient>) {
        entries = ingredients.map { ingredient in
            Entry(
                id: ingredient.id, name: ingredient.name, nameLength: ingredient.name.count, derived: ingredient.factsDerived,
                folded: Array(folded(ingredient.name).utf8), synonyms: ingredient.synonyms.map { Array(folded($0).utf8) })
        }
    }

    /// The ids of at most `limit` ingredients matching `text` (already folded), best first.
    func search(_ text: String, limit: Int) -> [String] {
        let needle = Array(text.utf8)
        let wordStarts: [[UInt8]] = [UInt8(ascii: " "), UInt8(ascii: "-"), UInt8(ascii: "(")].map { [$0] + needle }
        let synonymWord = [UInt8(ascii: " ")] + needle
        var found: [(entry: Int, rank: Int)] = []
        for (index, entry) in entries.enumerated() {
            let rank: Int
            if entry.folded == needle || entry.synonyms.contains(needle) {
                rank = 0
            } else if entry.folded.starts(with: needle) || entry.synonyms.contains(where: { $0.starts(with: needle) }) {
                rank = 1
            } else if wordStarts.contains(where: { Self.contains(entry.folded, $0) })
                || entry.synonyms.contains(where: { Self.contains($0, synonymWord) })
            {
                rank = 2
            } else if Self.contains(entry.folded, needle) || entry.synonyms.contains(where: { Self.contains($0, needle) }) {
                rank = 3
            } else {
                continue
            }
            found.append((index, rank))
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

    /// Whether `needle` occurs in `haystack` (UTF-8 bytes: a match never starts inside a character).
    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard haystack.count >= needle.count else { return false }
        let first = needle[0]
        var start = 0
        let last = haystack.count - needle.count
        while start <= last {
            if haystack[start] == first {
                var matched = 1
                while matched < needle.count, haystack[start + matched] == needle[matched] { matched += 1 }
                if matched == needle.count { return true }
            }
            start += 1
        }
        return false
    }
}
