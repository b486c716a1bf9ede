import Foundation
import GRDB
public import SousRuntime
import SousSchema
import SousWire
import Synchronization

/// The catalog's data: every read and write, each write one transaction.
///
/// Ingredients are few and change only on seed loads and imports, so they are also kept in
/// memory for deriving recipe facts.
public final class CatalogStore: Sendable {
    public let database: SousDatabase
    let ingredientCache = Mutex(IngredientBook(all: [:], version: 0))
    /// The statements whose text depends on the engine.
    let sql: CatalogSQL

    /// Text searches matching at most this many recipes are ordered by relevance (bm25);
    /// broader ones newest first (see ``searchRecipes(_:user:filter:)``).
    public let relevanceLimit: Int
    /// `database` may be a copy of `template`'s (tests seed one database and copy it): the
    /// ingredients the template holds in memory are then taken over instead of read again.
    public init(database: SousDatabase, relevanceLimit: Int = 1000, copyOf template: CatalogStore? = nil) throws {
        self.database = database
        sql = CatalogSQL.of(database.engine)
        self.relevanceLimit = relevanceLimit
        try indexNamesIfNeeded()
        if let template {
            let book = template.ingredientCache.withLock { $0 }
            ingredientCache.withLock { $0 = book }
        } else {
            try refreshIngredientCache()
        }
    }

    /// On PostgreSQL, gives the recipes written before migration v4 their name index (the name
    /// is folded here, as every write folds it), once: `meta.namesIndexed` says it is done.
    func indexNamesIfNeeded() throws {
        guard database.engine == .postgres, try database.read({ try Self.meta($0, "namesIndexed") }) == 0 else { return }
        try database.write { session in
            for row in try session.rows("SELECT rid, name FROM recipe WHERE deleted = 0", []) {
                try session.execute(
                    "UPDATE recipe SET \(Self.postgresNameColumns) WHERE rid = ?", Self.postgresNameValues(row["name"]) + [row["rid"] as Int64])
            }
            try session.execute(
                "INSERT INTO meta (key, value) VALUES ('namesIndexed', 1) ON CONFLICT (key) DO UPDATE SET value = 1", [])
        }
    }

    public var catalogVersion: Int64 {
        get throws { try database.read { try Self.meta($0, "version") } }
    }
}

/// The catalog's ingredients in memory, by id and by every name a cook may type.
struct IngredientBook: Sendable {
    let byID: [String: Ingredient]
    /// Folded name or synonym → id. A name wins over another ingredient's synonym; between
    /// equals, the smaller id (so the answer does not depend on load order).
    let byName: [String: String]
    /// The newest ingredient version when they were read (another replica's import raises it).
    let version: Int64
    /// The USDA foods indexed by word for recipe lines, built when an import first needs it.
    private let matcher = Lazy<FoodMatcher>()
    /// Names and synonyms for `ingredients.search`, built when a search first needs it.
    private let searchIndex = Lazy<IngredientSearchIndex>()

    /// Each ingredient's name and synonyms folded, by id: folded once here (Foundation's folding
    /// is the slow part of reading thousands of foods) for the name lookup, search and matching.
    let foldedNames: [String: FoldedNames]

    struct FoldedNames: Sendable {
        let name: String
        let synonyms: [String]
    }

    /// `previous` lends the names it already folded for ingredients whose names did not change.
    init(all: [String: Ingredient], version: Int64 = 0, previous: IngredientBook? = nil) {
        byID = all
        self.version = version
        let foldedNames = all.mapValues { ingredient in
            if let old = previous?.byID[ingredient.id], old.name == ingredient.name, old.synonyms == ingredient.synonyms,
                let names = previous?.foldedNames[ingredient.id]
            {
                return names
            }
            return FoldedNames(name: folded(ingredient.name), synonyms: ingredient.synonyms.map { folded($0) })
        }
        var names: [String: String] = [:]
        for id in all.keys.sorted() {
            for synonym in foldedNames[id]?.synonyms ?? [] where names[synonym] == nil { names[synonym] = id }
        }
        for id in all.keys.sorted(by: >) { names[foldedNames[id]?.name ?? ""] = id }
        byName = names
        self.foldedNames = foldedNames
    }

    var foods: FoodMatcher { matcher.get { FoodMatcher(byID.values, folded: foldedNames) } }
    var search: IngredientSearchIndex { searchIndex.get { IngredientSearchIndex(byID.values, folded: foldedNames) } }

    func id(named text: String) -> String? {
        if byID[text] != nil { return text }
        let key = folded(text.trimmingCharacters(in: .whitespacesAndNewlines)).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard !key.isEmpty else { return nil }
        // Singular or plural, whichever the catalog's name uses: "aubergines", "strawberry".
        var candidates = [key, key + "s", key + "es"]
        if key.hasSuffix("es") { candidates.append(String(key.dropLast(2))) }
        if key.hasSuffix("s") { candidates.append(String(key.dropLast())) }
        if key.hasSuffix("ies") { candidates.append(key.dropLast(3) + "y") }
        if key.hasSuffix("y") { candidates.append(key.dropLast() + "ies") }
        if key.hasSuffix("f") { candidates.append(key.dropLast() + "ves") }
        if key.hasSuffix("ves") { candidates.append(key.dropLast(3) + "f") }
        for candidate in candidates {
            if let id = byName[candidate] { return id }
            let slug = candidate.replacingOccurrences(of: " ", with: "-")
            if byID[slug] != nil { return slug }
        }
        return nil
    }
}

/// A value built once, on first use, and shared by the copies of the book that holds it.
final class Lazy<Value: Sendable>: Sendable {
    private let built = Mutex<Value?>(nil)

    func get(_ build: () -> Value) -> Value {
        built.withLock { value in
            if let value { return value }
            let new = build()
            value = new
            return new
        }
    }
}
