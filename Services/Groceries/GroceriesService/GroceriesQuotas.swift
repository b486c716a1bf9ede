import Foundation
import SousRuntime
import SousWire

/// What one user may store in the groceries service (docs/PROTOCOL.md, "Quotas").
enum GroceriesQuotas {
    static let manualItems = Quota("items added by hand to the list", limit: 500, field: "text")
    static let listRecipes = Quota("recipes on the list", limit: 200, field: "recipe")
    static let ordersPerDay = Quota("orders in 24 hours", limit: 50, field: "list")

    static func checkManualItems(user: String, _ session: any SQLSession) throws {
        try manualItems.check(current: session.value(Int.self, #"SELECT COUNT(*) FROM manual_item WHERE "user" = ?"#, [user]) ?? 0)
    }

    /// Orders placed in the 24 hours before `now`.
    static func checkOrdersPerDay(user: String, now: Date, _ session: any SQLSession) throws {
        try ordersPerDay.check(
            current: session.value(
                Int.self, #"SELECT COUNT(*) FROM grocery_order WHERE "user" = ? AND placed_at > ?"#, [user, now.timeIntervalSince1970 - 86_400]
            ) ?? 0)
    }
}
