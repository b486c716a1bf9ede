/// The primary key of a recipe row.
///
/// A catalog-wide recipe (built-in, custom, saved) is keyed by its id. A user's personal version
/// of another recipe is keyed by the user and the id, with the user's length in front, so no
/// two (user, id) pairs share a key whatever characters they contain: user `example.com` asking
/// for `soup@alice` can never reach `alice@example.com`'s version of `soup`. Recipe ids are
/// slugs (letters, digits, dashes), so they never start with the personal prefix.
struct RecipeKey: Hashable, Sendable {
    let rawValue: String

    static func shared(_ id: String) -> RecipeKey { RecipeKey(rawValue: id) }

    /// The length counts Unicode scalars, as SQLite's `length()` does for text (the migration
    /// that re-keyed older rows computes the same key in SQL).
    static func personal(_ id: String, of user: String) -> RecipeKey {
        RecipeKey(rawValue: "personal:\(user.unicodeScalars.count):\(user):\(id)")
    }
}
