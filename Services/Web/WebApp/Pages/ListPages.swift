import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle
import SousClient
import SousCrypto
import SousSchema
import SousUnits
import SousWire

/// The household's grocery list by shop category: tick and untick with one tap (from a script
/// too, queued while offline and sent once: every write carries an idempotency key), manual
/// items, "I have it", checkout and orders, and the live feed other members' ticks arrive on.
struct ListPages {
    let app: WebApp

    func addRoutes(to router: Router<WebContext>) {
        router.get("/list") { request, context in
            if request.uri.queryParameters.get("part") == "body" { return try await listBody(context) }
            return try await listPage(context)
        }
        router.get("/list/events") { request, context in try events(request, context) }
        router.post("/list/check") { request, context in
            try await act(request, context) { form, token, key in
                let line = try form.required("line", label: "Line")
                guard let checked = form.text("checked"), ["0", "1", "true", "false"].contains(checked) else {
                    throw WebError.field("checked", "Say whether the line is ticked (1) or not (0)")
                }
                let change = CheckLines(lines: [line], checked: checked == "1" || checked == "true")
                _ = try await app.backend.groceries.call(GroceriesAPI.check, change, session: token, idempotencyKey: key)
            }
        }
        router.post("/list/items") { request, context in
            try await act(request, context) { form, token, key in
                let text = try form.required("text", label: "Item")
                _ = try await app.backend.groceries.call(GroceriesAPI.addItem, AddListItem(text: text), session: token, idempotencyKey: key)
            }
        }
        router.post("/list/items/remove") { request, context in
            try await act(request, context) { form, token, key in
                guard let id = try form.integer("id", label: "Item", in: 1...Int(Int32.max)) else { throw WebError.field("id", "Item is required") }
                _ = try await app.backend.groceries.call(GroceriesAPI.removeItem, RemoveListItem(id: Int64(id)), session: token, idempotencyKey: key)
            }
        }
        router.post("/list/recipes") { request, context in
            try await act(request, context) { form, token, key in
                let recipe = try form.required("recipe", label: "Recipe")
                _ = try await app.backend.groceries.call(GroceriesAPI.addRecipe, AddRecipeToList(recipe: recipe), session: token, idempotencyKey: key)
            }
        }
        router.post("/list/recipes/remove") { request, context in
            try await act(request, context) { form, token, key in
                let recipe = try form.required("recipe", label: "Recipe")
                _ = try await app.backend.groceries.call(GroceriesAPI.removeRecipe, RemoveListRecipe(id: recipe), session: token, idempotencyKey: key)
            }
        }
        router.post("/list/have") { request, context in
            try await act(request, context) { form, token, _ in
                let ingredient = try form.required("ingredient", label: "Ingredient")
                let list = try await app.backend.groceries.call(GroceriesAPI.list, Empty(), session: token)
                let recipes = Set(list.categories.flatMap(\.lines).filter { $0.ingredient == ingredient }.flatMap(\.sources).compactMap(\.recipe))
                for recipe in recipes.sorted() {
                    _ = try await app.backend.groceries.call(
                        GroceriesAPI.setRecipe, SetListRecipe(recipe: recipe, exclude: [ingredient]), session: token)
                }
            }
        }
        router.post("/list/week") { request, context in
            try await act(request, context) { _, token, _ in
                let week = try await app.backend.planner.call(PlannerAPI.getPlan, Empty(), session: token)
                let onList = Set(try await app.backend.groceries.call(GroceriesAPI.list, Empty(), session: token).recipes.map(\.recipe))
                var seen = Set<String>()
                for day in week.days where day.date >= week.today {
                    for recipe in day.slots.compactMap(\.recipe) where !onList.contains(recipe) && seen.insert(recipe).inserted {
                        _ = try await app.backend.groceries.call(GroceriesAPI.addRecipe, AddRecipeToList(recipe: recipe), session: token)
                    }
                }
            }
        }
        router.post("/list/checkout") { request, context in
            let session = try context.signedIn()
            let form = context.form
            return try await app.submit {
                let checkout = Checkout(
                    phone: form.text("phone"),
                    address: DeliveryAddress(street: form.text("street"), postalCode: form.text("postalCode"), city: form.text("city")),
                    note: form.text("note"))
                _ = try await app.backend.groceries.call(
                    GroceriesAPI.checkout, checkout, session: session.token, idempotencyKey: Self.idempotencyKey(request, form))
                return Views.seeOther("/list/orders")
            } orShow: { error in
                try await listPage(context, error: error)
            }
        }
        router.get("/list/orders") { _, context in
            let session = try context.signedIn()
            let history = try await app.backend.groceries.call(GroceriesAPI.orders, OrderQuery(limit: 20), session: session.token)
            let orders = history.orders.map { order -> [String: Any] in
                [
                    "id": order.id, "placed": Show.dateTime(order.placedAt), "total": Show.euros(order.total),
                    "address": [order.address.street, order.address.postalCode, order.address.city].compactMap { $0 }.joined(separator: ", "),
                    "lines": order.lines.map { line in
                        ["amount": Self.amount(quantity: line.quantity, unit: line.unit, count: line.count), "name": line.name]
                    },
                ]
            }
            return app.views.page("orders", title: "Orders", section: "list", ["orders": orders], context: context)
        }
    }

    /// A list write: from a form, back to the list (or the list with the reason); from the
    /// page's script (`X-Sous-Fetch`), the new version as JSON, refusals as JSON (the edge).
    private func act(
        _ request: Request, _ context: WebContext, _ action: (Form, String, String?) async throws -> Void
    ) async throws -> Response {
        let session = try context.signedIn()
        let key = Self.idempotencyKey(request, context.form)
        if request.headers[.init("X-Sous-Fetch")!] != nil {
            try await action(context.form, session.token, key)
            return Response(status: .noContent)
        }
        return try await app.submit {
            try await action(context.form, session.token, key)
            return Views.seeOther("/list")
        } orShow: { error in
            try await listPage(context, error: error)
        }
    }

    /// The key a write is applied once by: the script's `Idempotency-Key` (the same on every
    /// resend of a tick queued offline), or the one the form was rendered with.
    static func idempotencyKey(_ request: Request, _ form: Form) -> String? {
        let key = request.headers[.init("Idempotency-Key")!] ?? form.text("idempotencyKey")
        guard let key, (8...128).contains(key.utf8.count), key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        return "web:" + key
    }

    private func listPage(_ context: WebContext, error: WebError? = nil) async throws -> Response {
        let session = try context.signedIn()
        var data = try await bodyValues(session)
        data["formKey"] = Base64URL.encode(Sodium.randomBytes(16))
        return app.views.page("list", title: "Grocery list", section: "list", data, context: context, status: error?.status ?? .ok, error: error)
    }

    /// Just the list, for the script to put in place when another member changed it.
    private func listBody(_ context: WebContext) async throws -> Response {
        let session = try context.signedIn()
        var data = try await bodyValues(session)
        data["csrf"] = context.formToken
        var response = Views.html(app.views.fragment("list_body", data))
        response.headers[.init("X-List-Version")!] = String(data["version"] as? Int64 ?? 0)
        return response
    }

    private func bodyValues(_ session: WebSession) async throws -> [String: Any] {
        async let profile = app.backend.planner.call(PlannerAPI.getProfile, Empty(), session: session.token)
        let list = try await app.backend.groceries.call(GroceriesAPI.list, Empty(), session: session.token)
        let units = (try? await profile.units) ?? .metric
        return [
            "version": list.version, "checkedCount": list.checkedCount, "lineCount": list.lineCount, "total": Show.euros(list.total),
            "totalByPacks": list.lines.contains { $0.packs != nil } ? Show.euros(list.totalByPacks) : "",
            "categories": list.categories.map { group -> [String: Any] in
                [
                    "category": group.category.rawValue, "subtotal": Show.euros(group.subtotal),
                    "lines": group.lines.map { line -> [String: Any] in
                        var values: [String: Any] = [
                            "id": line.id, "name": line.name, "checked": line.checked, "next": line.checked ? "0" : "1",
                            "amount": Self.amount(line, units: units), "fromRecipes": line.sources.contains { $0.recipe != nil },
                            "ingredient": line.ingredient ?? "",
                        ]
                        if let price = line.price {
                            values["price"] = Show.euros(price)
                        } else if line.ingredient != nil {
                            values["price"] = "no price"
                        }
                        if let packs = line.packs { values["packs"] = packs.summary(leftoverUnit: line.exactUnit) }
                        if let cover = line.pantry, let need = line.exactQuantity, let unit = line.exactUnit {
                            let shown = { (amount: Double) in Self.amount(quantity: (amount * 10).rounded() / 10, unit: unit, count: nil) }
                            values["have"] = "need \(shown(need)), have \(shown(cover.have)) in the pantry"
                        }
                        if let item = line.sources.compactMap(\.item).first { values["item"] = item }
                        return values
                    },
                ]
            },
            "recipes": list.recipes.map { ["recipe": $0.recipe, "name": $0.name, "multiplier": $0.multiplier, "excluded": $0.excluded] },
        ]
    }

    static func amount(_ line: GroceryLine, units: UnitSystem) -> String {
        if units == .us, let quantity = line.exactQuantity, let unit = line.exactUnit {
            return RecipePages.amount(quantity, unit, units: .us, gramsPerMl: nil)
        }
        return amount(quantity: line.quantity, unit: line.unit, count: line.count)
    }

    static func amount(quantity: Double?, unit: MeasureUnit?, count: Int?) -> String {
        if let count { return count == 1 ? "" : "\(count) ×" }
        guard let quantity, let unit else { return "" }
        return unit == .piece ? Show.number(quantity, decimals: 2) : "\(Show.number(quantity, decimals: 2)) \(unit.rawValue)"
    }

    // MARK: Live updates

    /// Server-sent events: `list` with the new version whenever the household's list changes
    /// (the groceries service's long poll), a comment after every quiet wait (``WebLimits/streamWait``)
    /// to keep proxies from closing the stream, and `ended` when the session has ended. A stream lasts at most 30 minutes;
    /// the browser reconnects by itself.
    private func events(_ request: Request, _ context: WebContext) throws -> Response {
        let session = try context.signedIn()
        // The version the page shows; without one, any version but 0 is news.
        let start = max(request.uri.queryParameters.get("after").flatMap(Int64.init) ?? 0, 0)
        let watcher = app.backend.watcher
        let wait = app.configuration.limits.streamWait
        let waitSeconds = Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18
        let body = ResponseBody { (writer: inout any ResponseBodyWriter) in
            var after = start
            try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
            let end = ContinuousClock.now + .seconds(30 * 60)
            // A server that is stopping ends its streams at once (the browsers reconnect to
            // another replica, or to this one when it is back) instead of holding its shutdown.
            while ContinuousClock.now < end, !Task.isShuttingDownGracefully {
                let request = ListWait(after: after, waitSeconds: waitSeconds)
                let call = Task { try await watcher.call(GroceriesAPI.wait, request, session: session.token) }
                let now: ListVersionNow
                do {
                    now = try await withGracefulShutdownHandler {
                        try await call.value
                    } onGracefulShutdown: {
                        call.cancel()
                    }
                } catch let error as ServiceError where error.code == .unauthorized {
                    try await writer.write(ByteBuffer(string: "event: ended\ndata: /signin\n\n"))
                    break
                } catch let error as ServiceError where [.unavailable, .timeout].contains(error.code) {
                    if Task.isShuttingDownGracefully { break }
                    // The service is restarting: say nothing new, try again shortly.
                    try await writer.write(ByteBuffer(string: ": waiting\n\n"))
                    try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(2)) }
                    continue
                } catch {
                    break
                }
                if now.changed {
                    after = now.version
                    try await writer.write(ByteBuffer(string: "event: list\ndata: \(now.version)\n\n"))
                } else {
                    try await writer.write(ByteBuffer(string: ": still here\n\n"))
                }
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store", .init("X-Accel-Buffering")!: "no"], body: body)
    }
}
