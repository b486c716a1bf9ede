public import Foundation
public import MessagePack
public import SousWire

// The pantry: what a household already has, by ingredient, which the grocery list subtracts;
// staples it always keeps; what a cooked meal used.

/// `pantry.add`: some of an ingredient the household has.
@MessagePackCodable
public struct PantryAdd: Codable, Equatable, Sendable {
    /// Catalog ingredient id (or a name search finds, like a list item's).
    public var ingredient: String
    /// Above 0, at most 100 000.
    public var quantity: Double
    /// Any unit the ingredient can be measured in; default its usual unit.
    public var unit: MeasureUnit?
    /// From 2000-01-01 to ten years ahead.
    public var bestBefore: LocalDate?
    /// "fridge", "freezer", "cupboard" or any text up to 40 characters; default "cupboard".
    public var location: String?

    public init(ingredient: String, quantity: Double, unit: MeasureUnit? = nil, bestBefore: LocalDate? = nil, location: String? = nil) {
        self.ingredient = ingredient
        self.quantity = quantity
        self.unit = unit
        self.bestBefore = bestBefore
        self.location = location
    }
}

@MessagePackCodable
public struct PantryItem: Codable, Equatable, Sendable {
    public var id: Int64
    public var ingredient: String
    public var name: String
    /// What is left of it, in ``unit``.
    public var quantity: Double
    public var unit: MeasureUnit
    public var bestBefore: LocalDate?
    public var location: String
    public var addedAt: Date

    public init(
        id: Int64, ingredient: String, name: String, quantity: Double, unit: MeasureUnit, bestBefore: LocalDate?, location: String, addedAt: Date
    ) {
        self.id = id
        self.ingredient = ingredient
        self.name = name
        self.quantity = quantity
        self.unit = unit
        self.bestBefore = bestBefore
        self.location = location
        self.addedAt = addedAt
    }
}

/// An ingredient the household always has (salt, oil): the list leaves it out of recipes'
/// shares unless it is marked out.
@MessagePackCodable
public struct Staple: Codable, Equatable, Sendable {
    public var ingredient: String
    public var name: String
    /// True: it ran out, so recipes that use it put it on the list again.
    public var out: Bool

    public init(ingredient: String, name: String, out: Bool) {
        self.ingredient = ingredient
        self.name = name
        self.out = out
    }
}

/// The household's pantry.
@MessagePackCodable
public struct Pantry: Codable, Equatable, Sendable {
    /// By ingredient name, then best-before (soonest first, none last).
    public var items: [PantryItem]
    /// By name.
    public var staples: [Staple]
    /// True: what was bought goes into the pantry (``PantrySettings``).
    public var restockOnCheckout: Bool

    public init(items: [PantryItem], staples: [Staple], restockOnCheckout: Bool) {
        self.items = items
        self.staples = staples
        self.restockOnCheckout = restockOnCheckout
    }
}

@MessagePackCodable
public struct PantryItemRef: Codable, Equatable, Sendable {
    public var id: Int64
    public init(id: Int64) { self.id = id }
}

/// `pantry.staple`: marks an ingredient as always kept (or not), or its stock as out (or back).
@MessagePackCodable
public struct StapleSetting: Codable, Equatable, Sendable {
    public var ingredient: String
    /// False takes it off the staples.
    public var staple: Bool
    /// True: it ran out (recipes put it on the list again); default false.
    public var out: Bool?

    public init(ingredient: String, staple: Bool, out: Bool? = nil) {
        self.ingredient = ingredient
        self.staple = staple
        self.out = out
    }
}

@MessagePackCodable
public struct PantrySettings: Codable, Equatable, Sendable {
    /// True: what was bought goes into the pantry, whole packs where the list chose packs:
    /// every line of a checkout, and the ticked lines when they are cleared off the list after
    /// shopping (`list.clear` with `checkedOnly`). A full pantry (500 items) takes what fits.
    public var restockOnCheckout: Bool
    public init(restockOnCheckout: Bool) { self.restockOnCheckout = restockOnCheckout }
}

/// `pantry.expiring`: what goes out of date soon.
@MessagePackCodable
public struct ExpiringQuery: Codable, Equatable, Sendable {
    /// 0 to 60; default 3: best-before up to today + `days` (past ones included).
    public var days: Int?
    public init(days: Int? = nil) { self.days = days }
}

@MessagePackCodable
public struct ExpiringItems: Codable, Equatable, Sendable {
    /// The caller's today, in their time zone.
    public var today: LocalDate
    /// Soonest first.
    public var items: [PantryItem]

    public init(today: LocalDate, items: [PantryItem]) {
        self.today = today
        self.items = items
    }
}

/// `pantry.cook`: a planned meal was cooked; what its recipe used comes out of the pantry, once
/// for the slot. The planner asks it when a meal is marked cooked.
@MessagePackCodable
public struct PantryCook: Codable, Equatable, Sendable {
    public var recipe: String
    /// The people it was cooked for (the recipe is scaled from its servings), 1 to 50.
    public var people: Int
    /// The plan slot cooked: the same slot takes from the pantry once.
    public var date: LocalDate
    public var slot: Int

    public init(recipe: String, people: Int, date: LocalDate, slot: Int) {
        self.recipe = recipe
        self.people = people
        self.date = date
        self.slot = slot
    }
}

/// What came out of the pantry for one ingredient.
@MessagePackCodable
public struct PantryUse: Codable, Equatable, Sendable {
    public var ingredient: String
    public var name: String
    /// Taken, in ``unit`` (the ingredient's usual unit family: g, ml or piece).
    public var quantity: Double
    public var unit: MeasureUnit
    /// True when the pantry held less than the recipe used, or none is left now.
    public var ranOut: Bool

    public init(ingredient: String, name: String, quantity: Double, unit: MeasureUnit, ranOut: Bool) {
        self.ingredient = ingredient
        self.name = name
        self.quantity = quantity
        self.unit = unit
        self.ranOut = ranOut
    }
}

@MessagePackCodable
public struct PantryTaken: Codable, Equatable, Sendable {
    /// One per ingredient the pantry held some of.
    public var taken: [PantryUse]
    /// True when this slot had already taken from the pantry: nothing was taken again.
    public var already: Bool

    public init(taken: [PantryUse], already: Bool) {
        self.taken = taken
        self.already = already
    }
}

public enum PantryAPI {
    public static let get = Method<Groceries, Empty, Pantry>.read("pantry.get", .household)
    public static let add = Method<Groceries, PantryAdd, Pantry>.write("pantry.add", .household)
    public static let remove = Method<Groceries, PantryItemRef, Pantry>.write("pantry.remove", .household)
    public static let staple = Method<Groceries, StapleSetting, Pantry>.write("pantry.staple", .household)
    public static let settings = Method<Groceries, PantrySettings, Pantry>.write("pantry.settings", .household)
    public static let expiring = Method<Groceries, ExpiringQuery, ExpiringItems>.read("pantry.expiring", .household)
    /// Takes a cooked meal's ingredients out of the pantry, never below zero, once per slot.
    public static let cook = Method<Groceries, PantryCook, PantryTaken>.write("pantry.cook", .household, activity: false)
}

extension OnHand {
    /// A pantry item as a search for what is on hand takes it.
    public init(_ item: PantryItem) {
        self.init(ingredient: item.ingredient, quantity: item.quantity, unit: item.unit, bestBefore: item.bestBefore)
    }
}
