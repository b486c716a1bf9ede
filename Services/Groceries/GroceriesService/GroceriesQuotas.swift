import GRDB
import SousWire

/// What one user may store in the groceries service (docs/PROTOCOL.md, "Quotas").
enum GroceriesQuotas {
    static let manualItems = Quota("items added by hand to the list", limit: 500, field: "text")
    static let listRecipes = Quota("recipes on the list", limit: 200, field: "recipe")
    static let ordersPerDay = Quota("orders in 24 hours", limit: 50, field: "list")

    static func checkManualItems(user: String, _ db: Database) throws {
        try manualItems.check(
            current: Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM manual_item WHERE user = ?"), arguments: [user]) ?? 0)
    }
}
