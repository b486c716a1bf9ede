import Foundation
import GRDB
import MessagePack
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
    /// Recipe details as `recipes.get` built them (without the caller's favourite mark), under
    /// the recipe's key and the people asked for, at the search version of the rows they were
    /// built from (their owner's or the built-in catalog's, ``KeptPageVersion``) and the
    /// ingredients' version. A kept detail spares reading the row and decoding its steps.
    let keptDetails = VersionedCache<String, KeptDetailVersion, KeptDetail>(capacity: 1_000)
    /// What `recipes.get` answered, under the request (id, caller, people, facts): with the
    /// kept detail's version confirmed at a ``DataStamp``, the I/O thread answers the same
    /// request again without a transaction while nothing has been committed since.
    let answeredDetails = VersionedCache<String, KeptDetailVersion, (detail: KeptDetail, favorite: Bool)>(capacity: 4_000)
    /// Search pages as ``searchRecipes(_:user:filter:)`` read them, under the user and the whole
    /// request with its resolved filter (``KeptPageKey``), at the versions of what they were read
    /// from; with the page encoded as `recipes.search` sends it.
    let keptPages = VersionedCache<KeptPageKey.Bytes, KeptPageVersion, KeptPage>(capacity: 2_000)

    /// A search page and its reply's bytes: the value for callers that use it (the peers of the
    /// benchmarks), the bytes for the socket.
    struct KeptPage: Sendable {
        let page: RecipePage
        let reply: EncodedReply<RecipePage>

        init(_ page: RecipePage) throws {
            self.page = page
            reply = try EncodedReply(page)
        }
    }

    public init(database: SousDatabase, relevanceLimit: Int = 1000) throws {
        self.database = database
        sql = CatalogSQL.of(database.engine)
        self.relevanceLimit = relevanceLimit
        try indexNamesIfNeeded()
        try refreshIngredientCache()
    }

    /// On PostgreSQL, gives the recipes written before migration v4 their name index (the name
    /// is folded here, as every write folds it), once: `meta.namesIndexed` says it is done.
    func indexNamesIfNeeded() throws {
        guard database.engine == .postgres, try database.reading({ try Self.meta($0, "namesIndexed") }) == 0 else { return }
        try database.writing { session in
            for row in try session.rows("SELECT rid, name FROM recipe WHERE deleted = 0", []) {
                try session.execute(
                    "UPDATE recipe SET \(Self.postgresNameColumns) WHERE rid = ?", Self.postgresNameValues(row["name"]) + [row["rid"] as Int64])
            }
            try session.execute(
                "INSERT INTO meta (key, value) VALUES ('namesIndexed', 1) ON CONFLICT (key) DO UPDATE SET value = 1", [])
        }
    }

    public var catalogVersion: Int64 {
        get throws { try database.reading { try Self.meta($0, "version") } }
    }
}

/// A recipe's details as `recipes.get` answers them (``CatalogStore/keptDetails``): the value
/// without the caller's favourite mark, and the reply encoded both ways, since the mark is the
/// one part that depends on the caller.
struct KeptDetail: Sendable {
    let detail: RecipeDetail
    let reply: EncodedReply<RecipeDetail>
    let favoriteReply: EncodedReply<RecipeDetail>

    init(_ detail: RecipeDetail) throws {
        var detail = detail
        detail.isFavorite = false
        self.detail = detail
        reply = try EncodedReply(detail)
        detail.isFavorite = true
        favoriteReply = try EncodedReply(detail)
    }

    func reply(favorite: Bool) -> EncodedReply<RecipeDetail> { favorite ? favoriteReply : reply }
}

/// What a kept recipe detail was built from (``CatalogStore/keptDetails``).
struct KeptDetailVersion: Equatable, Sendable {
    let rows: Int64
    let ingredients: Int64
}

/// What a kept search page was read from (``CatalogStore/keptPages``): the built-in catalog's
/// search version, the user's (nil while they have no recipe or favorite), and the ingredients'
/// version the query was built with.
struct KeptPageVersion: Equatable, Sendable {
    let catalog: Int64
    let own: Int64?
    let ingredients: Int64

    init(searchOf user: String, ingredients: Int64, _ sql: CatalogSQL, _ session: any SQLSession) throws {
        let row = try session.rows(sql.searchVersions, [user])
        guard let row = row.first, let catalog = row["catalog"] as Int64? else { throw ServiceError.internal("the catalog has no search version") }
        self.catalog = catalog
        own = row["own"]
        self.ingredients = ingredients
    }
}

/// A kept search page's key: the user, the request and the filter it resolved to, as their
/// MessagePack bytes (one value, one key; a key never names two requests). Written by its
/// direct coding: through `Encodable` it was a fifth of answering a kept page.
@MessagePackCodable
struct KeptPageKey: Codable {
    let user: String
    let request: RecipeSearch
    let profile: RecipeFilterProfile?
    let switches: FilterSwitches?

    var bytes: Bytes {
        get throws(ServiceError) {
            do {
                return Bytes(try MessagePackEncoder().encode(self))
            } catch {
                throw .internal("a search could not be keyed: \(error)")
            }
        }
    }

    /// The key's bytes as a dictionary key, hashed as one block and compared by `[UInt8]`'s `==`
    /// specialized here: a `[UInt8]` key in the cache's generic code was hashed and compared a
    /// byte at a time through value witnesses, a third of answering a kept page.
    struct Bytes: Hashable, Sendable {
        let bytes: [UInt8]

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
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

    init(all: [String: Ingredient], version: Int64 = 0) {
        byID = all
        self.version = version
        var names: [String: String] = [:]
        for ingredient in all.values.sorted(by: { $0.id < $1.id }) {
            for synonym in ingredient.synonyms where names[folded(synonym)] == nil { names[folded(synonym)] = ingredient.id }
        }
        for ingredient in all.values.sorted(by: { $0.id > $1.id }) { names[folded(ingredient.name)] = ingredient.id }
        byName = names
    }

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
