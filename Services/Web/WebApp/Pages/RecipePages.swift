import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SousClient
import SousInterchange
import SousSchema
import SousUnits
import SousWire

/// Search with the profile's filters and their switches, favourites, one's own recipes, the
/// community; a recipe page scaled for the household; writing, importing and editing recipes.
struct RecipePages {
    let app: WebApp
    static let pageSize = 20

    func addRoutes(to router: Router<WebContext>) {
        router.get("/recipes") { request, context in try await listPage(request, context) }
        router.get("/recipes/new") { _, context in
            _ = try context.signedIn()
            return formPage(context, draft: ["servings": "4"], action: "/recipes/new", title: "Write a recipe", submitLabel: "Save recipe")
        }
        router.post("/recipes/new") { _, context in
            let session = try context.signedIn()
            let form = context.form
            return try await app.submit {
                let document = try Self.document(from: form)
                let report = try await app.backend.catalog.call(CatalogAPI.importRecipes, RecipeImport(document: document), session: session.token)
                if let unmatched = report.unmatched.first {
                    throw WebError.field("ingredients", "“\(unmatched.line)”: \(unmatched.reason)")
                }
                guard let created = report.imported.first else { throw WebError.field("ingredients", "The recipe could not be read") }
                return Views.seeOther("/recipes/\(Views.urlQueryValue(created.id))")
            } orShow: { error in
                formPage(
                    context, draft: Self.echo(form), action: "/recipes/new", title: "Write a recipe", submitLabel: "Save recipe", error: error)
            }
        }
        router.get("/recipes/import") { _, context in
            _ = try context.signedIn()
            return app.views.page("recipe_import", title: "Import a recipe", section: "recipes", context: context)
        }
        router.post("/recipes/import") { _, context in
            let session = try context.signedIn()
            let address = context.form.text("url") ?? ""
            return try await app.submit {
                let request: RecipeImport
                if !address.isEmpty {
                    request = RecipeImport(url: address)
                } else {
                    guard let file = context.form.file("document") else {
                        throw WebError.field("document", "Give a recipe page's address or choose a file to import")
                    }
                    guard let text = String(validating: file.bytes, as: UTF8.self) else {
                        throw WebError.field("document", "The file is not text (UTF-8): save the recipe page as HTML or JSON")
                    }
                    request = RecipeImport(document: text)
                }
                let report = try await app.backend.catalog.call(CatalogAPI.importRecipes, request, session: session.token)
                let imported = report.imported.map { ["id": $0.id, "name": $0.name] }
                let matched = report.matched.map { line in
                    switch line.how {
                    case .food: "\(line.line): \(line.name) (a USDA food, \(Int((line.confidence * 100).rounded())) % of its words)"
                    case .mapping, .remembered: "\(line.line): \(line.name), as you said"
                    }
                }
                let unmatched = report.unmatched.map { "\($0.line): \($0.reason)" }
                let notice = imported.isEmpty ? nil : "Imported \(imported.count) recipe\(imported.count == 1 ? "" : "s")."
                let error = unmatched.isEmpty ? nil : WebError.field("document", "Nothing was imported: these lines match no ingredient.")
                return app.views.page(
                    "recipe_import", title: "Import a recipe", section: "recipes",
                    ["imported": imported, "matched": matched, "unmatched": unmatched, "url": address], context: context,
                    status: error == nil ? .ok : .unprocessableContent, error: error, notice: notice)
            } orShow: { error in
                app.views.page(
                    "recipe_import", title: "Import a recipe", section: "recipes", ["url": address], context: context, status: error.status,
                    error: error)
            }
        }
        router.get("/recipes/:id") { _, context in try await recipePage(context) }
        router.get("/recipes/:id/photo") { _, context in
            let session = try context.signedIn()
            let id = try context.parameters.require("id")
            let photo = try await app.backend.catalog.call(CatalogAPI.photo, RecipeID(id: id), session: session.token)
            // The catalog judged the type from the bytes when it stored them; say only what it said.
            let type =
                ["jpeg": "image/jpeg", "png": "image/png", "webp": "image/webp", "heic": "image/heic"][photo.type] ?? "application/octet-stream"
            return Response(
                status: .ok, headers: [.contentType: type, .cacheControl: "private, max-age=3600"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: photo.photo)))
        }
        // One-button actions on a recipe: each answers with where to go next.
        let actions: [(String, @Sendable (String, String, ServiceClient<Catalog>) async throws -> String)] = [
            ("favorite", Self.stayingOnTheRecipe(CatalogAPI.favorite)),
            ("unfavorite", Self.stayingOnTheRecipe(CatalogAPI.unfavorite)),
            ("householdFavorite", Self.stayingOnTheRecipe(CatalogAPI.favoriteForHousehold)),
            ("householdUnfavorite", Self.stayingOnTheRecipe(CatalogAPI.unfavoriteForHousehold)),
            ("share", Self.stayingOnTheRecipe(CatalogAPI.share)),
            (
                "save",
                { id, token, catalog in
                    let saved = try await catalog.call(CatalogAPI.saveCommunity, RecipeID(id: id), session: token)
                    return "/recipes/\(Views.urlQueryValue(saved.id))"
                }
            ),
            (
                "delete",
                { id, token, catalog in
                    try await catalog.call(CatalogAPI.deleteRecipe, RecipeID(id: id), session: token)
                    return "/recipes?show=mine"
                }
            ),
        ]
        for (action, perform) in actions {
            router.post("/recipes/:id/\(action)") { _, context in
                let session = try context.signedIn()
                let next = try await perform(try context.parameters.require("id"), session.token, app.backend.catalog)
                return Views.seeOther(next)
            }
        }
        router.get("/recipes/:id/edit") { _, context in
            let session = try context.signedIn()
            let id = try context.parameters.require("id")
            let recipe = try await app.backend.catalog.call(CatalogAPI.getRecipe, RecipeLookup(id: id), session: session.token)
            return formPage(
                context, draft: Self.echo(recipe), action: "/recipes/\(Views.urlQueryValue(id))/edit", title: "Edit \(recipe.name)",
                submitLabel: "Save changes", editing: true)
        }
        router.post("/recipes/:id/edit") { _, context in
            let session = try context.signedIn()
            let id = try context.parameters.require("id")
            let form = context.form
            return try await app.submit {
                let current = try await app.backend.catalog.call(CatalogAPI.getRecipe, RecipeLookup(id: id), session: session.token)
                let changes = try await changes(from: form, current: current, token: session.token)
                _ = try await app.backend.catalog.call(CatalogAPI.editRecipe, RecipeEdit(id: id, changes: changes), session: session.token)
                return Views.seeOther("/recipes/\(Views.urlQueryValue(id))")
            } orShow: { error in
                formPage(
                    context, draft: Self.echo(form), action: "/recipes/\(Views.urlQueryValue(id))/edit", title: "Edit recipe",
                    submitLabel: "Save changes", editing: true, error: error)
            }
        }
    }

    /// An action that calls `method` on the recipe and comes back to its page.
    static func stayingOnTheRecipe<Response>(
        _ method: Method<Catalog, RecipeID, Response>
    ) -> @Sendable (String, String, ServiceClient<Catalog>) async throws -> String {
        { id, token, catalog in
            _ = try await catalog.call(method, RecipeID(id: id), session: token)
            return "/recipes/\(Views.urlQueryValue(id))"
        }
    }

    // MARK: Pages

    private func listPage(_ request: Request, _ context: WebContext) async throws -> Response {
        let session = try context.signedIn()
        let query = request.uri.queryParameters
        let show = query.get("show") ?? "search"
        let page = max(1, min(Int(query.get("page") ?? "1") ?? 1, 1000))
        var data: [String: Any] = ["tab_\(["favorites", "household", "mine", "community"].contains(show) ? show : "search")": true]
        let summaries: [RecipeSummary]
        var more: String?
        switch show {
        case "favorites":
            summaries = try await app.backend.catalog.call(CatalogAPI.favorites, Empty(), session: session.token).recipes
        case "household":
            summaries = try await app.backend.catalog.call(CatalogAPI.householdFavorites, Empty(), session: session.token).recipes
        case "mine":
            summaries = try await app.backend.catalog.call(CatalogAPI.myRecipes, Empty(), session: session.token).recipes
        case "community":
            let found = try await app.backend.catalog.call(
                CatalogAPI.community, RecipeSearch(query: query.get("q"), page: page, pageSize: Self.pageSize), session: session.token)
            summaries = found.recipes.map(\.recipe)
            if page * Self.pageSize < found.total { more = "/recipes?show=community&page=\(page + 1)" }
        default:
            let submitted = query.get("filters") != nil
            let names = ["diets", "allergens", "dislikes", "equipment", "patience"]
            let on = Dictionary(uniqueKeysWithValues: names.map { ($0, !submitted || query.get($0) != nil) })
            let forHousehold = !submitted || query.get("household") != nil
            let text = query.get("q").map { String($0.prefix(200)) }.flatMap { $0.isEmpty ? nil : $0 }
            let dish = query.get("dish").flatMap(DishType.init(rawValue:))
            let usesPantry = submitted && query.get("pantry") != nil
            var search = RecipeSearch(
                query: text, dishType: dish, useSavedProfile: true,
                switches: FilterSwitches(
                    diets: on["diets"], allergens: on["allergens"], dislikes: on["dislikes"], equipment: on["equipment"], patience: on["patience"]),
                page: page, pageSize: Self.pageSize, forHousehold: forHousehold)
            if usesPantry {
                let pantry = try await app.backend.groceries.call(PantryAPI.get, Empty(), session: session.token)
                search.onHand = pantry.items.map(OnHand.init)
                if pantry.items.isEmpty { data["pantryEmpty"] = true }
            }
            let found = try await app.backend.catalog.call(CatalogAPI.searchRecipes, search, session: session.token)
            summaries = found.recipes
            data["household"] = forHousehold
            data["pantry"] = usesPantry
            if let restrictions = found.household, !restrictions.isEmpty {
                data["householdText"] = restrictions.map(\.summary).joined(separator: ", ")
            }
            data["query"] = text ?? ""
            data["dishTypes"] = DishType.allCases.map { ["value": $0.rawValue, "selected": $0 == dish] }
            let labels = ["diets": "diets", "allergens": "allergens", "dislikes": "dislikes", "equipment": "equipment", "patience": "patience"]
            data["switches"] = names.map { ["name": $0, "label": labels[$0]!, "on": on[$0]!] }
            data["countText"] = "\(found.total)\(found.totalIsExact ? "" : "+") recipe\(found.total == 1 ? "" : "s") found"
            if page * Self.pageSize < found.total {
                var items = ["filters=1", "page=\(page + 1)"]
                if let text { items.append("q=\(Views.urlQueryValue(text))") }
                if let dish { items.append("dish=\(Views.urlQueryValue(dish.rawValue))") }
                items += names.filter { on[$0]! }.map { "\($0)=1" }
                if forHousehold { items.append("household=1") }
                if usesPantry { items.append("pantry=1") }
                more = "/recipes?" + items.joined(separator: "&")
            }
        }
        if data["countText"] == nil { data["countText"] = summaries.isEmpty ? "No recipes here yet." : "\(summaries.count) recipes" }
        data["recipes"] = summaries.map(Self.card)
        if let more { data["morePage"] = more }
        return app.views.page("recipes", title: "Recipes", section: "recipes", data, context: context)
    }

    static func card(_ recipe: RecipeSummary) -> [String: Any] {
        var values: [String: Any] = [
            "id": recipe.id, "name": recipe.name, "minutes": recipe.totalMinutes, "kcal": Show.number(recipe.kcalPerServing),
            "cost": Show.euros(recipe.costPerServing), "diets": recipe.diets.map(\.rawValue), "isFavorite": recipe.isFavorite,
        ]
        if !recipe.summary.isEmpty { values["summary"] = recipe.summary }
        if let uses = recipe.onHand, !uses.isEmpty { values["uses"] = uses.map(\.summary).joined(separator: ", ") }
        return values
    }

    private func recipePage(_ context: WebContext) async throws -> Response {
        let session = try context.signedIn()
        let id = try context.parameters.require("id")
        async let household = app.backend.planner.call(PlannerAPI.household, RecipeID(id: id), session: session.token)
        async let profile = app.backend.planner.call(PlannerAPI.getProfile, Empty(), session: session.token)
        async let week = app.backend.planner.call(PlannerAPI.getPlan, Empty(), session: session.token)
        async let shared = app.backend.catalog.call(CatalogAPI.householdFavorites, Empty(), session: session.token)
        let people = try await household.people
        let recipe = try await app.backend.catalog.call(
            CatalogAPI.getRecipe, RecipeLookup(id: id, people: min(max(people, 1), 50), withIngredients: true), session: session.token)
        let units = try await profile.units
        let days = try await week.days.map { day in ["date": day.date.description, "label": "\(Show.weekday(day.weekday)) \(day.date)"] }
        let mine = recipe.owner == session.user
        let densities = Dictionary((recipe.ingredientFacts ?? []).compactMap { fact in fact.gramsPerMl.map { (fact.id, $0) } }) { a, _ in a }
        var shown: [String: Any] = [
            "id": recipe.id, "name": recipe.name, "summary": recipe.summary, "minutes": recipe.prepMinutes + recipe.cookMinutes,
            "people": recipe.people, "cost": Show.euros(recipe.cost), "costPerServing": Show.euros(recipe.costPerServing),
            "diets": recipe.diets.map(\.rawValue), "allergens": recipe.allergens.map(\.rawValue), "isFavorite": recipe.isFavorite,
            "isHouseholdFavorite": try await shared.recipes.contains { $0.id == recipe.id },
            "photo": recipe.photo != nil,
            "editable": mine, "deletable": mine, "shareable": mine && !recipe.shared && recipe.origin == .personal,
            "saveable": !mine && recipe.shared && recipe.origin != .builtIn,
            "ingredients": recipe.ingredients.map { line in
                [
                    "amount": Self.amount(line.quantity, line.unit, units: units, gramsPerMl: densities[line.ingredient]), "name": line.name,
                    "cost": Show.euros(line.cost),
                ]
            },
            "steps": recipe.steps.map { step -> [String: Any] in
                var values: [String: Any] = ["description": step.description]
                if let minutes = step.minutes, minutes > 0 { values["minutes"] = minutes }
                return values
            },
            "nutrition": Self.nutritionRows(recipe.nutritionPerServing),
            "days": days,
        ]
        if let notes = recipe.notes, !notes.isEmpty { shown["notes"] = notes }
        if !recipe.unpriced.isEmpty { shown["unpriced"] = recipe.unpriced.joined(separator: ", ") }
        return app.views.page("recipe", title: recipe.name, section: "recipes", ["recipe": shown], context: context)
    }

    static func amount(_ quantity: Double, _ unit: MeasureUnit, units: UnitSystem, gramsPerMl: Double?) -> String {
        var shown = DisplayQuantity(quantity, unit, in: units, gramsPerMl: gramsPerMl)
        if shown.unit.isEmpty { shown.unit = quantity == 1 ? "piece" : "pieces" }
        return shown.description
    }

    static func nutritionRows(_ nutrition: Nutrition) -> [[String: String]] {
        [
            ["label": "Energy", "value": "\(Show.number(nutrition.kcal)) kcal"],
            ["label": "Carbohydrates", "value": "\(Show.number(nutrition.carbohydrates, decimals: 1)) g"],
            ["label": "of which sugar", "value": "\(Show.number(nutrition.sugar, decimals: 1)) g"],
            ["label": "Protein", "value": "\(Show.number(nutrition.protein, decimals: 1)) g"],
            ["label": "Fat", "value": "\(Show.number(nutrition.fat, decimals: 1)) g"],
            ["label": "Fibre", "value": "\(Show.number(nutrition.fibre, decimals: 1)) g"],
            ["label": "Salt", "value": "\(Show.number(nutrition.salt, decimals: 2)) g"],
        ]
    }

    private func formPage(
        _ context: WebContext, draft: [String: Any], action: String, title: String, submitLabel: String, editing: Bool = false,
        error: WebError? = nil
    ) -> Response {
        let dish = draft["dishType"] as? String ?? DishType.mainCourse.rawValue
        return app.views.page(
            "recipe_form", title: title, section: "recipes",
            [
                "draft": draft, "action": action, "submitLabel": submitLabel, "editing": editing,
                "dishTypes": DishType.allCases.map { ["value": $0.rawValue, "selected": $0.rawValue == dish] },
            ], context: context, status: error?.status ?? .ok, error: error)
    }

    // MARK: Forms to requests

    /// The form as it was sent, to show it again with the refusal.
    static func echo(_ form: Form) -> [String: Any] {
        [
            "name": form.raw("name") ?? "", "summary": form.raw("summary") ?? "", "servings": form.raw("servings") ?? "",
            "prep": form.raw("prepMinutes") ?? "", "cook": form.raw("cookMinutes") ?? "", "ingredients": form.raw("ingredients") ?? "",
            "steps": form.raw("steps") ?? "", "dishType": form.raw("dishType") ?? "",
        ]
    }

    static func echo(_ recipe: RecipeDetail) -> [String: Any] {
        [
            "name": recipe.name, "summary": recipe.summary, "servings": String(recipe.servings), "prep": String(recipe.prepMinutes),
            "cook": String(recipe.cookMinutes),
            "ingredients": recipe.ingredients.map(ingredientLine).joined(separator: "\n"),
            "steps": recipe.steps.map(\.description).joined(separator: "\n"), "dishType": recipe.dishTypes.first?.rawValue ?? "",
        ]
    }

    private static func lines(_ text: String?) -> [String] {
        (text ?? "").split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// A new recipe as a schema.org document: the catalog's importer reads its ingredient lines
    /// (amounts, units, names and synonyms) exactly as it reads a recipe from a website, and
    /// writes nothing when a line matches no ingredient.
    static func document(from form: Form) throws(WebError) -> String {
        let name = try form.required("name", label: "Name")
        let servings = try form.integer("servings", label: "Servings", in: 1...50) ?? 4
        let ingredients = lines(form.raw("ingredients"))
        guard !ingredients.isEmpty else { throw .field("ingredients", "Write at least one ingredient") }
        let steps = lines(form.raw("steps"))
        guard !steps.isEmpty else { throw .field("steps", "Write at least one step") }
        var images: [String] = []
        if let photo = form.file("photo") { images.append(try Self.dataURL(photo)) }
        let recipe = SchemaRecipe(
            name: name, description: form.text("summary"), imageURLs: images, servings: servings,
            prepMinutes: try form.integer("prepMinutes", label: "Preparation", in: 0...1440),
            cookMinutes: try form.integer("cookMinutes", label: "Cooking", in: 0...1440), ingredients: ingredients,
            steps: steps.map { SchemaStep(text: $0) }, categories: form.text("dishType").map { [$0] } ?? [])
        return String(decoding: recipe.jsonLD(), as: UTF8.self)
    }

    /// What an edit changes: only the fields that differ from the recipe as it is, so a step
    /// left alone keeps its minutes and the ingredients it names. Ingredient lines are read as
    /// the form shows them, "quantity unit ingredient" (200 g Red lentils), the ingredient by
    /// its name or id in the catalog.
    func changes(from form: Form, current recipe: RecipeDetail, token: String) async throws -> RecipeDraft {
        var draft = RecipeDraft()
        let name = try form.required("name", label: "Name")
        if name != recipe.name { draft.name = name }
        // A recipe keeps a summary once it has one: an empty field leaves it as it is.
        if let summary = form.text("summary"), summary != recipe.summary { draft.summary = summary }
        if let servings = try form.integer("servings", label: "Servings", in: 1...50), servings != recipe.servings { draft.servings = servings }
        if let prep = try form.integer("prepMinutes", label: "Preparation", in: 0...1440), prep != recipe.prepMinutes { draft.prepMinutes = prep }
        if let cook = try form.integer("cookMinutes", label: "Cooking", in: 0...1440), cook != recipe.cookMinutes { draft.cookMinutes = cook }
        let steps = Self.lines(form.raw("steps"))
        guard !steps.isEmpty else { throw WebError.field("steps", "Write at least one step") }
        if steps != recipe.steps.map(\.description) {
            let kept = Dictionary(recipe.steps.map { ($0.description, $0) }) { first, _ in first }
            draft.steps = steps.map { kept[$0] ?? RecipeStep(description: $0, type: .preparation) }
        }
        let lines = Self.lines(form.raw("ingredients"))
        guard !lines.isEmpty else { throw WebError.field("ingredients", "Write at least one ingredient") }
        if lines != recipe.ingredients.map(Self.ingredientLine) {
            let kept = Dictionary(recipe.ingredients.map { (Self.ingredientLine($0), $0) }) { first, _ in first }
            var ingredients: [RecipeIngredient] = []
            for (index, line) in lines.enumerated() {
                if let same = kept[line] {
                    ingredients.append(
                        RecipeIngredient(
                            ingredient: same.ingredient, quantity: same.quantity, unit: same.unit, use: same.use, eatenShare: same.eatenShare))
                } else {
                    ingredients.append(try await ingredient(line, number: index + 1, token: token))
                }
            }
            draft.ingredients = ingredients
        }
        if let dish = form.text("dishType") {
            guard let type = DishType(rawValue: dish) else { throw WebError.field("dishType", "Choose a dish from the list") }
            if recipe.dishTypes.first != type { draft.dishTypes = [type] + recipe.dishTypes.filter { $0 != type } }
        }
        if let photo = form.file("photo") {
            _ = try Self.imageType(photo)
            draft.photo = Data(photo.bytes)
        }
        return draft
    }

    /// An ingredient line as the edit form shows it.
    static func ingredientLine(_ line: RecipeIngredientDetail) -> String {
        "\(line.quantity.formatted(decimals: 2)) \(line.unit.rawValue) \(line.name)"
    }

    /// "200 g Red lentils" as a recipe's ingredient: the catalog's ingredient whose id or name
    /// (or, when only one matches, synonym) it names.
    private func ingredient(_ line: String, number: Int, token: String) async throws -> RecipeIngredient {
        let field = "ingredients"
        let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
        let units = MeasureUnit.allCases.map(\.rawValue).joined(separator: ", ")
        guard parts.count == 3, let quantity = Double(parts[0].replacingOccurrences(of: ",", with: ".")), quantity.isFinite, quantity > 0,
            quantity <= 100_000
        else {
            throw WebError.field(field, "Line \(number), “\(line)”: write a quantity, a unit (\(units)) and the ingredient, like “200 g red lentils”")
        }
        let unitText = parts[1].lowercased() == "pieces" ? "piece" : parts[1].lowercased()
        guard let unit = MeasureUnit(rawValue: unitText) else {
            throw WebError.field(field, "Line \(number), “\(line)”: \(parts[1]) is not a unit Sous knows (\(units))")
        }
        let wanted = parts[2].trimmingCharacters(in: .whitespaces)
        let found = try await app.backend.catalog.call(CatalogAPI.searchIngredients, IngredientSearch(query: wanted, limit: 10), session: token)
        let exact = found.ingredients.first { $0.id == wanted.lowercased() || $0.name.lowercased() == wanted.lowercased() }
        guard let match = exact ?? (found.ingredients.count == 1 ? found.ingredients.first : nil) else {
            let hint = found.ingredients.prefix(3).map(\.name).joined(separator: ", ")
            throw WebError.field(field, "Line \(number): no ingredient is called “\(wanted)”" + (hint.isEmpty ? "" : " (did you mean \(hint)?)"))
        }
        return RecipeIngredient(ingredient: match.id, quantity: quantity, unit: unit)
    }

    /// The image type judged from the bytes (not from the name or the browser's word).
    static func imageType(_ file: Form.File) throws(WebError) -> String {
        guard let type = sniffedImageType(file.bytes) else {
            throw .field(file.field, "\(file.filename.isEmpty ? "The file" : file.filename) is not a JPEG, PNG or WebP image")
        }
        return type
    }

    static func sniffedImageType(_ bytes: [UInt8]) -> String? {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) { return "image/webp" }
        return nil
    }

    private static func dataURL(_ file: Form.File) throws(WebError) -> String {
        "data:\(try imageType(file));base64,\(Data(file.bytes).base64EncodedString())"
    }
}
