import Foundation
import SousRuntime
import SousWire

/// What one household may store in the groceries service (docs/PROTOCOL.md, "Quotas").
enum GroceriesQuotas {
    static let manualItems = Quota("items added by hand to the list", limit: 500, field: "text")
    static let listRecipes = Quota("recipes on the list", limit: 200, field: "recipe")
    static let ordersPerDay = Quota("orders in 24 hours", limit: 50, field: "list")
    static let pantryItems = Quota("items in the pantry", limit: 500, field: "ingredient")
    static let staples = Quota("staples", limit: 200, field: "ingredient")

    static func checkManualItems(household: String, _ session: any SQLSession) throws {
        try manualItems.check(current: session.value(Int.self, #"SELECT COUNT(*) FROM manual_item WHERE household = ?"#, [household]) ?? 0)
    }

    /// Orders placed in the 24 hours before `now`.
    static func checkOrdersPerDay(household: String, now: Date, _ session: any SQLSession) throws {
        try ordersPerDay.check(
            current: session.value(
                Int.self, #"SELECT COUNT(*) FROM grocery_order WHERE household = ? AND placed_at > ?"#,
                [household, now.timeIntervalSince1970 - 86_400]
            ) ?? 0)
    }
}
