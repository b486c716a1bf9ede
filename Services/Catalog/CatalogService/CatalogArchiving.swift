import Foundation
import GRDB
import SousRuntime
import SousSchema
import SousWire

/// The catalog's part of a user's archive: their own recipes (created, saved, personal
/// versions) with everything they hold, and their favorites. A photo's bytes are left out of
/// the export (the client fetches each with `recipes.photo`); an import takes them when given.
extension CatalogStore {
    func archive(user: String, household: String) throws(ServiceError) -> CatalogArchive {
        let book = ingredients
        return try storage {
            try database.read { session in
                let rows = try session.fetchAll(
                    RecipeRecord.self,
                    "SELECT \(sql.recipeColumns) FROM \(sql.recipeByOwner) WHERE r.owner = ? AND r.deleted = 0 ORDER BY r.created_at, r.id", [user])
                let recipes = try rows.map { row in
                    let detail = try detail(of: row, user: user, people: nil, ingredients: book, session)
                    // The bytes travel apart (`recipes.photo`): five of them would pass a message's 8 MiB.
                    return ArchivedRecipe(
                        id: row.id, origin: row.origin, basedOn: row.basedOn, shared: row.shared,
                        draft: RecipeDraft(
                            name: detail.name, summary: detail.summary, servings: detail.servings, prepMinutes: detail.prepMinutes,
                            cookMinutes: detail.cookMinutes,
                            ingredients: try Self.lines(key: row.key, session), steps: detail.steps, equipment: detail.equipment,
                            dishTypes: detail.dishTypes, link: detail.link, image: detail.image, notes: detail.notes, variations: detail.variations,
                            tags: detail.tags),
                        photo: detail.photo)
                }
                let favorites = try session.values(String.self, #"SELECT recipe_id FROM favorite WHERE "user" = ? ORDER BY recipe_id"#, [user])
                let shared = try session.values(
                    String.self, "SELECT recipe_id FROM household_favorite WHERE household = ? ORDER BY recipe_id", [household])
                return CatalogArchive(
                    recipes: recipes, favorites: favorites, householdFavorites: shared,
                    mappings: try Self.rememberedMappings(user: user, household: household, hidingShadowed: false, session))
            }
        }
    }

    /// Checks every recipe as `recipes.create` does (fields under `archive.recipes.<i>.draft`),
    /// then writes them and the favorites in one transaction (nothing when `dryRun`). A recipe
    /// keeps its id unless another recipe has it; a personal version whose original is gone
    /// becomes the user's own recipe; a favorite that no longer resolves is left out. Both are
    /// listed in `skipped`. Conflict when the user already has recipes or favorites.
    func restore(_ archive: CatalogArchive, user: String, household: String, dryRun: Bool) throws(ServiceError) -> ArchiveImported {
        try ArchiveFormat.check(archive.version)
        try Self.recipeQuota.check(current: 0, adding: archive.recipes.count)
        let book = ingredients
        var valid: [(ArchivedRecipe, ValidRecipe)] = []
        var ids: Set<String> = []
        for (index, recipe) in archive.recipes.enumerated() {
            let field = "archive.recipes.\(index)"
            guard recipe.origin != .builtIn else { throw .badRequest("built-in recipes are not a user's to import", field: "\(field).origin") }
            guard !recipe.id.isEmpty, recipe.id.count <= 100, ids.insert(recipe.id).inserted else {
                throw .badRequest("a recipe id is 1 to 100 characters, once", field: "\(field).id")
            }
            do {
                valid.append((recipe, try RecipeValidation.validate(new: recipe.draft, knownIngredients: Set(book.keys))))
            } catch {
                throw error.nested(under: "\(field).draft")
            }
        }
        let mappings = archive.mappings ?? []
        guard mappings.count <= 2 * Self.maxRememberedMappings else {
            throw .badRequest("at most \(Self.maxRememberedMappings) remembered mappings each for you and your household", field: "archive.mappings")
        }
        for (index, mapping) in mappings.enumerated() {
            do {
                try Self.validate([mapping.line: mapping.target])
            } catch {
                throw .badRequest(error.message, field: "archive.mappings.\(index)")
            }
        }
        return try storage {
            try database.write { session -> ArchiveImported in
                let owned = try session.value(Int.self, "SELECT 1 FROM \(sql.recipeByOwner) WHERE r.owner = ? AND r.deleted = 0 LIMIT 1", [user])
                let favored = try session.value(Int.self, #"SELECT 1 FROM favorite WHERE "user" = ? LIMIT 1"#, [user])
                guard owned == nil, favored == nil else {
                    throw ServiceError.conflict("your account already has recipes or favorites in the catalog: import into an empty account")
                }
                var counts = ["recipes": archive.recipes.count, "favorites": archive.favorites.count]
                guard !dryRun else {
                    counts["mappings"] = mappings.count
                    return ArchiveImported(counts: counts)
                }
                var renamed: [String: String] = [:]
                var skipped: [String] = []
                for (recipe, content) in valid {
                    let version = try Self.nextVersion(session)
                    if recipe.origin == .personal, let original = try resolve(recipe.id, user: user, session) {
                        try write(
                            content, key: .personal(recipe.id, of: user), id: recipe.id, origin: .personal, owner: user, basedOn: original.id,
                            shared: false, version: version, ingredients: book, session)
                        continue
                    }
                    var id = recipe.id
                    let taken = try session.value(Int.self, "SELECT 1 FROM recipe WHERE key = ?", [id]) != nil
                    if recipe.origin == .personal || taken {
                        id = "r-" + UUID().uuidString.lowercased().prefix(12)
                        renamed[recipe.id] = id
                        if recipe.origin == .personal { skipped.append("\(recipe.id): its original is gone; imported as your own recipe \(id)") }
                    }
                    try write(
                        content, key: .shared(id), id: id, origin: recipe.origin == .personal ? .custom : recipe.origin, owner: user,
                        basedOn: recipe.origin == .personal ? nil : recipe.basedOn, shared: recipe.shared, version: version, ingredients: book,
                        session)
                }
                for favorite in archive.favorites {
                    let id = renamed[favorite] ?? favorite
                    guard try resolve(id, user: user, session) != nil else {
                        skipped.append("favorite \(favorite): no such recipe here")
                        continue
                    }
                    try session.execute(
                        #"INSERT INTO favorite ("user", recipe_id, created_at) VALUES (?, ?, ?)"#, [user, id, Date().timeIntervalSince1970])
                }
                let shared = archive.householdFavorites ?? []
                if !shared.isEmpty, try session.value(Int.self, "SELECT 1 FROM household_favorite WHERE household = ? LIMIT 1", [household]) != nil {
                    skipped.append("the household's favourites: your household has its own already")
                } else {
                    for favorite in shared.prefix(Self.maxHouseholdFavorites) {
                        let id = renamed[favorite] ?? favorite
                        guard try resolve(id, user: user, session) != nil else {
                            skipped.append("household favourite \(favorite): no such recipe here")
                            continue
                        }
                        try session.execute(
                            "INSERT INTO household_favorite (household, recipe_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                            [household, id, Date().timeIntervalSince1970])
                    }
                }
                counts["mappings"] = try Self.restore(mappings, user: user, household: household, skipped: &skipped, session)
                return ArchiveImported(counts: counts, renamedRecipes: renamed, skipped: skipped)
            }
        }
    }
}

extension CatalogHandlers {
    func exportArchive(_ request: Empty, user: String, context: RequestContext) throws -> CatalogArchive {
        try store.archive(user: user, household: try context.requireHousehold())
    }

    func importArchive(_ request: CatalogArchiveImport, user: String, context: RequestContext) throws -> ArchiveImported {
        let result = try store.restore(request.archive, user: user, household: try context.requireHousehold(), dryRun: request.dryRun ?? false)
        if request.dryRun != true, !request.archive.recipes.isEmpty {
            let version = try store.catalogVersion
            for recipe in request.archive.recipes {
                publish(CatalogTopics.recipeCreated, recipe: result.renamedRecipes[recipe.id] ?? recipe.id, user: user, version: version)
            }
        }
        return result
    }
}
