import Foundation
import Hummingbird
import SousClient
import SousSchema
import SousWire

/// Cook mode: the ingredients first, then one step at a time in large type with the step's
/// ingredients scaled for the household and a timer for a timed step; at the end, "cooked".
struct CookPages {
    let app: WebApp

    func addRoutes(to router: Router<WebContext>) {
        router.get("/cook/:id") { request, context in
            let session = try context.signedIn()
            let id = try context.parameters.require("id")
            async let household = app.backend.planner.call(PlannerAPI.household, RecipeID(id: id), session: session.token)
            async let profile = app.backend.planner.call(PlannerAPI.getProfile, Empty(), session: session.token)
            async let week = app.backend.planner.call(PlannerAPI.getPlan, Empty(), session: session.token)
            let people = min(max(try await household.people, 1), 50)
            let recipe = try await app.backend.catalog.call(
                CatalogAPI.getRecipe, RecipeLookup(id: id, people: people, withIngredients: true), session: session.token)
            let units = try await profile.units
            let count = recipe.steps.count
            let number = min(max(Int(request.uri.queryParameters.get("step") ?? "0") ?? 0, 0), count + 1)
            let base = "/cook/\(Views.urlQueryValue(id))"
            let densities = Dictionary((recipe.ingredientFacts ?? []).compactMap { fact in fact.gramsPerMl.map { (fact.id, $0) } }) { a, _ in a }
            func shown(_ lines: [RecipeIngredientDetail]) -> [[String: String]] {
                lines.map { line in
                    ["amount": RecipePages.amount(line.quantity, line.unit, units: units, gramsPerMl: densities[line.ingredient]), "name": line.name]
                }
            }
            var data: [String: Any] = ["recipe": id, "number": number, "count": count]
            if number == 0 {
                data["overview"] = ["people": recipe.people, "ingredients": shown(recipe.ingredients)] as [String: Any]
            } else if number <= count {
                let step = recipe.steps[number - 1]
                let named = Set(step.ingredients)
                var values: [String: Any] = [
                    "number": number, "count": count, "description": step.description,
                    "ingredients": shown(recipe.ingredients.filter { named.contains($0.ingredient) }),
                ]
                if let minutes = step.minutes, minutes > 0 {
                    values["minutes"] = minutes
                    values["seconds"] = minutes * 60
                }
                data["step"] = values
            } else {
                // The planned meal this could be: today's or an earlier one of the week not yet cooked.
                let plan = try await week
                let slot = plan.days.reversed().filter { $0.date <= plan.today }.flatMap(\.slots)
                    .first { $0.recipe == id && $0.cookedAt == nil }
                var finished: [String: Any] = [:]
                if let slot { finished["slot"] = ["date": slot.date.description, "slot": slot.slot] as [String: Any] }
                data["finished"] = finished
            }
            if number > 0 { data["previous"] = "\(base)?step=\(number - 1)" }
            if number <= count { data["next"] = "\(base)?step=\(number + 1)" }
            return app.views.page("cook", title: recipe.name, section: "week", data, context: context)
        }
    }
}
