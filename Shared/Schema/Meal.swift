public import MessagePack

/// A meal of the day: diary entries belong to one; plan slots map onto lunch and dinner.
@MessagePackCodable
public enum Meal: String, Codable, Sendable, CaseIterable, Comparable {
    case breakfast, lunch, dinner, snack

    /// Position in the day (breakfast first).
    public var order: Int { Self.allCases.firstIndex(of: self)! }

    public static func < (lhs: Meal, rhs: Meal) -> Bool { lhs.order < rhs.order }
}
