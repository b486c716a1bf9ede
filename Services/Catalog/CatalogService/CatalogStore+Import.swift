public import Foundation
import GRDB
public import SousInterchange
import SousRuntime
public import SousSchema
public import SousWire

/// Importing schema.org recipes, and the line mappings users gave for them.
extension CatalogStore {
    /// At most this many mappings with one import, and remembered per user or household.
    public static let maxMappingsPerImport = 1000
    public static let maxRememberedMappings = 5000
    /// The longest line or mapping target remembered.
    public static let maxMappingCharacters = 500

    /// The recipes of a JSON-LD document or of a saved page's HTML (its JSON-LD, else its
    /// microdata), or a badRequest on `document` saying what is wrong.
    public static func recipes(fromDocument document: String) throws(ServiceError) -> [SchemaRecipe] {
        guard document.utf8.count <= RecipeImport.maxDocumentBytes else {
            throw .badRequest("the document is larger than \(RecipeImport.maxDocumentBytes / 1024 / 1024) MiB", field: "document")
        }
        do {
            let isHTML = document.drop { $0.isWhitespace || $0 == "\u{FEFF}" }.first == "<"
            return isHTML ? try RecipeWebPage.recipes(inHTML: document) : try SchemaRecipeDocument.recipes(from: Data(document.utf8))
        } catch {
            throw .badRequest("\(error.message) at \(error.path)", field: "document")
        }
    }

    /// `recipes` as the user's own, all in one transaction, or none: when any ingredient line is
    /// unmatched (or measured in a unit its ingredient cannot take) the reply lists every such
    /// line and nothing is written. `photos` holds images already fetched, by the address the
    /// recipe names them with. The mappings given are remembered for the user and `household`
    /// (when known) once the recipes are written.
    public func importRecipes(
        _ recipes: [SchemaRecipe], mappings: [String: String], photos: [String: Data] = [:], user: String, household: String?
    ) throws(ServiceError) -> RecipeImportReport {
        guard recipes.count <= RecipeImport.maxRecipes else {
            throw .badRequest("at most \(RecipeImport.maxRecipes) recipes per import, the document has \(recipes.count)", field: "document")
        }
        try Self.validate(mappings)
        let book = ingredientBook
        let remembered = try rememberedMappings(user: user, household: household)
        var known: [String: String] = [:]
        for mapping in remembered.mappings.reversed() { known[RememberedLines.key(mapping.line)] = mapping.target }
        let importer = RecipeImporter(book: book, mappings: mappings, remembered: known, photos: photos)
        let (drafts, found, matched) = importer.drafts(recipes)
        var unmatched = found
        var valid: [(source: SchemaRecipe, recipe: ValidRecipe)] = []
        for draft in drafts {
            do throws(ServiceError) {
                let recipe = try RecipeValidation.validate(new: draft.draft, knownIngredients: Set(book.byID.keys))
                _ = try RecipeDerivation.derive(
                    lines: recipe.ingredients, servings: recipe.servings, prepMinutes: recipe.prepMinutes, cookMinutes: recipe.cookMinutes,
                    ingredients: book.byID)
                valid.append((draft.source, recipe))
            } catch {
                // A line the catalog refuses (a unit its ingredient cannot be measured in, an
                // absurd quantity) is reported as that line; anything else names the recipe.
                let parts = (error.field ?? "").split(separator: ".")
                if parts.count >= 2, parts[0] == "ingredients", let index = Int(parts[1]), draft.lineTexts.indices.contains(index) {
                    unmatched.append(UnmatchedIngredientLine(recipe: draft.source.name, line: draft.lineTexts[index], reason: error.message))
                } else {
                    throw .badRequest("recipe \"\(draft.source.name)\": \(error.message)", field: "document")
                }
            }
        }
        guard unmatched.isEmpty else { return RecipeImportReport(imported: [], unmatched: unmatched, matched: matched) }
        // Only the mappings of lines the document has are remembered.
        let written = Set(recipes.flatMap(\.ingredients))
        let used = mappings.filter { written.contains($0.key) }
        let ingredients = book.byID
        return try storage {
            try database.write { session -> RecipeImportReport in
                var imported: [ImportedRecipe] = []
                for (source, recipe) in valid {
                    try checkRecipeQuota(user: user, session)
                    let id = "r-" + UUID().uuidString.lowercased().prefix(12)
                    let version = try Self.nextVersion(session)
                    try write(
                        recipe, key: .shared(id), id: id, origin: .custom, owner: user, basedOn: nil, shared: false, version: version,
                        ingredients: ingredients, session)
                    imported.append(
                        ImportedRecipe(
                            id: id, name: recipe.name, lines: source.ingredients.count, unmappedFields: RecipeImporter.droppedFields(of: source)))
                }
                try Self.remember(used, user: user, household: household, session)
                return RecipeImportReport(imported: imported, unmatched: [], matched: matched)
            }
        }
    }

    static func validate(_ mappings: [String: String]) throws(ServiceError) {
        guard mappings.count <= maxMappingsPerImport else {
            throw .badRequest("at most \(maxMappingsPerImport) mappings per import", field: "mappings")
        }
        for (line, target) in mappings.sorted(by: { $0.key < $1.key }) {
            guard !line.isEmpty, line.count <= maxMappingCharacters, !target.trimmingCharacters(in: .whitespaces).isEmpty,
                target.count <= maxMappingCharacters
            else {
                throw .badRequest(
                    "a mapping's line and meaning are 1 to \(maxMappingCharacters) characters (\"\(line.prefix(40))\")", field: "mappings")
            }
        }
    }

    /// Writes `mappings` for the user and the household, refusing to keep more than
    /// ``maxRememberedMappings`` for either.
    static func remember(_ mappings: [String: String], user: String, household: String?, _ session: any SQLSession) throws {
        try remember(mappings, in: "line_mapping", column: "\"user\"", owner: user, session)
        if let household { try rememberForHousehold(mappings, household: household, session) }
    }

    static func rememberForHousehold(_ mappings: [String: String], household: String, _ session: any SQLSession) throws {
        try remember(mappings, in: "household_line_mapping", column: "household", owner: household, session)
    }

    private static func remember(_ mappings: [String: String], in table: String, column: String, owner: String, _ session: any SQLSession) throws {
        guard !mappings.isEmpty else { return }
        for (line, target) in mappings.sorted(by: { $0.key < $1.key }) {
            try session.execute(
                """
                INSERT INTO \(table) (\(column), line, written, target) VALUES (?, ?, ?, ?)
                ON CONFLICT (\(column), line) DO UPDATE SET written = excluded.written, target = excluded.target
                """, [owner, RememberedLines.key(line), line, target])
        }
        let count = try session.value(Int.self, "SELECT COUNT(*) FROM \(table) WHERE \(column) = ?", [owner]) ?? 0
        guard count <= maxRememberedMappings else {
            throw ServiceError.badRequest(
                "at most \(maxRememberedMappings) remembered mappings; forget some (recipes.forgetMapping)", field: "mappings")
        }
    }

    /// The user's remembered mappings, then the household's that the user has not given
    /// themselves, each by line.
    public func rememberedMappings(user: String, household: String?) throws(ServiceError) -> RememberedMappings {
        try storage {
            try database.read { session in
                RememberedMappings(mappings: try Self.rememberedMappings(user: user, household: household, hidingShadowed: true, session))
            }
        }
    }

    /// The user's mappings, then the household's (without those the user gave the same line
    /// when `hidingShadowed`: what imports use; with them: what an archive keeps).
    static func rememberedMappings(user: String, household: String?, hidingShadowed: Bool, _ session: any SQLSession) throws -> [RememberedMapping] {
        let own = try session.rows(#"SELECT line, written, target FROM line_mapping WHERE "user" = ? ORDER BY line"#, [user])
        let shared =
            try household.map {
                try session.rows("SELECT line, written, target FROM household_line_mapping WHERE household = ? ORDER BY line", [$0])
            } ?? []
        let ownLines = hidingShadowed ? Set(own.map { $0["line"] as String }) : []
        return own.map { RememberedMapping(line: $0["written"], target: $0["target"], household: false) }
            + shared.filter { !ownLines.contains($0["line"]) }.map { RememberedMapping(line: $0["written"], target: $0["target"], household: true) }
    }

    /// Writes an archive's mappings: the user's, and the household's into a household that has
    /// none yet (else they are listed in `skipped`). Returns how many were written.
    static func restore(
        _ mappings: [RememberedMapping], user: String, household: String, skipped: inout [String], _ session: any SQLSession
    ) throws -> Int {
        let own = mappings.filter { !$0.household }
        var shared = mappings.filter(\.household)
        if !shared.isEmpty, try session.value(Int.self, "SELECT 1 FROM household_line_mapping WHERE household = ? LIMIT 1", [household]) != nil {
            skipped.append("the household's remembered mappings: your household has its own already")
            shared = []
        }
        try remember(Dictionary(own.map { ($0.line, $0.target) }, uniquingKeysWith: { _, last in last }), user: user, household: nil, session)
        if !shared.isEmpty {
            let table = Dictionary(shared.map { ($0.line, $0.target) }, uniquingKeysWith: { _, last in last })
            try rememberForHousehold(table, household: household, session)
        }
        return own.count + shared.count
    }

    /// Forgets what the user and the household remembered for `line`; notFound when neither had it.
    public func forgetMapping(_ line: String, user: String, household: String?) throws(ServiceError) {
        let key = RememberedLines.key(line)
        try storage {
            try database.write { session in
                let own = try session.execute(#"DELETE FROM line_mapping WHERE "user" = ? AND line = ?"#, [user, key])
                let shared =
                    try household.map { try session.execute("DELETE FROM household_line_mapping WHERE household = ? AND line = ?", [$0, key]) } ?? 0
                guard own + shared > 0 else { throw ServiceError.notFound("no remembered mapping for this line", field: "line") }
            }
        }
    }
}
