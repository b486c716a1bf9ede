import Foundation
import SousRuntime
import SousSchema
import SousWire

/// Checks a profile update in full before anything is written, naming the first bad field.
enum ProfileValidation {
    static let maxDislikes = 200

    /// `update` applied over `current`, validated; dislikes are checked against the catalog.
    static func validated(
        _ update: ProfileUpdate, over current: CookingProfile, catalog: Peer<Catalog>, user: String, context: RequestContext
    ) async throws -> CookingProfile {
        var profile = update.applied(to: current)
        try check(profile)
        profile.diets = unique(profile.diets).sorted()
        profile.allergens = unique(profile.allergens).sorted()
        profile.equipment = unique(profile.equipment).sorted()
        if let dislikes = update.dislikes {
            guard dislikes.count <= maxDislikes else {
                throw ServiceError.badRequest("at most \(maxDislikes) disliked ingredients", field: "dislikes")
            }
            // Kept by id, however the user named them ("aubergine" is kept as `eggplant`).
            let ids = dislikes.isEmpty ? [] : try await ingredientIDs(dislikes, catalog: catalog, user: user, context: context)
            profile.dislikes = unique(ids)
        }
        return profile
    }

    /// The range checks that need no other service.
    static func check(_ profile: CookingProfile) throws(ServiceError) {
        guard (1...50).contains(profile.people) else { throw .badRequest("people must be 1 to 50, got \(profile.people)", field: "people") }
        guard (1...5).contains(profile.patience) else { throw .badRequest("patience must be 1 to 5, got \(profile.patience)", field: "patience") }
        guard (0...23).contains(profile.reminderHour) else {
            throw .badRequest("reminder hour must be 0 to 23, got \(profile.reminderHour)", field: "reminderHour")
        }
        guard !profile.timeZone.isEmpty, profile.timeZone.utf8.count <= 64, TimeZone(identifier: profile.timeZone) != nil else {
            throw .badRequest("unknown time zone \"\(profile.timeZone.prefix(64))\": use an IANA name such as Europe/Rome", field: "timeZone")
        }
    }

    /// The id of each ingredient `names` names (an id, a name or a synonym), in order.
    private static func ingredientIDs(_ names: [String], catalog: Peer<Catalog>, user: String, context: RequestContext) async throws -> [String] {
        do {
            return try await catalog.call(CatalogAPI.getIngredients, IngredientIDs(ids: names), user: user, for: context).ingredients.map(\.id)
        } catch {
            guard error.code == .notFound else { throw error }
            let field = error.field.map { $0.replacingOccurrences(of: "ids.", with: "dislikes.") } ?? "dislikes"
            throw ServiceError.notFound("unknown ingredient in dislikes: \(error.message)", field: field)
        }
    }

    private static func unique<T: Hashable>(_ values: [T]) -> [T] {
        var seen: Set<T> = []
        return values.filter { seen.insert($0).inserted }
    }
}
