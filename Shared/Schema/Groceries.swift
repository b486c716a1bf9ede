public import Foundation
public import MessagePack
public import SousWire

// The groceries service: a shopping list built from recipes (scaled for the household and
// aggregated per ingredient), manual items, check-off, and checkout into orders.

// MARK: - Requests

/// Puts a recipe on the list. Adding a recipe already on it raises its multiplier.
@MessagePackCodable
public struct AddRecipeToList: Codable, Equatable, Sendable {
    /// Catalog recipe id.
    public var recipe: String
    /// Times to buy the recipe, 1–100; default: the planner's suggestion (the slots the recipe
    /// fills in the visible week, 1 if none).
    public var multiplier: Int?
    /// Ingredient ids of the recipe the user already has; they stay off the list.
    public var exclude: [String]?
    /// True: the reply carries the whole list at its new version (``GroceryListChange/list``);
    /// default false, a summary only.
    public var withList: Bool?

    public init(recipe: String, multiplier: Int? = nil, exclude: [String]? = nil, withList: Bool? = nil) {
        self.recipe = recipe
        self.multiplier = multiplier
        self.exclude = exclude
        self.withList = withList
    }
}

/// Changes a recipe already on the list: its multiplier and/or which of its ingredients are left out.
@MessagePackCodable
public struct SetListRecipe: Codable, Equatable, Sendable {
    public var recipe: String
    /// The new multiplier, 1–100.
    public var multiplier: Int?
    /// Ingredient ids to leave out from now on ("I already have it").
    public var exclude: [String]?
    /// Ingredient ids to bring back.
    public var include: [String]?
    /// True: the reply carries the whole list at its new version (``GroceryListChange/list``);
    /// default false, a summary only.
    public var withList: Bool?

    public init(recipe: String, multiplier: Int? = nil, exclude: [String]? = nil, include: [String]? = nil, withList: Bool? = nil) {
        self.recipe = recipe
        self.multiplier = multiplier
        self.exclude = exclude
        self.include = include
        self.withList = withList
    }
}

/// A manual item: either edible (a catalog ingredient with a quantity, merged into that
/// ingredient's line) or non-edible (free text with an optional count, listed under Other).
@MessagePackCodable
public struct AddListItem: Codable, Equatable, Sendable {
    /// Catalog ingredient id (edible item).
    public var ingredient: String?
    /// Quantity of the ingredient, > 0 (edible item; default 1 of its usual unit for pieces, else required).
    public var quantity: Double?
    /// Unit of ``quantity``; default: the ingredient's usual unit.
    public var unit: MeasureUnit?
    /// Free text, e.g. "paper towels" (non-edible item).
    public var text: String?
    /// How many, 1–1000 (non-edible item; optional).
    public var count: Int?
    /// True: the reply carries the whole list at its new version (``GroceryListChange/list``);
    /// default false, a summary only.
    public var withList: Bool?

    public init(
        ingredient: String? = nil, quantity: Double? = nil, unit: MeasureUnit? = nil, text: String? = nil, count: Int? = nil, withList: Bool? = nil
    ) {
        self.ingredient = ingredient
        self.quantity = quantity
        self.unit = unit
        self.text = text
        self.count = count
        self.withList = withList
    }
}

/// Checks or unchecks lines by their ``GroceryLine/id``.
@MessagePackCodable
public struct CheckLines: Codable, Equatable, Sendable {
    public var lines: [String]
    public var checked: Bool
    /// True: the reply carries the whole list at its new version (``GroceryListChange/list``);
    /// default false, a summary only.
    public var withList: Bool?

    public init(lines: [String], checked: Bool, withList: Bool? = nil) {
        self.lines = lines
        self.checked = checked
        self.withList = withList
    }
}

/// Empties the list, or only takes the checked lines off it.
@MessagePackCodable
public struct ClearList: Codable, Equatable, Sendable {
    /// True: remove only checked lines (their ingredients are left out of every recipe on the
    /// list, their manual items deleted), as bought: a household that restocks gets them in its
    /// pantry. False: remove everything (nothing goes to the pantry).
    public var checkedOnly: Bool
    /// True: the reply carries the whole list at its new version (``GroceryListChange/list``);
    /// default false, a summary only.
    public var withList: Bool?

    public init(checkedOnly: Bool, withList: Bool? = nil) {
        self.checkedOnly = checkedOnly
        self.withList = withList
    }
}

@MessagePackCodable
public struct DeliveryAddress: Codable, Equatable, Sendable {
    public var street: String?
    public var postalCode: String?
    public var city: String?

    public init(street: String?, postalCode: String?, city: String?) {
        self.street = street
        self.postalCode = postalCode
        self.city = city
    }
}

/// Confirms the list as an order.
@MessagePackCodable
public struct Checkout: Codable, Equatable, Sendable {
    /// E.164 (`+` then 8–15 digits) or a national number (leading 0, 6–15 digits); spaces,
    /// dashes, dots and parentheses between digits are ignored.
    public var phone: String?
    public var address: DeliveryAddress?
    /// Optional note for the delivery, at most 500 characters.
    public var note: String?

    public init(phone: String?, address: DeliveryAddress?, note: String? = nil) {
        self.phone = phone
        self.address = address
        self.note = note
    }
}

@MessagePackCodable
public struct OrderQuery: Codable, Equatable, Sendable {
    /// Newest first, 1–100; default 20.
    public var limit: Int?
    public init(limit: Int? = nil) { self.limit = limit }
}

// MARK: - Replies

/// A recipe on the list, with the numbers its quantities were scaled by.
@MessagePackCodable
public struct ListRecipe: Codable, Equatable, Sendable {
    public var recipe: String
    public var name: String
    public var multiplier: Int
    /// People the quantities were scaled for (the profile's, when the recipe was first added).
    public var people: Int
    /// The recipe's own servings at that time.
    public var servings: Int
    /// Ingredient ids left out.
    public var excluded: [String]
    public var addedAt: Date

    public init(recipe: String, name: String, multiplier: Int, people: Int, servings: Int, excluded: [String], addedAt: Date) {
        self.recipe = recipe
        self.name = name
        self.multiplier = multiplier
        self.people = people
        self.servings = servings
        self.excluded = excluded
        self.addedAt = addedAt
    }
}

/// A line's id on the wire: the ingredient id, or `item:<n>` for a non-edible item (ingredient
/// ids are slugs, so they never contain a colon).
public enum GroceryLineID: Hashable, Sendable, CustomStringConvertible {
    case ingredient(String)
    case item(Int64)

    /// Reads a line id; `item:` followed by anything but a number is not a line.
    public init?(_ text: String) {
        if text.hasPrefix(Self.itemPrefix) {
            guard let number = Int64(text.dropFirst(Self.itemPrefix.count)) else { return nil }
            self = .item(number)
        } else {
            guard !text.isEmpty else { return nil }
            self = .ingredient(text)
        }
    }

    public var description: String {
        switch self {
        case .ingredient(let id): id
        case .item(let number): Self.itemPrefix + String(number)
        }
    }

    static let itemPrefix = "item:"
}

/// Where part of a line comes from: one recipe's share, or a manual item.
@MessagePackCodable
public struct GroceryLineSource: Codable, Equatable, Sendable {
    /// The recipe id, or nil for a manual item.
    public var recipe: String?
    /// The recipe's name, or "manual".
    public var name: String
    /// This source's quantity (multiplier applied), in its own unit.
    public var quantity: Double
    public var unit: MeasureUnit
    /// The manual item's id, for a manual source.
    public var item: Int64?

    public init(recipe: String?, name: String, quantity: Double, unit: MeasureUnit, item: Int64? = nil) {
        self.recipe = recipe
        self.name = name
        self.quantity = quantity
        self.unit = unit
        self.item = item
    }

    /// A manual item's share: no recipe, named "manual".
    public static func manual(item: Int64, quantity: Double, unit: MeasureUnit) -> GroceryLineSource {
        GroceryLineSource(recipe: nil, name: "manual", quantity: quantity, unit: unit, item: item)
    }
}

/// One line of the list: an ingredient (every source summed) or a non-edible item.
@MessagePackCodable
public struct GroceryLine: Codable, Equatable, Sendable {
    /// Stable id to check it by: the ingredient id, or `item:<n>` for a non-edible item.
    public var id: String
    /// The catalog ingredient, nil for a non-edible item.
    public var ingredient: String?
    public var name: String
    public var category: ShoppingCategory
    /// Display quantity in ``unit`` (rounded, see the groceries README); nil for a non-edible item without a count.
    public var quantity: Double?
    /// g, kg, ml, l or piece; nil for a non-edible item.
    public var unit: MeasureUnit?
    /// A non-edible item's count.
    public var count: Int?
    /// The exact total before rounding, in g, ml or pieces (``exactUnit``).
    public var exactQuantity: Double?
    public var exactUnit: MeasureUnit?
    /// Estimated EUR (illustrative); nil for a non-edible item.
    public var price: Double?
    public var checked: Bool
    public var sources: [GroceryLineSource]
    /// The packs that cover what is to be bought for the least money, when the catalog knows the
    /// packs the ingredient is sold in; nil otherwise (sold loose, a non-edible item, or nothing
    /// to buy).
    public var packs: PackChoice?
    /// What the pantry holds of it and what is left to buy, when it holds some; ``quantity``,
    /// ``price`` and ``packs`` are then for what is left to buy.
    public var pantry: PantryCover?

    public init(
        id: String, ingredient: String?, name: String, category: ShoppingCategory, quantity: Double?, unit: MeasureUnit?, count: Int?,
        exactQuantity: Double?, exactUnit: MeasureUnit?, price: Double?, checked: Bool, sources: [GroceryLineSource], packs: PackChoice? = nil,
        pantry: PantryCover? = nil
    ) {
        self.packs = packs
        self.pantry = pantry
        self.id = id
        self.ingredient = ingredient
        self.name = name
        self.category = category
        self.quantity = quantity
        self.unit = unit
        self.count = count
        self.exactQuantity = exactQuantity
        self.exactUnit = exactUnit
        self.price = price
        self.checked = checked
        self.sources = sources
    }
}

/// A line the pantry covers some of: "need 600 g, have 250 g → buy 350 g".
@MessagePackCodable
public struct PantryCover: Codable, Equatable, Sendable {
    /// What the pantry holds, in the line's ``GroceryLine/exactUnit`` (its need is ``GroceryLine/exactQuantity``).
    public var have: Double
    /// The need less what the pantry holds, never below 0.
    public var buy: Double

    public init(have: Double, buy: Double) {
        self.have = have
        self.buy = buy
    }
}

/// Packs of one size to buy.
@MessagePackCodable
public struct PackCount: Codable, Equatable, Sendable {
    public var pack: PackSize
    public var count: Int

    public init(pack: PackSize, count: Int) {
        self.pack = pack
        self.count = count
    }
}

/// The cheapest packs that together hold at least a line's need (docs/PROTOCOL.md, "Packs").
@MessagePackCodable
public struct PackChoice: Codable, Equatable, Sendable {
    /// Largest first; at least one.
    public var packs: [PackCount]
    /// EUR for all of them.
    public var price: Double
    /// What they hold beyond the need, in the line's ``GroceryLine/exactUnit``.
    public var leftover: Double

    public init(packs: [PackCount], price: Double, leftover: Double) {
        self.packs = packs
        self.price = price
        self.leftover = leftover
    }
}

/// The lines of one shopping category.
@MessagePackCodable
public struct GroceryCategoryGroup: Codable, Equatable, Sendable {
    public var category: ShoppingCategory
    public var lines: [GroceryLine]
    /// EUR, illustrative.
    public var subtotal: Double

    public init(category: ShoppingCategory, lines: [GroceryLine], subtotal: Double) {
        self.category = category
        self.lines = lines
        self.subtotal = subtotal
    }
}

/// The caller's grocery list: categories in shopping order (empty ones left out).
@MessagePackCodable
public struct GroceryList: Codable, Equatable, Sendable {
    public var recipes: [ListRecipe]
    public var categories: [GroceryCategoryGroup]
    /// EUR, illustrative: the sum of every line's price.
    public var total: Double
    /// EUR, illustrative: what the list costs bought in packs (each line's packs, or its price
    /// where the ingredient is sold loose).
    public var totalByPacks: Double
    public var lineCount: Int
    public var checkedCount: Int
    /// Raised by every change to the caller's list (each write answers with its new version,
    /// and so does `groceries.changed`), so a client can tell whether what it shows is current.
    /// Never reused, not even after the list is emptied; 0 for a list never written.
    public var version: Int64

    public init(
        recipes: [ListRecipe], categories: [GroceryCategoryGroup], total: Double, totalByPacks: Double? = nil, lineCount: Int, checkedCount: Int,
        version: Int64 = 0
    ) {
        self.recipes = recipes
        self.categories = categories
        self.total = total
        self.totalByPacks = totalByPacks ?? total
        self.lineCount = lineCount
        self.checkedCount = checkedCount
        self.version = version
    }

    /// Every line in shopping order.
    public var lines: [GroceryLine] { categories.flatMap(\.lines) }

    /// The line with `id`, if any.
    public func line(_ id: String) -> GroceryLine? { lines.first { $0.id == id } }
}

/// What a write to the list answers: the list's new version and a few counts, read without
/// aggregating the list again; the whole list only when the request set `withList`.
@MessagePackCodable
public struct GroceryListChange: Codable, Equatable, Sendable {
    /// The list's version after this change (see ``GroceryList/version``).
    public var version: Int64
    /// Recipes on the list.
    public var recipeCount: Int
    /// Manual items on the list, edible or not.
    public var itemCount: Int
    /// Lines checked off.
    public var checkedCount: Int
    /// The list at ``version``, when asked for with `withList: true`.
    public var list: GroceryList?

    public init(version: Int64, recipeCount: Int, itemCount: Int, checkedCount: Int, list: GroceryList? = nil) {
        self.version = version
        self.recipeCount = recipeCount
        self.itemCount = itemCount
        self.checkedCount = checkedCount
        self.list = list
    }
}

/// One line of a placed order, as it was on the list.
@MessagePackCodable
public struct OrderLine: Codable, Equatable, Sendable {
    public var ingredient: String?
    public var name: String
    public var category: ShoppingCategory
    public var quantity: Double?
    public var unit: MeasureUnit?
    public var count: Int?
    public var price: Double?
    public var checked: Bool

    public init(
        ingredient: String?, name: String, category: ShoppingCategory, quantity: Double?, unit: MeasureUnit?, count: Int?, price: Double?,
        checked: Bool
    ) {
        self.ingredient = ingredient
        self.name = name
        self.category = category
        self.quantity = quantity
        self.unit = unit
        self.count = count
        self.price = price
        self.checked = checked
    }
}

/// A confirmed order.
@MessagePackCodable
public struct GroceryOrder: Codable, Equatable, Sendable {
    public var id: Int64
    public var placedAt: Date
    /// Normalized: `+` and digits (E.164) or digits starting with 0 (national).
    public var phone: String
    public var address: DeliveryAddress
    public var note: String?
    public var lines: [OrderLine]
    /// EUR, illustrative.
    public var total: Double
    /// Recipe ids the list was built from.
    public var recipes: [String]

    public init(
        id: Int64, placedAt: Date, phone: String, address: DeliveryAddress, note: String?, lines: [OrderLine], total: Double, recipes: [String]
    ) {
        self.id = id
        self.placedAt = placedAt
        self.phone = phone
        self.address = address
        self.note = note
        self.lines = lines
        self.total = total
        self.recipes = recipes
    }
}

@MessagePackCodable
public struct OrderHistory: Codable, Equatable, Sendable {
    public var orders: [GroceryOrder]
    public init(orders: [GroceryOrder]) { self.orders = orders }
}

// MARK: - Events

/// Body of ``GroceriesTopics/changed``.
@MessagePackCodable
public struct GroceriesChangedEvent: Codable, Equatable, Sendable {
    /// Who changed it.
    public var user: String
    /// Whose list it is: every member of this household sees the change.
    public var household: String
    /// The method that changed the list, e.g. "groceries.addRecipe".
    public var change: String
    /// The list's version afterwards (see ``GroceryList/version``): a client showing an older
    /// one reads the list again.
    public var version: Int64

    public init(user: String, household: String, change: String, version: Int64) {
        self.user = user
        self.household = household
        self.change = change
        self.version = version
    }
}

/// `groceries.wait`: wait for the list to change.
@MessagePackCodable
public struct ListWait: Codable, Equatable, Sendable {
    /// The list version the caller has (``GroceryList/version``); the answer comes as soon as
    /// the list is past it.
    public var after: Int64
    /// How long to wait when it is not: 0 to 25 seconds (default 20).
    public var waitSeconds: Double?

    public init(after: Int64, waitSeconds: Double? = nil) {
        self.after = after
        self.waitSeconds = waitSeconds
    }
}

/// `groceries.wait`'s answer.
@MessagePackCodable
public struct ListVersionNow: Codable, Equatable, Sendable {
    /// The list's version now.
    public var version: Int64
    /// Whether it is past `after` (false: the wait ran out); read the list again when true.
    public var changed: Bool

    public init(version: Int64, changed: Bool) {
        self.version = version
        self.changed = changed
    }
}

public enum GroceriesTopics {
    /// ``GroceriesChangedEvent``: a household's list changed (including emptied by a checkout).
    public static let changed = Topic<GroceriesChangedEvent>("groceries.changed")
}

// MARK: - Methods

public enum GroceriesAPI {
    /// The list of the caller's household (every member shares it), aggregated and grouped by category.
    public static let list = Method<Groceries, Empty, GroceryList>.read("groceries.list", .household)
    // Every write answers its new version and counts; the whole list only with `withList: true`.
    // Each changes nothing but this service's database, so its idempotency key is checked by
    // its own transaction (``KeyCheck/atCommit``).
    /// Adds a recipe (scaled to the profile's people); notFound for an unknown recipe or an
    /// excluded id that is not in it.
    public static let addRecipe = Method<Groceries, AddRecipeToList, GroceryListChange>.write("groceries.addRecipe", .household, keyCheck: .atCommit)
    /// Changes a listed recipe's multiplier or exclusions.
    public static let setRecipe = Method<Groceries, SetListRecipe, GroceryListChange>.write(
        "groceries.setRecipe", .household, keyCheck: .atCommit, fields: FieldRule(oneOf: ["multiplier", "exclude", "include"]))
    /// Takes exactly the recipe's share out of every line.
    public static let removeRecipe = Method<Groceries, RemoveListRecipe, GroceryListChange>.write(
        "groceries.removeRecipe", .household, keyCheck: .atCommit)
    public static let addItem = Method<Groceries, AddListItem, GroceryListChange>.write("groceries.addItem", .household, keyCheck: .atCommit)
    /// Deletes a manual item by its id (see ``GroceryLineSource/item``, or `item:<n>` line ids).
    public static let removeItem = Method<Groceries, RemoveListItem, GroceryListChange>.write("groceries.removeItem", .household, keyCheck: .atCommit)
    public static let check = Method<Groceries, CheckLines, GroceryListChange>.write("groceries.check", .household, keyCheck: .atCommit)
    public static let clear = Method<Groceries, ClearList, GroceryListChange>.write("groceries.clear", .household, keyCheck: .atCommit)
    /// Stores the list as an order and empties it, in one transaction.
    public static let checkout = Method<Groceries, Checkout, GroceryOrder>.write("groceries.checkout", .household, keyCheck: .atCommit)
    public static let orders = Method<Groceries, OrderQuery, OrderHistory>.read("groceries.orders", .household)
    /// Answers when the household's list changes (any member's change), or after the wait: how
    /// a client shows another member's ticks within a second without asking every second.
    public static let wait = Method<Groceries, ListWait, ListVersionNow>.read("groceries.wait", .household, activity: false)
}

/// Takes a recipe, and exactly its share of every line, off the list.
@MessagePackCodable
public struct RemoveListRecipe: Codable, Equatable, Sendable {
    /// The recipe id, as listed in ``GroceryList/recipes``.
    public var id: String
    /// True: the reply carries the whole list at its new version (``GroceryListChange/list``);
    /// default false, a summary only.
    public var withList: Bool?

    public init(id: String, withList: Bool? = nil) {
        self.id = id
        self.withList = withList
    }
}

/// Deletes a manual item.
@MessagePackCodable
public struct RemoveListItem: Codable, Equatable, Sendable {
    /// The item's number: ``GroceryLineSource/item``, or the n of an `item:<n>` line id.
    public var id: Int64
    /// True: the reply carries the whole list at its new version (``GroceryListChange/list``);
    /// default false, a summary only.
    public var withList: Bool?

    public init(id: Int64, withList: Bool? = nil) {
        self.id = id
        self.withList = withList
    }
}

/// A request that changes the caller's list.
public protocol GroceryListWrite: Sendable {
    var withList: Bool? { get set }
}

extension GroceryListWrite {
    /// Whether the reply carries the whole list (`withList` left out: no).
    public var wantsList: Bool { withList ?? false }
}

extension AddRecipeToList: GroceryListWrite {}
extension SetListRecipe: GroceryListWrite {}
extension RemoveListRecipe: GroceryListWrite {}
extension AddListItem: GroceryListWrite {}
extension RemoveListItem: GroceryListWrite {}
extension CheckLines: GroceryListWrite {}
extension ClearList: GroceryListWrite {}
