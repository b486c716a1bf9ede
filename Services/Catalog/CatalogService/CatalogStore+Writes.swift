import Foundation
import GRDB
import SousInterchange
import SousRuntime
public import SousSchema
public import SousWire
import Synchronization

/// Writing recipes (create, edit, delete, favorites, sharing) and the sync feed.
extension CatalogStore {
    // MARK: Recipes: writing

    public func create(_ draft: RecipeDraft, user: String) throws(ServiceError) -> RecipeDetail {
        // Read once, before the transaction: on PostgreSQL checking them is a read of its own.
        let ingredients = self.ingredients
        let valid = try RecipeValidation.validate(new: draft, knownIngredients: Set(ingredients.keys))
        let id = "r-" + UUID().uuidString.lowercased().prefix(12)
        return try storage {
            try database.write { session in
                try checkRecipeQuota(user: user, session)
                let version = try Self.nextVersion(session)
                try write(
                    valid, key: .shared(id), id: id, origin: .custom, owner: user, basedOn: nil, shared: false, version: version,
                    ingredients: ingredients, session)
                return try detail(of: resolve(id, user: user, session)!, user: user, people: nil, ingredients: ingredients, session)
            }
        }
    }

    /// Edits a recipe. The user's own recipes change in place; anyone else's (or a built-in)
    /// becomes the user's personal version, which only that user sees in place of the original.
    public func edit(_ id: String, changes: RecipeDraft, user: String) throws(ServiceError) -> RecipeDetail {
        let ingredients = self.ingredients
        let known = Set(ingredients.keys)
        return try storage {
            try database.write { session in
                guard let row = try resolve(id, user: user, session) else { throw ServiceError.notFound("no recipe \"\(id)\"", field: "id") }
                var current = try row.validRecipe()
                current.ingredients = try Self.lines(key: row.key, session)
                let updated: ValidRecipe
                do {
                    updated = try RecipeValidation.apply(changes, to: current, knownIngredients: known)
                } catch let error as ServiceError {
                    // The request's fields are under `changes`.
                    throw error.nested(under: "changes")
                }
                let version = try Self.nextVersion(session)
                if row.owner == user {
                    try write(
                        updated, key: row.key, id: row.id, origin: row.origin, owner: user, basedOn: row.basedOn, shared: row.shared,
                        version: version, ingredients: ingredients, session)
                } else {
                    try checkRecipeQuota(user: user, session)
                    var updated = updated
                    // A personal version starts with the original's photo unless the edit sets one.
                    if updated.photo == .keep { updated.photo = .copy(from: row.key) }
                    try write(
                        updated, key: .personal(row.id, of: user), id: row.id, origin: .personal, owner: user, basedOn: row.id,
                        shared: false, version: version, ingredients: ingredients, session)
                }
                return try detail(of: resolve(id, user: user, session)!, user: user, people: nil, ingredients: ingredients, session)
            }
        }
    }

    /// Deletes one of the user's recipes. Deleting a personal version brings the original back.
    public func delete(_ id: String, user: String) throws(ServiceError) -> Int64 {
        try storage {
            try database.write { session in
                guard let row = try resolve(id, user: user, session) else { throw ServiceError.notFound("no recipe \"\(id)\"", field: "id") }
                guard row.owner == user else {
                    throw ServiceError(
                        .forbidden, "\(row.origin == .builtIn ? "built-in recipes" : "other people's recipes") cannot be deleted", field: "id")
                }
                let version = try Self.nextVersion(session)
                try markDeleted(key: row.key, version: version, session)
                return version
            }
        }
    }

    public func setFavorite(_ id: String, user: String, favorite: Bool) throws(ServiceError) {
        try storage {
            try database.write { session in
                guard try resolve(id, user: user, session) != nil else { throw ServiceError.notFound("no recipe \"\(id)\"", field: "id") }
                if favorite {
                    try session.execute(
                        #"INSERT INTO favorite ("user", recipe_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"#,
                        [user, id, Date().timeIntervalSince1970])
                } else {
                    try session.execute(#"DELETE FROM favorite WHERE "user" = ? AND recipe_id = ?"#, [user, id])
                }
                // The recipe's favourite flag changed for this user: their changes feed says so.
                try session.execute(
                    """
                    INSERT INTO favorite_change ("user", recipe_id, version) VALUES (?, ?, ?)
                    ON CONFLICT ("user", recipe_id) DO UPDATE SET version = excluded.version
                    """, [user, id, try Self.nextVersion(session)])
            }
        }
    }

    public func favorites(user: String) throws(ServiceError) -> [RecipeSummary] {
        try storage {
            try database.read { session in
                let ids = try session.values(String.self, #"SELECT recipe_id FROM favorite WHERE "user" = ? ORDER BY created_at, recipe_id"#, [user])
                return try ids.compactMap { try resolve($0, user: user, session)?.summary(isFavorite: true) }
            }
        }
    }

    /// Marks or unmarks a recipe the caller can see as one of their household's favourites.
    public func setHouseholdFavorite(_ id: String, household: String, user: String, favorite: Bool) throws(ServiceError) {
        try storage {
            try database.write { session in
                if favorite {
                    guard try resolve(id, user: user, session) != nil else { throw ServiceError.notFound("no recipe \"\(id)\"", field: "id") }
                    let count = try session.value(Int.self, "SELECT COUNT(*) FROM household_favorite WHERE household = ?", [household]) ?? 0
                    guard count < Self.maxHouseholdFavorites else {
                        throw ServiceError(
                            .quotaExceeded, "a household keeps at most \(Self.maxHouseholdFavorites) favourites: unmark one first", field: "id")
                    }
                    try session.execute(
                        "INSERT INTO household_favorite (household, recipe_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                        [household, id, Date().timeIntervalSince1970])
                } else {
                    guard try session.execute("DELETE FROM household_favorite WHERE household = ? AND recipe_id = ?", [household, id]) > 0 else {
                        throw ServiceError.notFound("\(id) is not one of your household's favourites", field: "id")
                    }
                }
            }
        }
    }

    static let maxHouseholdFavorites = 1_000

    /// The household's favourites that `user` can see (a member's private recipe stays theirs),
    /// oldest first; each marked as the user's own favourite when it is one.
    public func householdFavorites(household: String, user: String) throws(ServiceError) -> [RecipeSummary] {
        try storage {
            try database.read { session in
                let ids = try session.values(
                    String.self, "SELECT recipe_id FROM household_favorite WHERE household = ? ORDER BY created_at, recipe_id", [household])
                return try ids.compactMap { id in
                    try resolve(id, user: user, session)?.summary(isFavorite: Self.isFavorite(id, user: user, session))
                }
            }
        }
    }

    public func share(_ id: String, user: String) throws(ServiceError) -> RecipeSummary {
        try storage {
            try database.write { session in
                guard let row = try resolve(id, user: user, session) else { throw ServiceError.notFound("no recipe \"\(id)\"", field: "id") }
                guard row.owner == user, row.origin == .custom || row.origin == .saved else {
                    throw ServiceError(.forbidden, "only recipes you wrote can be shared; save a copy first", field: "id")
                }
                let version = try Self.nextVersion(session)
                try session.execute("UPDATE recipe SET shared = 1, version = ? WHERE key = ?", [version, row.key.rawValue])
                return try resolve(id, user: user, session)!.summary(isFavorite: Self.isFavorite(id, user: user, session))
            }
        }
    }

    /// Shared recipes, most favorited first, optionally narrowed by a search text.
    public func community(_ request: RecipeSearch, user: String?) throws(ServiceError) -> CommunityPage {
        let (_, pageSize, offset) = try Self.paging(page: request.page, pageSize: request.pageSize)
        let sql = sql
        var condition = ""
        var filterArguments: SQLArguments = []
        if let match = try RecipeSearchQuery.matchExpression(request.query, sql.engine) {
            condition = " AND \(sql.textCondition)"
            filterArguments.append(match)
        }
        return try storage {
            try database.read { session in
                let total =
                    try session.value(Int.self, "SELECT COUNT(*) FROM recipe r WHERE r.shared = 1 AND r.deleted = 0\(condition)", filterArguments)
                    ?? 0
                let rows = try session.rows(
                    """
                    SELECT \(sql.recipeColumns),
                        (SELECT COUNT(*) FROM favorite f WHERE f.recipe_id = r.id) AS favorites,
                        EXISTS (SELECT 1 FROM favorite f WHERE f.recipe_id = r.id AND f."user" = ?) AS mine
                    FROM recipe r WHERE r.shared = 1 AND r.deleted = 0\(condition)
                    ORDER BY favorites DESC, \(sql.nameOrder), r.key LIMIT ? OFFSET ?
                    """, [user ?? ""] + filterArguments + [pageSize, offset])
                let recipes = try rows.map { row in
                    let recipe = try RecipeRecord(row: row)
                    return CommunityRecipe(
                        recipe: recipe.summary(isFavorite: row["mine"]), favoriteCount: row["favorites"], sharedBy: recipe.owner ?? "")
                }
                return CommunityPage(recipes: recipes, total: total)
            }
        }
    }

    /// Copies a shared recipe into the user's own recipes.
    public func saveCommunity(_ id: String, user: String) throws(ServiceError) -> RecipeDetail {
        let ingredients = self.ingredients
        return try storage {
            try database.write { session in
                guard let row = try resolve(id, user: user, session), row.shared else {
                    throw ServiceError.notFound("no shared recipe \"\(id)\"", field: "id")
                }
                var copy = try row.validRecipe()
                copy.ingredients = try Self.lines(key: row.key, session)
                copy.photo = .copy(from: row.key)
                try checkRecipeQuota(user: user, session)
                let newID = "r-" + UUID().uuidString.lowercased().prefix(12)
                let version = try Self.nextVersion(session)
                try write(
                    copy, key: .shared(newID), id: newID, origin: .saved, owner: user, basedOn: row.id, shared: false, version: version,
                    ingredients: ingredients, session)
                return try detail(of: resolve(newID, user: user, session)!, user: user, people: nil, ingredients: ingredients, session)
            }
        }
    }

    // MARK: Sync

    /// What changed for `user` after `version`: recipes now visible to them that changed, ids to
    /// forget, and changed ingredients.
    public func changes(since version: Int64, user: String?) throws(ServiceError) -> CatalogChanges {
        guard version >= 0 else { throw .badRequest("version cannot be negative", field: "version") }
        let user = user ?? ""
        let book = self.ingredients
        return try storage {
            try database.read { session in
                let current = try Self.meta(session, "version")
                let changedIDs = try session.values(
                    String.self,
                    """
                    SELECT id FROM recipe WHERE version > ? AND (origin = 'builtIn' OR owner = ? OR shared = 1)
                    UNION SELECT recipe_id FROM favorite_change WHERE version > ? AND "user" = ?
                    """, [version, user, version, user])
                var recipes: [RecipeDetail] = []
                var deleted: [String] = []
                // The user's library: built-in recipes, their own, and shared ones they favorited.
                let favorites = Set(try session.values(String.self, #"SELECT recipe_id FROM favorite WHERE "user" = ?"#, [user]))
                for id in changedIDs {
                    if let row = try resolve(id, user: user, session),
                        row.origin == .builtIn || row.owner == user || (row.shared && favorites.contains(id))
                    {
                        recipes.append(try detail(of: row, user: user, people: nil, ingredients: book, session))
                    } else {
                        deleted.append(id)
                    }
                }
                // A first sync (version 0) reads every ingredient, some 8 800: bounded by the
                // catalog's size like the read at start, not by the per-statement limit, which a
                // busy machine's PostgreSQL could pass.
                let ingredients = try session.withoutTimeLimit {
                    try session.rows("SELECT \(IngredientRecord.servedColumns) FROM ingredient WHERE version > ? ORDER BY id", [version])
                }
                .map { try IngredientRecord.ingredient($0, engine: session.engine) }
                return CatalogChanges(version: current, recipes: recipes, deletedRecipes: deleted.sorted(), ingredients: ingredients)
            }
        }
    }
}
