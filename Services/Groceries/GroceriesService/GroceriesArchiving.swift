import Foundation
import GRDB
import SousRuntime
import SousSchema
import SousUnits
import SousWire

/// The groceries' part of a household's archive: the list (recipes with the lines they were listed
/// with, items added by hand, check marks) and past orders.
extension GroceriesStore {
    func archive(household: String) throws(ServiceError) -> GroceriesArchive {
        try storage {
            try database.read { session in
                let listed = try session.fetchAll(
                    ListRecipeRecord.self, #"SELECT * FROM list_recipe WHERE household = ? ORDER BY position"#, [household])
                let recipes = try listed.map { record in
                    let lines = try session.fetchAll(
                        RecipeShareRecord.self, #"SELECT * FROM recipe_share WHERE household = ? AND recipe = ? ORDER BY position"#,
                        [household, record.recipe.recipe])
                    let recipe = record.recipe
                    return ArchivedListRecipe(
                        recipe: recipe.recipe, name: recipe.name, multiplier: recipe.multiplier, people: recipe.people, servings: recipe.servings,
                        addedAt: recipe.addedAt,
                        lines: lines.map { ArchivedListLine(ingredient: $0.ingredient, quantity: $0.quantity, unit: $0.unit, excluded: $0.excluded) })
                }
                let checked = Set(try session.values(String.self, #"SELECT line FROM checked_line WHERE household = ?"#, [household]))
                let items = try session.rows(#"SELECT * FROM manual_item WHERE household = ? ORDER BY id"#, [household]).map { row in
                    let id: Int64 = row["id"]
                    return ArchivedListItem(
                        ingredient: row["ingredient"], quantity: row["quantity"], unit: (row["unit"] as String?).flatMap(MeasureUnit.init(rawValue:)),
                        text: row["text"], count: row["count"], addedAt: Date(timeIntervalSince1970: row["added_at"]),
                        checked: checked.contains(GroceryLineID.item(id).description))
                }
                let orders = try Self.orders(household: household, newestFirst: nil, session)
                return GroceriesArchive(
                    recipes: recipes, items: items,
                    checkedIngredients: checked.filter {
                        if case .ingredient = GroceryLineID($0) { true } else { false }
                    }.sorted(),
                    orders: orders, pantry: try Self.pantry(household: household, session))
            }
        }
    }

    /// Writes a checked archive for `household` in one transaction (nothing when `dryRun`), with the
    /// catalog's facts of the ingredients it uses; conflict when the household has a list or orders.
    func restore(_ archive: GroceriesArchive, facts: [ListIngredientFacts], household: String, dryRun: Bool) throws(ServiceError) -> ArchiveImported {
        let pantry = archive.pantry ?? Pantry(items: [], staples: [], restockOnCheckout: false)
        let counts = [
            "recipes": archive.recipes.count, "items": archive.items.count, "orders": archive.orders.count, "pantry": pantry.items.count,
            "staples": pantry.staples.count,
        ]
        return try storage {
            try database.write { session in
                try session.requireNoRows(
                    of: household, in: ["list_recipe", "manual_item", "grocery_order", "pantry_item", "pantry_staple"], column: "household",
                    what: "a grocery list, orders or a pantry")
                guard !dryRun else { return ArchiveImported(counts: counts) }
                try Self.upsert(facts, session)
                for (position, listed) in archive.recipes.enumerated() {
                    try session.insert(
                        ListRecipeRecord(
                            household: household,
                            recipe: ListRecipe(
                                recipe: listed.recipe, name: listed.name, multiplier: listed.multiplier, people: listed.people,
                                servings: listed.servings, excluded: [], addedAt: listed.addedAt),
                            position: Int64(position + 1)))
                    for (position, line) in listed.lines.enumerated() {
                        try session.insert(
                            RecipeShareRecord(
                                household: household, recipe: listed.recipe, position: position, ingredient: line.ingredient, quantity: line.quantity,
                                unit: line.unit, excluded: line.excluded))
                    }
                }
                var checked = archive.checkedIngredients
                for item in archive.items {
                    guard
                        let id = try session.value(
                            Int64.self,
                            #"INSERT INTO manual_item (household, ingredient, quantity, unit, text, count, added_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id"#,
                            [
                                household, item.ingredient, item.quantity, item.unit?.rawValue, item.text, item.count,
                                item.addedAt.timeIntervalSince1970,
                            ])
                    else { throw ServiceError.internal("an imported item got no id") }
                    if item.checked, item.ingredient == nil { checked.append(GroceryLineID.item(id).description) }
                }
                for line in Set(checked) { try session.execute(#"INSERT INTO checked_line (household, line) VALUES (?, ?)"#, [household, line]) }
                for order in archive.orders {
                    var record = OrderRecord(household: household, order: order)
                    try record.insert(session)
                    for (position, line) in order.lines.enumerated() {
                        try session.insert(OrderLineRecord(order: record.order.id, position: position, line: line))
                    }
                }
                for item in pantry.items {
                    try session.execute(
                        #"INSERT INTO pantry_item (household, ingredient, quantity, unit, best_before, location, added_at) VALUES (?, ?, ?, ?, ?, ?, ?)"#,
                        [
                            household, item.ingredient, item.quantity, item.unit.rawValue, item.bestBefore?.description, item.location,
                            item.addedAt.timeIntervalSince1970,
                        ])
                }
                for staple in pantry.staples {
                    try session.execute(
                        #"INSERT INTO pantry_staple (household, ingredient, out_of_stock) VALUES (?, ?, ?)"#,
                        [household, staple.ingredient, staple.out])
                }
                if pantry.restockOnCheckout {
                    try session.execute(#"INSERT INTO pantry_setting (household, restock_on_checkout) VALUES (?, ?)"#, [household, true])
                }
                _ = try Self.nextVersion(household: household, session)
                return ArchiveImported(counts: counts)
            }
        }
    }
}

extension GroceriesHandlers {
    func exportArchive(_ request: Empty, user: String, context: RequestContext) throws -> GroceriesArchive {
        try store.archive(household: try context.requireHousehold())
    }

    /// Checks every recipe, item, check mark and order as the list's methods would, reads the
    /// facts of every ingredient from the catalog (notFound naming the first unknown one), then
    /// writes it all.
    func importArchive(_ request: GroceriesArchiveImport, user: String, context: RequestContext) async throws -> ArchiveImported {
        let archive = request.archive
        try GroceriesArchiveCheck.check(archive)
        let pantry = archive.pantry ?? Pantry(items: [], staples: [], restockOnCheckout: false)
        let holdsAnything =
            !archive.recipes.isEmpty || !archive.items.isEmpty || !archive.orders.isEmpty || !pantry.items.isEmpty || !pantry.staples.isEmpty
        if holdsAnything, try await peers.householdMembers(user: user, for: context) > 1 {
            throw ServiceError.conflict(
                "your household is shared: an archive's list and orders are imported only into a household nobody else is in (household.leave first)",
                field: "archive.recipes")
        }
        var ids: [String] = []
        let named =
            archive.recipes.flatMap { $0.lines.map(\.ingredient) } + archive.items.compactMap(\.ingredient) + pantry.items.map(\.ingredient)
            + pantry.staples.map(\.ingredient)
        for id in named where !ids.contains(id) {
            ids.append(id)
        }
        let ingredients = try await peers.ingredients(ids, notFoundField: "archive", for: context)
        let facts = ingredients.map(ListIngredientFacts.init)
        let measures = Dictionary(uniqueKeysWithValues: ingredients.map { ($0.id, IngredientMeasures($0)) })
        for (index, listed) in archive.recipes.enumerated() {
            for (position, line) in listed.lines.enumerated() where measures[line.ingredient]?.accepts(line.unit) != true {
                throw ServiceError.badRequest(
                    "\(line.ingredient) cannot be measured in \(line.unit.rawValue)", field: "archive.recipes.\(index).lines.\(position).unit")
            }
        }
        for (index, item) in archive.items.enumerated() {
            if let ingredient = item.ingredient, let unit = item.unit, measures[ingredient]?.accepts(unit) != true {
                throw ServiceError.badRequest("\(ingredient) cannot be measured in \(unit.rawValue)", field: "archive.items.\(index).unit")
            }
        }
        for (index, item) in pantry.items.enumerated() where measures[item.ingredient]?.accepts(item.unit) != true {
            throw ServiceError.badRequest(
                "\(item.ingredient) cannot be measured in \(item.unit.rawValue)", field: "archive.pantry.items.\(index).unit")
        }
        return try store.restore(archive, facts: facts, household: try context.requireHousehold(), dryRun: request.dryRun ?? false)
    }
}

/// The checks of a groceries archive that need no other service, with the field under `archive.`.
enum GroceriesArchiveCheck {
    static func check(_ archive: GroceriesArchive) throws(ServiceError) {
        try ArchiveFormat.check(archive.version)
        try GroceriesQuotas.listRecipes.check(current: 0, adding: archive.recipes.count)
        try GroceriesQuotas.manualItems.check(current: 0, adding: archive.items.count)
        var listed: Set<String> = []
        var onList: Set<String> = []
        for (index, recipe) in archive.recipes.enumerated() {
            let field = "archive.recipes.\(index)"
            guard !recipe.recipe.isEmpty, recipe.recipe.count <= 200, listed.insert(recipe.recipe).inserted else {
                throw .badRequest("a listed recipe has an id of 1 to 200 characters, once", field: "\(field).recipe")
            }
            guard !recipe.name.isEmpty, recipe.name.count <= 200 else { throw .badRequest("a name is 1 to 200 characters", field: "\(field).name") }
            guard (1...GroceriesHandlers.maximumMultiplier).contains(recipe.multiplier) else {
                throw .badRequest("multiplier must be 1 to \(GroceriesHandlers.maximumMultiplier)", field: "\(field).multiplier")
            }
            guard (1...50).contains(recipe.people), (1...50).contains(recipe.servings) else {
                throw .badRequest("people and servings are 1 to 50", field: "\(field).people")
            }
            guard !recipe.lines.isEmpty, recipe.lines.count <= 100 else { throw .badRequest("a recipe has 1 to 100 lines", field: "\(field).lines") }
            for (position, line) in recipe.lines.enumerated() {
                try quantity(line.quantity, field: "\(field).lines.\(position).quantity")
                onList.insert(line.ingredient)
            }
        }
        for (index, item) in archive.items.enumerated() {
            let field = "archive.items.\(index)"
            switch (item.ingredient, item.text) {
            case (let ingredient?, nil):
                guard let quantity = item.quantity, item.unit != nil, item.count == nil else {
                    throw .badRequest("an ingredient item has a quantity and a unit, and no count", field: field)
                }
                try self.quantity(quantity, field: "\(field).quantity")
                onList.insert(ingredient)
            case (nil, let text?):
                guard !text.trimmingCharacters(in: .whitespaces).isEmpty, text.count <= 200 else {
                    throw .badRequest("an item's text is 1 to 200 characters", field: "\(field).text")
                }
                guard item.quantity == nil, item.unit == nil, item.count.map({ (1...1000).contains($0) }) ?? true else {
                    throw .badRequest("a text item has at most a count, 1 to 1000", field: "\(field).count")
                }
            default:
                throw .badRequest("an item is an ingredient with a quantity or a text, not both", field: field)
            }
        }
        for (index, ingredient) in archive.checkedIngredients.enumerated() where !onList.contains(ingredient) {
            throw .badRequest("\(ingredient) is checked off but not on the list", field: "archive.checkedIngredients.\(index)")
        }
        if let pantry = archive.pantry {
            try GroceriesQuotas.pantryItems.check(current: 0, adding: pantry.items.count)
            try GroceriesQuotas.staples.check(current: 0, adding: pantry.staples.count)
            for (index, item) in pantry.items.enumerated() {
                let field = "archive.pantry.items.\(index)"
                guard !item.ingredient.isEmpty, item.ingredient.count <= 200 else {
                    throw .badRequest("an ingredient id is 1 to 200 characters", field: "\(field).ingredient")
                }
                guard item.quantity.isFinite, item.quantity > 0, item.quantity <= 100_000 else {
                    throw .badRequest("a quantity is above 0 and at most 100000", field: "\(field).quantity")
                }
                guard !item.location.trimmingCharacters(in: .whitespaces).isEmpty, item.location.count <= 40 else {
                    throw .badRequest("a location is 1 to 40 characters", field: "\(field).location")
                }
                if let date = item.bestBefore, date < LocalDate(year: 2000, month: 1, day: 1)! {
                    throw .badRequest("a best-before date is from 2000-01-01", field: "\(field).bestBefore")
                }
            }
            var staples: Set<String> = []
            for (index, staple) in pantry.staples.enumerated() where !staples.insert(staple.ingredient).inserted || staple.ingredient.isEmpty {
                throw .badRequest("a staple is an ingredient, once", field: "archive.pantry.staples.\(index).ingredient")
            }
        }
        for (index, order) in archive.orders.enumerated() {
            let field = "archive.orders.\(index)"
            guard !order.lines.isEmpty, order.lines.count <= 1_000 else { throw .badRequest("an order has 1 to 1000 lines", field: "\(field).lines") }
            guard order.total.isFinite, order.total >= 0 else { throw .badRequest("an order's total is a price", field: "\(field).total") }
            guard !order.phone.isEmpty, order.phone.count <= 40 else { throw .badRequest("an order has a phone number", field: "\(field).phone") }
            for (position, line) in order.lines.enumerated() {
                guard !line.name.isEmpty, line.name.count <= 200 else {
                    throw .badRequest("a line's name is 1 to 200 characters", field: "\(field).lines.\(position).name")
                }
                if let value = line.quantity { try quantity(value, field: "\(field).lines.\(position).quantity") }
                if let price = line.price, !(price.isFinite && price >= 0) {
                    throw .badRequest("a price is not negative", field: "\(field).lines.\(position).price")
                }
            }
        }
    }

    /// Positive and finite; the ceiling is far above what a list can hold (a recipe line of
    /// 100 000 for 50 people from 1 serving, bought 100 times), only to keep the numbers sane.
    static func quantity(_ value: Double, field: String) throws(ServiceError) {
        guard value.isFinite, value > 0, value <= 1e12 else { throw .badRequest("a quantity is more than 0 and at most 10^12", field: field) }
    }
}
