import Foundation
import GRDB
import SousRuntime
import SousSchema
import SousWire

extension CatalogStore {
    /// Recipes to score for `recipes.suggest`: the `limit` whose serving is closest to `kcal`
    /// among those `user` can see that pass `filter` and the dish type and bring any energy at
    /// all (an empty recipe is no meal), each in full (nutrition, lines) with its summary.
    ///
    /// The stored kcal per serving narrows the field in SQL, so a large catalog costs one indexed
    /// walk and `limit` detail reads, not a derivation per recipe.
    func suggestionCandidates(
        user: String, filter: (profile: RecipeFilterProfile, switches: FilterSwitches)?, dishType: DishType?, kcal: Double, limit: Int
    ) throws(ServiceError) -> [(summary: RecipeSummary, detail: RecipeDetail)] {
        let book = ingredientBook
        let sql = sql
        let built = try RecipeSearchQuery(RecipeSearch(dishType: dishType), filter: filter, ingredients: book, engine: sql.engine)
        let arguments = built.sqlArguments
        let conditionsSQL = built.conditions.map { " AND \($0)" }.joined()
        return try storage {
            try database.read { session in
                let (scopeSQL, scopeArguments) = try searchScope(user: user, session)
                let rows = try session.rows(
                    """
                    SELECT \(sql.recipeColumns) FROM recipe r WHERE r.deleted = 0 AND r.kcal_per_serving > 0 AND \(scopeSQL)\(conditionsSQL)
                    ORDER BY ABS(r.kcal_per_serving - ?), r.name, r.id LIMIT ?
                    """, scopeArguments + arguments + [kcal, limit])
                return try rows.map { row in
                    let record = try RecipeRecord(row: row)
                    let detail = try detail(of: record, user: user, people: nil, ingredients: book.byID, session)
                    return (record.summary(isFavorite: detail.isFavorite), detail)
                }
            }
        }
    }
}
