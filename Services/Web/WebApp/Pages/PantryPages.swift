import Foundation
import Hummingbird
import SousClient
import SousSchema
import SousWire

/// The household's pantry: what it has (the list buys only the rest), staples that stay off the
/// list, and whether a checkout restocks it. Every action is a form.
struct PantryPages {
    let app: WebApp

    func addRoutes(to router: Router<WebContext>) {
        router.get("/pantry") { _, context in try await pantryPage(context) }
        router.post("/pantry/add") { _, context in
            try await act(context) { form, token in
                let ingredient = try form.required("ingredient", label: "Ingredient")
                guard let quantity = try form.number("quantity", label: "Quantity", in: 0.001...100_000) else {
                    throw WebError.field("quantity", "Quantity is required")
                }
                let unit = try form.text("unit").map { text -> MeasureUnit in
                    guard let unit = MeasureUnit(rawValue: text) else { throw WebError.field("unit", "Choose a unit from the list") }
                    return unit
                }
                let bestBefore = try form.text("bestBefore").map { text -> LocalDate in
                    guard let date = LocalDate(text) else { throw WebError.field("bestBefore", "A best-before date is a date") }
                    return date
                }
                let add = PantryAdd(ingredient: ingredient, quantity: quantity, unit: unit, bestBefore: bestBefore, location: form.text("location"))
                _ = try await app.backend.groceries.call(PantryAPI.add, add, session: token)
            }
        }
        router.post("/pantry/remove") { _, context in
            try await act(context) { form, token in
                guard let id = try form.integer("id", label: "Item", in: 1...Int(Int32.max)) else { throw WebError.field("id", "Item is required") }
                _ = try await app.backend.groceries.call(PantryAPI.remove, PantryItemRef(id: Int64(id)), session: token)
            }
        }
        router.post("/pantry/staple") { _, context in
            try await act(context) { form, token in
                let ingredient = try form.required("ingredient", label: "Ingredient")
                let setting = StapleSetting(ingredient: ingredient, staple: form.text("staple") != "0", out: form.text("out") == "1")
                _ = try await app.backend.groceries.call(PantryAPI.staple, setting, session: token)
            }
        }
        router.post("/pantry/restock") { _, context in
            try await act(context) { form, token in
                _ = try await app.backend.groceries.call(
                    PantryAPI.settings, PantrySettings(restockOnCheckout: form.text("on") == "1"), session: token)
            }
        }
    }

    private func act(_ context: WebContext, _ action: (Form, String) async throws -> Void) async throws -> Response {
        let session = try context.signedIn()
        return try await app.submit {
            try await action(context.form, session.token)
            return Views.seeOther("/pantry")
        } orShow: { error in
            try await pantryPage(context, error: error)
        }
    }

    private func pantryPage(_ context: WebContext, error: WebError? = nil) async throws -> Response {
        let session = try context.signedIn()
        let pantry = try await app.backend.groceries.call(PantryAPI.get, Empty(), session: session.token)
        let data: [String: Any] = [
            "items": pantry.items.map { item -> [String: Any] in
                [
                    "id": item.id, "name": item.name,
                    "amount": ListPages.amount(quantity: item.quantity, unit: item.unit, count: nil), "location": item.location,
                    "bestBefore": item.bestBefore.map { "\($0)" } ?? "",
                ]
            },
            "staples": pantry.staples.map { ["ingredient": $0.ingredient, "name": $0.name, "out": $0.out] },
            "restock": pantry.restockOnCheckout, "restockNext": pantry.restockOnCheckout ? "0" : "1",
            "units": ["g", "kg", "ml", "l", "piece"],
        ]
        return app.views.page("pantry", title: "Pantry", section: "list", data, context: context, status: error?.status ?? .ok, error: error)
    }
}
