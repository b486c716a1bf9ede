public import MessagePack

/// The fixed vocabularies of the catalog. Each is a string on the wire (its raw value), so
/// clients in other languages send and read plain strings.

@MessagePackCodable
public enum MeasureUnit: String, Codable, Sendable, CaseIterable {
    case g, kg, ml, l, piece, tsp, tbsp

    /// Millilitres in one unit of a volume measure.
    public var millilitres: Double? {
        switch self {
        case .ml: 1
        case .l: 1000
        case .tsp: 5
        case .tbsp: 15
        default: nil
        }
    }

    /// Grams in one unit of a mass measure.
    public var grams: Double? {
        switch self {
        case .g: 1
        case .kg: 1000
        default: nil
        }
    }
}

/// The unit an ingredient is priced in.
@MessagePackCodable
public enum PriceUnit: String, Codable, Sendable, CaseIterable {
    case kg, l, piece
}

@MessagePackCodable
public enum Diet: String, Codable, Sendable, CaseIterable, Comparable {
    case vegan
    case vegetarian
    case glutenFree = "gluten-free"
    case halal

    public static func < (lhs: Diet, rhs: Diet) -> Bool { lhs.rawValue < rhs.rawValue }
}

@MessagePackCodable
public enum Appliance: String, Codable, Sendable, CaseIterable, Comparable {
    case oven, stove, mixer, microwave, fryer

    public static func < (lhs: Appliance, rhs: Appliance) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The 14 allergens EU Regulation 1169/2011 requires to be declared.
@MessagePackCodable
public enum Allergen: String, Codable, Sendable, CaseIterable, Comparable {
    case gluten, crustaceans, eggs, fish, peanuts, soybeans, milk, nuts, celery, mustard, sesame, sulphites, lupin, molluscs

    public static func < (lhs: Allergen, rhs: Allergen) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// What an ingredient contains, from which diet compatibility is derived.
@MessagePackCodable
public enum DietFact: String, Codable, Sendable, CaseIterable, Comparable {
    case meat, fish, dairy, egg, honey, gluten, pork, alcohol

    public static func < (lhs: DietFact, rhs: DietFact) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Shopping categories in the order a shop is walked through.
@MessagePackCodable
public enum ShoppingCategory: String, Codable, Sendable, CaseIterable {
    case produce = "Produce"
    case dairy = "Dairy Products"
    case meat = "Meat & Deli"
    case breads = "Breads & Grains"
    case breakfast = "Breakfast"
    case canned = "Canned Goods"
    case sauces = "Sauces & Condiments"
    case snacks = "Snacks & Drinks"
    case baking = "Baking & Seasonings"
    case other = "Other"

    /// Position in the shopping order (0 first).
    public var shoppingOrder: Int { Self.allCases.firstIndex(of: self)! }
}

@MessagePackCodable
public enum DishType: String, Codable, Sendable, CaseIterable, Comparable {
    case mainCourse = "main course"
    case sideDish = "side dish"
    case dessert, appetizer, salad, bread, breakfast, soup, beverage, sauce, marinade, fingerfood, snack, drink

    public static func < (lhs: DishType, rhs: DishType) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// What happens to a recipe line's quantity: eaten, or mostly left behind in the pan. The
/// grocery list always buys the whole quantity; nutrition counts only the share eaten.
@MessagePackCodable
public enum IngredientUse: String, Codable, Sendable, CaseIterable {
    /// Ends up on the plate (the default).
    case eaten
    /// A deep-frying bath: the food takes up part of it, the rest is left in the fryer.
    case frying
    /// Poured away: soaking or cooking water, a brine, a marinade or stock that is strained off.
    case discarded

    /// The share of the quantity counted as eaten when a line does not give its own
    /// `eatenShare`: all of it; a tenth of a frying bath (home deep-frying leaves about 8–15 %
    /// of the oil in the food); nothing of what is poured away.
    public var defaultEatenShare: Double {
        switch self {
        case .eaten: 1
        case .frying: 0.1
        case .discarded: 0
        }
    }
}

@MessagePackCodable
public enum StepType: String, Codable, Sendable, CaseIterable {
    case preparation, cooking
}

/// Energy a recipe asks of the cook, 1–5, derived from its total time; a cooking profile's
/// patience is the highest level it accepts.
public enum EnergyLevel {
    /// Upper bounds in minutes of levels 1–4; anything longer is level 5.
    public static let upperBounds = [15, 30, 45, 75]

    public static let descriptions = [
        1: "might not eat",
        2: "quick and easy",
        3: "happy to cook",
        4: "enjoys a project",
        5: "love elaborate meals",
    ]

    /// 1: ≤ 15 min, 2: 16–30, 3: 31–45, 4: 46–75, 5: > 75.
    public static func forTotalMinutes(_ minutes: Int) -> Int {
        for (index, bound) in upperBounds.enumerated() where minutes <= bound {
            return index + 1
        }
        return 5
    }
}
