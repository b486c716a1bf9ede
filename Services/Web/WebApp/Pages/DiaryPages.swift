import Foundation
import Hummingbird
import SousCharts
import SousClient
import SousSchema
import SousWire

/// The food diary: a day against the goals, adding food by search, barcode, saved foods or
/// from yesterday, water and coffee with one tap, goals and presets, the chart of the last
/// two weeks and the weekly averages.
struct DiaryPages {
    let app: WebApp

    func addRoutes(to router: Router<WebContext>) {
        router.get("/diary") { request, context in
            let query = request.uri.queryParameters
            return try await diaryPage(context, date: query.get("date").flatMap(LocalDate.init), search: query.get("q"))
        }
        router.post("/diary/add") { _, context in
            try await act(context) { form, token, date in
                let meal = try Self.meal(form)
                guard let grams = try form.number("grams", label: "Grams", in: 0.1...5000) else {
                    throw WebError.field("grams", "Grams are required")
                }
                var entry = DiaryAdd(date: date, meal: meal, grams: grams)
                if let ingredient = form.text("ingredient") {
                    entry.ingredient = ingredient
                    // "2" of "medium (7\" long)": that many of the food's household measure.
                    if let measure = form.text("measure"), measure != "g" {
                        let found = try await app.backend.catalog.call(CatalogAPI.getIngredients, IngredientIDs(ids: [ingredient]), session: token)
                        let portions = found.ingredients.first?.portions ?? []
                        guard let index = Int(measure), portions.indices.contains(index) else {
                            throw WebError.field("measure", "Choose grams or one of the food's measures")
                        }
                        entry.grams = grams * portions[index].grams / portions[index].amount
                    }
                } else if let barcode = form.text("barcode") {
                    guard barcode.count <= 14, barcode.allSatisfy(\.isASCII), barcode.allSatisfy(\.isNumber) else {
                        throw WebError.field("barcode", "A barcode is 8 to 14 digits")
                    }
                    entry.barcode = barcode
                } else {
                    throw WebError.field("ingredient", "Choose a food or type a barcode")
                }
                _ = try await app.backend.tracker.call(TrackerAPI.addEntry, entry, session: token)
            }
        }
        router.post("/diary/again") { _, context in
            try await act(context) { form, token, date in
                guard let index = try form.integer("index", label: "Food", in: 0...10_000) else { throw WebError.field("index", "Choose a food") }
                let yesterday = try await app.backend.tracker.call(TrackerAPI.yesterday, DayRequest(date: date), session: token)
                guard index < yesterday.foods.count else { throw WebError.field("index", "That food is no longer in yesterday's diary") }
                let food = yesterday.foods[index]
                _ = try await app.backend.tracker.call(
                    TrackerAPI.addEntry, DiaryAdd(date: date, meal: food.meal, grams: food.grams, food: food.food, per100g: food.per100g),
                    session: token)
            }
        }
        router.post("/diary/saved") { _, context in
            try await act(context) { form, token, date in
                guard let id = try form.integer("id", label: "Saved food", in: 1...Int(Int32.max)) else {
                    throw WebError.field("id", "Choose a food")
                }
                _ = try await app.backend.tracker.call(TrackerAPI.logFood, SavedFoodLog(id: Int64(id), date: date), session: token)
            }
        }
        router.post("/diary/delete") { _, context in
            try await act(context) { form, token, _ in
                guard let id = try form.integer("id", label: "Entry", in: 1...Int(Int32.max)) else { throw WebError.field("id", "Choose an entry") }
                _ = try await app.backend.tracker.call(TrackerAPI.deleteEntry, EntryID(id: Int64(id)), session: token)
            }
        }
        router.post("/diary/drink") { _, context in
            try await act(context) { form, token, date in
                guard let drink = form.text("drink").flatMap(Drink.init(rawValue:)) else { throw WebError.field("drink", "Choose water or coffee") }
                guard let delta = try form.integer("delta", label: "Change", in: -20...20), delta != 0 else {
                    throw WebError.field("delta", "Add or take away a cup")
                }
                _ = try await app.backend.tracker.call(TrackerAPI.changeDrink, DrinkChange(date: date, drink: drink, delta: delta), session: token)
            }
        }
        router.get("/goals") { _, context in try await goalsPage(context) }
        router.post("/goals") { _, context in
            let session = try context.signedIn()
            let form = context.form
            return try await app.submit {
                var change = GoalsChange()
                if let preset = form.text("preset") {
                    change.preset = preset
                } else {
                    change.goals = Goals(
                        kcal: try form.number("kcal", label: "Energy", in: 500...10_000) ?? 2000,
                        carbohydrates: try form.number("carbohydrates", label: "Carbohydrates", in: 0...2000) ?? 0,
                        protein: try form.number("protein", label: "Protein", in: 0...1000) ?? 0,
                        fat: try form.number("fat", label: "Fat", in: 0...1000) ?? 0)
                }
                _ = try await app.backend.tracker.call(TrackerAPI.setGoals, change, session: session.token)
                return Views.seeOther("/diary")
            } orShow: { error in
                try await goalsPage(context, error: error)
            }
        }
    }

    private func act(_ context: WebContext, _ action: (Form, String, LocalDate?) async throws -> Void) async throws -> Response {
        let session = try context.signedIn()
        let date = context.form.text("date").flatMap(LocalDate.init)
        return try await app.submit {
            try await action(context.form, session.token, date)
            return Views.seeOther("/diary" + (date.map { "?date=\($0)" } ?? ""))
        } orShow: { error in
            try await diaryPage(context, date: date, search: nil, error: error)
        }
    }

    static func meal(_ form: Form) throws(WebError) -> Meal {
        guard let meal = form.text("meal").flatMap(Meal.init(rawValue:)) else { throw .field("meal", "Choose breakfast, lunch, dinner or a snack") }
        return meal
    }

    private func diaryPage(_ context: WebContext, date: LocalDate?, search: String?, error: WebError? = nil) async throws -> Response {
        let session = try context.signedIn()
        let token = session.token
        let summary = try await app.backend.tracker.call(TrackerAPI.summary, DayRequest(date: date), session: token)
        let day = summary.day.date
        async let yesterday = app.backend.tracker.call(TrackerAPI.yesterday, DayRequest(date: day), session: token)
        async let saved = app.backend.tracker.call(TrackerAPI.listFoods, SavedFoodFilter(), session: token)
        let range = DateRange(from: day.adding(days: -13), to: day)
        async let history = app.backend.tracker.call(TrackerAPI.history, range, session: token)
        async let analysis = app.backend.tracker.call(TrackerAPI.analysis, DateRange(from: day.adding(days: -27), to: day), session: token)
        let query = search.map { String($0.trimmingCharacters(in: .whitespaces).prefix(100)) }.flatMap { $0.isEmpty ? nil : $0 }
        var results: [[String: Any]] = []
        if let query {
            let found = try await app.backend.catalog.call(CatalogAPI.searchIngredients, IngredientSearch(query: query, limit: 15), session: token)
            results = found.ingredients.map { ingredient -> [String: Any] in
                var result: [String: Any] = [
                    "kind": "ingredient", "value": ingredient.id, "name": ingredient.name, "per100": Show.number(ingredient.nutrition.kcal),
                    "grams": ingredient.gramsPerPiece.map { Show.number($0) } ?? "100",
                ]
                // The food's household measures, to log "1 medium" rather than weigh it.
                let measures = ingredient.portions.prefix(12).enumerated().map { index, portion in
                    ["index": "\(index)", "label": "× \(Show.number(portion.amount)) \(portion.name) (\(Show.number(portion.grams)) g)"]
                }
                result["portions"] = measures
                return result
            }
        }
        let today = LocalDate(Date(), in: TimeZone(identifier: summary.day.timeZone ?? "UTC") ?? .gmt)
        let suggestedMeal = Self.mealNow(timeZone: summary.day.timeZone)
        let goals = summary.goals, totals = summary.totals
        func row(_ label: String, _ eaten: Double, _ goal: Double, _ unit: String) -> [String: String] {
            ["label": "\(label) (\(unit))", "eaten": Show.number(eaten), "goal": Show.number(goal), "left": Show.number(max(goal - eaten, 0))]
        }
        let weeks = try await analysis
        var data: [String: Any] = [
            "date": day.description, "previousDay": day.adding(days: -1).description,
            "macros": [
                row("Energy", totals.kcal, goals.kcal, "kcal"), row("Carbohydrates", totals.carbohydrates, goals.carbohydrates, "g"),
                row("Protein", totals.protein, goals.protein, "g"), row("Fat", totals.fat, goals.fat, "g"),
            ],
            "drinks": [
                ["drink": "water", "label": "Water", "count": summary.water], ["drink": "coffee", "label": "Coffee", "count": summary.coffee],
            ],
            "meals": summary.meals.filter { !$0.entries.isEmpty }.map { group -> [String: Any] in
                [
                    "meal": group.meal.rawValue.capitalized, "kcal": Show.number(group.totals.kcal),
                    "entries": group.entries.map { entry -> [String: Any] in
                        [
                            "id": entry.id, "food": entry.food, "grams": Show.number(entry.grams),
                            "kcal": Show.number(entry.per100g.kcal * entry.grams / 100),
                        ]
                    },
                ]
            },
            "query": query ?? "", "searched": query != nil, "results": results,
            "mealChoices": Meal.allCases.map { ["value": $0.rawValue, "selected": $0 == suggestedMeal] },
            "yesterday": try await yesterday.foods.enumerated().map { index, food -> [String: Any] in
                ["index": index, "food": food.food, "grams": Show.number(food.grams), "meal": food.meal.rawValue]
            },
            "saved": try await saved.foods.map { ["id": $0.id, "name": $0.name, "grams": Show.number($0.grams)] as [String: Any] },
            // Drawn at a phone's width, so its labels stay readable there; it scales up on wider screens.
            "chart": Views.inlineSVG(DiaryChart.svg(try await history, range: range, only: nil, width: 400)),
            "weeks": weeks.weeks.map { week -> [String: Any] in
                [
                    "start": week.weekStart.description, "days": week.daysLogged, "kcal": Show.number(week.average.kcal),
                    "protein": Show.number(week.average.protein),
                ]
            },
            "withinGoal": "\(weeks.daysWithinKcalGoal) of \(weeks.daysLogged) logged days within your energy goal.",
        ]
        if day < today { data["nextDay"] = day.adding(days: 1).description }
        return app.views.page(
            "diary", title: day == today ? "Today" : "Diary, \(day)", section: "diary", data, context: context, status: error?.status ?? .ok,
            error: error)
    }

    /// The meal a person is most likely logging now, by the clock in their zone.
    static func mealNow(timeZone: String?) -> Meal {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone.flatMap(TimeZone.init(identifier:)) ?? .gmt
        switch calendar.component(.hour, from: Date()) {
        case 4..<11: return .breakfast
        case 11..<15: return .lunch
        case 17..<23: return .dinner
        default: return .snack
        }
    }

    private func goalsPage(_ context: WebContext, error: WebError? = nil) async throws -> Response {
        let session = try context.signedIn()
        async let presets = app.backend.tracker.call(TrackerAPI.presets, Empty(), session: session.token)
        let goals = try await app.backend.tracker.call(TrackerAPI.goals, DayRequest(), session: session.token).goals
        let data: [String: Any] = [
            "goals": [
                "kcal": Show.number(goals.kcal), "carbohydrates": Show.number(goals.carbohydrates), "protein": Show.number(goals.protein),
                "fat": Show.number(goals.fat),
            ],
            "presets": try await presets.presets.map { ["name": $0.name, "explanation": $0.explanation] },
        ]
        return app.views.page("goals", title: "Goals", section: "diary", data, context: context, status: error?.status ?? .ok, error: error)
    }
}
