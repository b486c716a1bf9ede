import Foundation
import GRDB
import SousRuntime
public import SousSchema
public import SousWire
import Synchronization

/// Writing recipes (create, edit, delete, favorites, sharing) and the sync feed.
extension CatalogStore {
    // MARK: Recipes: writing

    public func create(_ draft: RecipeDraft, user: String) throws(ServiceError) -> RecipeDetail {
        let valid = try RecipeValidation.validate(new: draft, knownIngredients: Set(ingredients.keys))
        let id = "r-" + UUID().uuidString.lowercased().prefix(12)
        return try storage {
            try writer.write { db in
                try Self.checkRecipeQuota(user: user, db)
                let version = try Self.nextVersion(db)
                try Self.write(
                    valid, key: .shared(id), id: id, origin: .custom, owner: user, basedOn: nil, shared: false, version: version,
                    ingredients: ingredients, db)
                return try detail(of: Self.resolve(id, user: user, db)!, user: user, people: nil, db)
            }
        }
    }

    /// Edits a recipe. The user's own recipes change in place; anyone else's (or a built-in)
    /// becomes the user's personal version, which only that user sees in place of the original.
    public func edit(_ id: String, changes: RecipeDraft, user: String) throws(ServiceError) -> RecipeDetail {
        let known = Set(ingredients.keys)
        return try storage {
            try writer.write { db in
                guard let row = try Self.resolve(id, user: user, db) else { throw ServiceError.notFound("no recipe \"\(id)\"", field: "id") }
                var current = try row.validRecipe()
                current.ingredients = try Self.lines(key: row.key, db)
                let updated: ValidRecipe
                do {
                    updated = try RecipeValidation.apply(changes, to: current, knownIngredients: known)
                } catch let error as ServiceError {
                    // The request's fields are under `changes`.
                    throw error.nested(under: "changes")
                }
                let version = try Self.nextVersion(db)
                if row.owner == user {
                    try Self.write(
                        updated, key: row.key, id: row.id, origin: row.origin, owner: user, basedOn: row.basedOn, shared: row.shared,
                        version: version, ingredients: ingredients, db)
                } else {
                    try Self.checkRecipeQuota(user: user, db)
                    try Self.write(
                        updated, key: .personal(row.id, of: user), id: row.id, origin: .personal, owner: user, basedOn: row.id,
                        shared: false, version: version, ingredients: ingredients, db)
                }
                return try detail(of: Self.resolve(id, user: user, db)!, user: user, people: nil, db)
            }
        }
    }

    /// Deletes one of the user's recipes. Deleting a personal version brings the original back.
    public func delete(_ id: String, user: String) throws(ServiceError) -> Int64 {
        try storage {
            try writer.write { db in
                guard let row = try Self.resolve(id, user: user, db) else { throw ServiceError.notFound("no recipe \"\(id)\"", field: "id") }
                guard row.owner == user else {
                    throw ServiceError(
                        .unauthorized, "\(row.origin == .builtIn ? "built-in recipes" : "other people's recipes") cannot be deleted", field: "id")
                }
                let version = try Self.nextVersion(db)
                try Self.markDeleted(key: row.key, version: version, db)
                return version
            }
        }
    }

    public func setFavorite(_ id: String, user: String, favorite: Bool) throws(ServiceError) {
        try storage {
            try writer.write { db in
                guard try Self.resolve(id, user: user, db) != nil else { throw ServiceError.notFound("no recipe \"\(id)\"", field: "id") }
                if favorite {
                    try db.execute(
                        sql: "INSERT OR IGNORE INTO favorite (user, recipe_id, created_at) VALUES (?, ?, ?)",
                        arguments: [user, id, Date().timeIntervalSince1970])
                } else {
                    try db.cachedStatement(sql: "DELETE FROM favorite WHERE user = ? AND recipe_id = ?").execute(arguments: [user, id])
                }
            }
        }
    }

    public func favorites(user: String) throws(ServiceError) -> [RecipeSummary] {
        try storage {
            try writer.read { db in
                let ids = try String.fetchAll(
                    db.cachedStatement(sql: "SELECT recipe_id FROM favorite WHERE user = ? ORDER BY created_at"), arguments: [user])
                return try ids.compactMap { try Self.resolve($0, user: user, db)?.summary(isFavorite: true) }
            }
        }
    }

    public func share(_ id: String, user: String) throws(ServiceError) -> RecipeSummary {
        try storage {
            try writer.write { db in
                guard let row = try Self.resolve(id, user: user, db) else { throw ServiceError.notFound("no recipe \"\(id)\"", field: "id") }
                guard row.owner == user, row.origin == .custom || row.origin == .saved else {
                    throw ServiceError(.unauthorized, "only recipes you wrote can be shared; save a copy first", field: "id")
                }
                let version = try Self.nextVersion(db)
                try db.cachedStatement(sql: "UPDATE recipe SET shared = 1, version = ? WHERE key = ?").execute(arguments: [version, row.key.rawValue])
                return try Self.resolve(id, user: user, db)!.summary(isFavorite: Self.isFavorite(id, user: user, db))
            }
        }
    }

    /// Shared recipes, most favorited first, optionally narrowed by a search text.
    public func community(_ request: RecipeSearch, user: String?) throws(ServiceError) -> CommunityPage {
        let (_, pageSize, offset) = try Self.paging(page: request.page, pageSize: request.pageSize)
        var condition = ""
        var arguments: [any DatabaseValueConvertible] = [user ?? ""]
        if let match = try RecipeSearchQuery.matchExpression(request.query) {
            condition = " AND r.rowid IN (SELECT rowid FROM recipe_fts WHERE recipe_fts MATCH ?)"
            arguments.append(match)
        }
        let filterArguments = arguments.dropFirst()
        return try storage {
            try writer.read { db in
                let total =
                    try Int.fetchOne(
                        db, sql: "SELECT COUNT(*) FROM recipe r WHERE r.shared = 1 AND r.deleted = 0\(condition)",
                        arguments: sqlArguments(Array(filterArguments))) ?? 0
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT \(RecipeRecord.columns(as: "r")),
                            (SELECT COUNT(*) FROM favorite f WHERE f.recipe_id = r.id) AS favorites,
                            EXISTS (SELECT 1 FROM favorite f WHERE f.recipe_id = r.id AND f.user = ?) AS mine
                        FROM recipe r WHERE r.shared = 1 AND r.deleted = 0\(condition)
                        ORDER BY favorites DESC, r.name COLLATE NOCASE, r.name LIMIT ? OFFSET ?
                        """, arguments: sqlArguments(arguments + [pageSize, offset]))
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
        try storage {
            try writer.write { db in
                guard let row = try Self.resolve(id, user: user, db), row.shared else {
                    throw ServiceError.notFound("no shared recipe \"\(id)\"", field: "id")
                }
                var copy = try row.validRecipe()
                copy.ingredients = try Self.lines(key: row.key, db)
                try Self.checkRecipeQuota(user: user, db)
                let newID = "r-" + UUID().uuidString.lowercased().prefix(12)
                let version = try Self.nextVersion(db)
                try Self.write(
                    copy, key: .shared(newID), id: newID, origin: .saved, owner: user, basedOn: row.id, shared: false, version: version,
                    ingredients: ingredients, db)
                return try detail(of: Self.resolve(newID, user: user, db)!, user: user, people: nil, db)
            }
        }
    }

    // MARK: Sync

    /// What changed for `user` after `version`: recipes now visible to them that changed, ids to
    /// forget, and changed ingredients.
    public func changes(since version: Int64, user: String?) throws(ServiceError) -> CatalogChanges {
        guard version >= 0 else { throw .badRequest("version cannot be negative", field: "version") }
        let user = user ?? ""
        return try storage {
            try writer.read { db in
                let current = try Self.meta(db, "version")
                let changedIDs = try String.fetchAll(
                    db,
                    sql: """
                        SELECT DISTINCT id FROM recipe
                        WHERE version > ? AND (origin = 'builtIn' OR owner = ? OR shared = 1)
                        """, arguments: [version, user])
                var recipes: [RecipeDetail] = []
                var deleted: [String] = []
                // The user's library: built-in recipes, their own, and shared ones they favorited.
                let favorites = Set(try String.fetchAll(db.cachedStatement(sql: "SELECT recipe_id FROM favorite WHERE user = ?"), arguments: [user]))
                for id in changedIDs {
                    if let row = try Self.resolve(id, user: user, db),
                        row.origin == .builtIn || row.owner == user || (row.shared && favorites.contains(id))
                    {
                        recipes.append(try detail(of: row, user: user, people: nil, db))
                    } else {
                        deleted.append(id)
                    }
                }
                let ingredients = try Row.fetchAll(
                    db, sql: "SELECT \(IngredientRecord.servedColumns) FROM ingredient WHERE version > ? ORDER BY id", arguments: [version]
                )
                .map(IngredientRecord.ingredient)
                return CatalogChanges(version: current, recipes: recipes, deletedRecipes: deleted.sorted(), ingredients: ingredients)
            }
        }
    }
}
