import Foundation
import GRDB
import SousRuntime
public import SousSchema
import SousUnits
public import SousWire

/// The household's pantry in the groceries database: items, staples, the restock setting, and
/// the cooked slots that took from it. Every change to it changes the list (it subtracts what the
/// pantry holds), so each moves the list's version in its own transaction.
extension GroceriesStore {
    public func pantry(household: String) throws(ServiceError) -> Pantry {
        try storage { try database.read { session in try Self.pantry(household: household, session) } }
    }

    /// A pantry write: `change`, then the list's new version, then the pantry as it is now (the
    /// reply a keyed write stores). `facts` are stored first, as a list add stores them.
    func changePantry(
        household: String, storing facts: [ListIngredientFacts] = [], idempotent scope: IdempotencyScope?,
        _ change: (any SQLSession) throws -> Void
    ) throws(ServiceError) -> (pantry: Pantry, version: Int64) {
        var version: Int64 = 0
        let pantry = try storage {
            try database.write(idempotent: scope) { session -> Pantry in
                try Self.upsert(facts, session)
                try change(session)
                version = try Self.nextVersion(household: household, session).list
                return try Self.pantry(household: household, session)
            }
        }
        return (pantry, version)
    }

    func addPantryItem(
        _ facts: ListIngredientFacts, quantity: Double, unit: MeasureUnit, bestBefore: LocalDate?, location: String, household: String, now: Date,
        idempotent scope: IdempotencyScope?
    ) throws(ServiceError) -> (pantry: Pantry, version: Int64) {
        try changePantry(household: household, storing: [facts], idempotent: scope) { session in
            try GroceriesQuotas.pantryItems.check(
                current: session.value(Int.self, #"SELECT COUNT(*) FROM pantry_item WHERE household = ?"#, [household]) ?? 0)
            try session.execute(
                #"INSERT INTO pantry_item (household, ingredient, quantity, unit, best_before, location, added_at) VALUES (?, ?, ?, ?, ?, ?, ?)"#,
                [household, facts.id, quantity, unit.rawValue, bestBefore?.description, location, now.timeIntervalSince1970])
        }
    }

    func removePantryItem(
        _ id: Int64, household: String, idempotent scope: IdempotencyScope?
    ) throws(ServiceError) -> (pantry: Pantry, version: Int64) {
        try changePantry(household: household, idempotent: scope) { session in
            guard try session.execute(#"DELETE FROM pantry_item WHERE household = ? AND id = ?"#, [household, id]) == 1 else {
                throw ServiceError.notFound("your pantry has no item \(id)", field: "id")
            }
        }
    }

    func setStaple(
        _ facts: ListIngredientFacts, staple: Bool, out: Bool, household: String, idempotent scope: IdempotencyScope?
    ) throws(ServiceError) -> (pantry: Pantry, version: Int64) {
        try changePantry(household: household, storing: staple ? [facts] : [], idempotent: scope) { session in
            guard staple else {
                try session.execute(#"DELETE FROM pantry_staple WHERE household = ? AND ingredient = ?"#, [household, facts.id])
                return
            }
            let known =
                try session.value(Int.self, #"SELECT 1 FROM pantry_staple WHERE household = ? AND ingredient = ?"#, [household, facts.id]) != nil
            if !known {
                try GroceriesQuotas.staples.check(
                    current: session.value(Int.self, #"SELECT COUNT(*) FROM pantry_staple WHERE household = ?"#, [household]) ?? 0)
            }
            try session.execute(
                """
                INSERT INTO pantry_staple (household, ingredient, out_of_stock) VALUES (?, ?, ?)
                ON CONFLICT (household, ingredient) DO UPDATE SET out_of_stock = excluded.out_of_stock
                """, [household, facts.id, out])
        }
    }

    func setRestock(_ restock: Bool, household: String, idempotent scope: IdempotencyScope?) throws(ServiceError) -> (pantry: Pantry, version: Int64)
    {
        try changePantry(household: household, idempotent: scope) { session in
            try session.execute(
                """
                INSERT INTO pantry_setting (household, restock_on_checkout) VALUES (?, ?)
                ON CONFLICT (household) DO UPDATE SET restock_on_checkout = excluded.restock_on_checkout
                """, [household, restock])
        }
    }

    /// Items whose best-before is `through` or earlier, soonest first.
    func expiring(household: String, through: LocalDate) throws(ServiceError) -> [PantryItem] {
        try storage {
            try database.read { session in
                try Self.pantry(household: household, session).items.filter { ($0.bestBefore.map { $0 <= through }) ?? false }
                    .sorted { ($0.bestBefore!, $0.name, $0.id) < ($1.bestBefore!, $1.name, $1.id) }
            }
        }
    }

    /// One ingredient a cooked meal used: how much, in a unit the ingredient takes.
    struct Used: Sendable {
        var facts: ListIngredientFacts
        var quantity: Double
        var unit: MeasureUnit
    }

    /// Takes what a cooked meal used out of the pantry, once for the slot and recipe: from the
    /// items with the soonest best-before first (none last, then the oldest), never below zero.
    func cook(
        _ used: [Used], recipe: String, date: LocalDate, slot: Int, household: String, now: Date
    ) throws(ServiceError) -> (taken: PantryTaken, version: Int64?) {
        try storage {
            try database.write { session -> (PantryTaken, Int64?) in
                let first = try session.execute(
                    #"INSERT INTO pantry_cooked (household, date, slot, recipe, cooked_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"#,
                    [household, date.description, slot, recipe, now.timeIntervalSince1970])
                guard first == 1 else { return (PantryTaken(taken: [], already: true), nil) }
                let items = try Self.pantry(household: household, session).items
                var taken: [PantryUse] = []
                for use in used {
                    let dimension = QuantityDimension(use.facts.unit)
                    guard var wanted = use.facts.convert(use.quantity * use.unit.baseFactor, from: QuantityDimension(use.unit), to: dimension)
                    else { continue }
                    let stock = items.filter { $0.ingredient == use.facts.id }.sorted { Self.usedFirst($0, $1) }
                    guard !stock.isEmpty else { continue }
                    var took = 0.0
                    for item in stock where wanted > 0 {
                        let itemDimension = QuantityDimension(item.unit)
                        guard let held = use.facts.convert(item.quantity * item.unit.baseFactor, from: itemDimension, to: dimension) else { continue }
                        let part = min(held, wanted)
                        wanted -= part
                        took += part
                        // What is left of the item, in its own unit; an emptied item goes (a
                        // remainder below a millionth of a unit is rounding, not food).
                        let left = (use.facts.convert(held - part, from: dimension, to: itemDimension) ?? 0) / item.unit.baseFactor
                        if left <= item.quantity * 1e-9 || left < 1e-6 {
                            try session.execute(#"DELETE FROM pantry_item WHERE household = ? AND id = ?"#, [household, item.id])
                        } else {
                            try session.execute(#"UPDATE pantry_item SET quantity = ? WHERE household = ? AND id = ?"#, [left, household, item.id])
                        }
                    }
                    let remaining =
                        try session.value(
                            Int.self, #"SELECT COUNT(*) FROM pantry_item WHERE household = ? AND ingredient = ?"#, [household, use.facts.id]) ?? 0
                    taken.append(
                        PantryUse(
                            ingredient: use.facts.id, name: use.facts.name, quantity: took, unit: dimension.baseUnit,
                            ranOut: wanted > 1e-9 || remaining == 0))
                }
                let version = taken.isEmpty ? nil : try Self.nextVersion(household: household, session).list
                return (PantryTaken(taken: taken, already: false), version)
            }
        }
    }

    /// Soonest best-before first, none last; then the oldest.
    static func usedFirst(_ a: PantryItem, _ b: PantryItem) -> Bool {
        switch (a.bestBefore, b.bestBefore) {
        case (let x?, let y?) where x != y: x < y
        case (.some, nil): true
        case (nil, .some): false
        default: a.id < b.id
        }
    }

    /// Puts what was bought (a checkout's lines, or the ticked lines cleared after shopping) into
    /// the pantry, whole packs where the list chose packs, when the household asked for it:
    /// dairy, meat and fish in the fridge, the rest in the cupboard. A full pantry takes what
    /// fits: buying is never refused for it.
    static func restock(_ lines: [GroceryLine], household: String, now: Date, _ session: any SQLSession) throws {
        guard
            try session.value(Bool.self, #"SELECT restock_on_checkout FROM pantry_setting WHERE household = ?"#, [household]) == true
        else { return }
        var room =
            GroceriesQuotas.pantryItems.limit
            - (try session.value(Int.self, #"SELECT COUNT(*) FROM pantry_item WHERE household = ?"#, [household]) ?? 0)
        for line in lines where room > 0 {
            guard let ingredient = line.ingredient, let unit = line.exactUnit else { continue }
            let bought =
                line.packs.map { choice in choice.packs.reduce(0.0) { $0 + Double($1.count) * $1.pack.quantity * $1.pack.unit.baseFactor } }
            // Packs are in their own family; the line's buy (or need) in the line's.
            let (amount, amountUnit): (Double, MeasureUnit) =
                if let bought, let packUnit = line.packs?.packs.first?.pack.unit {
                    (bought, QuantityDimension(packUnit).baseUnit)
                } else {
                    (line.pantry?.buy ?? line.exactQuantity ?? 0, unit)
                }
            guard amount > 0 else { continue }
            let location = [.dairy, .meat].contains(line.category) ? "fridge" : "cupboard"
            try session.execute(
                #"INSERT INTO pantry_item (household, ingredient, quantity, unit, best_before, location, added_at) VALUES (?, ?, ?, ?, NULL, ?, ?)"#,
                [household, ingredient, amount, amountUnit.rawValue, location, now.timeIntervalSince1970])
            room -= 1
        }
    }

    /// What the pantry holds that the list takes off (``PantryStock``).
    static func pantryStock(household: String, _ session: any SQLSession) throws -> PantryStock {
        var stock = PantryStock()
        for row in try session.rows(#"SELECT ingredient, quantity, unit FROM pantry_item WHERE household = ?"#, [household]) {
            let unit = try storedValue(MeasureUnit.self, row["unit"])
            stock.amounts[row["ingredient"], default: [:]][QuantityDimension(unit), default: 0] += (row["quantity"] as Double) * unit.baseFactor
        }
        stock.staples = Set(
            try session.values(String.self, #"SELECT ingredient FROM pantry_staple WHERE household = ? AND out_of_stock = 0"#, [household]))
        return stock
    }

    static func pantry(household: String, _ session: any SQLSession) throws -> Pantry {
        let items = try session.rows(
            """
            SELECT p.id, p.ingredient, i.name, p.quantity, p.unit, p.best_before, p.location, p.added_at
            FROM pantry_item p JOIN ingredient i ON i.id = p.ingredient WHERE p.household = ?
            """, [household]
        ).map { row -> PantryItem in
            let text: String? = row["best_before"]
            return PantryItem(
                id: row["id"], ingredient: row["ingredient"], name: row["name"], quantity: row["quantity"],
                unit: try storedValue(MeasureUnit.self, row["unit"]), bestBefore: try text.map(Self.storedDate), location: row["location"],
                addedAt: Date(timeIntervalSince1970: row["added_at"]))
        }
        .sorted { a, b in a.name.lowercased() != b.name.lowercased() ? a.name.lowercased() < b.name.lowercased() : usedFirst(a, b) }
        let staples = try session.rows(
            """
            SELECT s.ingredient, i.name, s.out_of_stock FROM pantry_staple s JOIN ingredient i ON i.id = s.ingredient
            WHERE s.household = ?
            """, [household]
        ).map { Staple(ingredient: $0["ingredient"], name: $0["name"], out: $0["out_of_stock"]) }
            .sorted { $0.name.lowercased() < $1.name.lowercased() }
        let restock = try session.value(Bool.self, #"SELECT restock_on_checkout FROM pantry_setting WHERE household = ?"#, [household]) ?? false
        return Pantry(items: items, staples: staples, restockOnCheckout: restock)
    }

    static func storedDate(_ text: String) throws -> LocalDate {
        guard let date = LocalDate(text) else { throw ServiceError.internal("stored date \"\(text)\" is not a date") }
        return date
    }
}
