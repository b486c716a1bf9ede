import CatalogService
import Foundation
import PlannerService
import SousRuntime
import SousSchema
import SousServiceTesting
import SousTestSupport
import SousWire
import Testing
import TrackerService

/// The same method name with a body the typed API cannot express (a diet that does not exist).
private struct RawProfileUpdate: Codable, Sendable {
    var diets: [String]?
    var equipment: [String]?
}

private let rawUpdate = Method<Planner, RawProfileUpdate, CookingProfile>.write("profile.update", .public)

@Suite(.closesItsSockets)
struct ProfileTests {
    @Test func aUserWhoNeverSetAProfileGetsTheDefaults() async throws {
        try await withPlanner { world in
            let profile = try await world.call(PlannerAPI.getProfile, Empty(), user: "newcomer")
            #expect(profile == .defaults)
            #expect(profile.people == 2 && profile.patience == 5 && profile.timeZone == "UTC" && profile.reminderHour == 19)
            #expect(profile.filterDiets && profile.filterEquipment && profile.filterPatience && profile.remindersEnabled)
            #expect(Set(profile.equipment) == Set(Appliance.allCases))
        }
    }

    @Test func updatesArePartialAndPerUser() async throws {
        try await withPlanner { world in
            let first = try await world.call(
                PlannerAPI.updateProfile, ProfileUpdate(people: 4, diets: [.vegan, .glutenFree, .vegan], timeZone: "Europe/Rome"))
            #expect(first.people == 4 && first.diets == [.glutenFree, .vegan] && first.timeZone == "Europe/Rome")
            let second = try await world.call(
                PlannerAPI.updateProfile, ProfileUpdate(patience: 2, dislikes: ["tomato", "egg", "tomato"], filterPatience: false))
            #expect(second.people == 4, "fields not in the update keep their value")
            #expect(second.patience == 2 && second.dislikes == ["tomato", "egg"] && !second.filterPatience)
            #expect(try await world.call(PlannerAPI.getProfile, Empty()) == second)
            #expect(try await world.call(PlannerAPI.getProfile, Empty(), user: "bob") == .defaults)
        }
    }

    /// A dislike may be named as search takes it (a name or synonym, any case); it is kept by
    /// the ingredient's id, so every filter finds it.
    @Test func dislikesNamedByNameOrSynonymAreKeptByID() async throws {
        try await withPlanner { world in
            let profile = try await world.call(PlannerAPI.updateProfile, ProfileUpdate(dislikes: ["Aubergine", "eggplant", "egg"]))
            #expect(profile.dislikes == ["eggplant", "egg"])
        }
    }

    /// Every field away from its default comes back as saved: the profile is read by column
    /// position, so a column in the wrong place would swap two values.
    @Test func everyFieldIsReadBackAsSaved() async throws {
        try await withPlanner { world in
            let saved = try await world.call(
                PlannerAPI.updateProfile,
                ProfileUpdate(
                    people: 3, patience: 4, diets: [.vegetarian], allergens: [.sesame, .nuts], dislikes: ["egg"], equipment: [.oven, .mixer],
                    filterDiets: false, filterAllergens: true, filterDislikes: false, filterEquipment: true, filterPatience: false,
                    timeZone: "Asia/Tokyo", remindersEnabled: false, reminderHour: 7, units: .us))
            #expect(saved.people == 3 && saved.patience == 4 && saved.timeZone == "Asia/Tokyo" && saved.reminderHour == 7 && saved.units == .us)
            #expect(!saved.filterDiets && saved.filterAllergens && !saved.filterDislikes && saved.filterEquipment && !saved.filterPatience)
            #expect(!saved.remindersEnabled)
            #expect(try await world.call(PlannerAPI.getProfile, Empty()) == saved)
        }
    }

    @Test func resetGoesBackToTheDefaults() async throws {
        try await withPlanner { world in
            _ = try await world.call(PlannerAPI.updateProfile, ProfileUpdate(people: 7, remindersEnabled: false))
            #expect(try await world.call(PlannerAPI.resetProfile, Empty()) == .defaults)
            #expect(try await world.call(PlannerAPI.getProfile, Empty()) == .defaults)
        }
    }

    @Test(arguments: [
        (ProfileUpdate(people: 0), "people"),
        (ProfileUpdate(people: 51), "people"),
        (ProfileUpdate(patience: 0), "patience"),
        (ProfileUpdate(patience: 6), "patience"),
        (ProfileUpdate(timeZone: "Mars/Olympus_Mons"), "timeZone"),
        (ProfileUpdate(timeZone: ""), "timeZone"),
        (ProfileUpdate(reminderHour: 24), "reminderHour"),
        (ProfileUpdate(reminderHour: -1), "reminderHour"),
    ])
    func outOfRangeValuesAreRejectedNamingTheField(update: ProfileUpdate, field: String) async throws {
        try await withPlanner { world in
            let error = await #expect(throws: ServiceError.self) { try await world.call(PlannerAPI.updateProfile, update) }
            #expect(error?.code == .badRequest && error?.field == field)
            let stored = try await world.call(PlannerAPI.getProfile, Empty())
            #expect(stored == .defaults, "nothing was written")
        }
    }

    @Test func unknownDietsAndAppliancesAreBadRequests() async throws {
        try await withPlanner { world in
            let diet = await #expect(throws: ServiceError.self) {
                try await world.client.call(rawUpdate, .init(diets: ["vegan", "paleo"]), user: "ada")
            }
            #expect(diet?.code == .badRequest && diet?.field == "diets.1")
            let appliance = await #expect(throws: ServiceError.self) {
                try await world.client.call(rawUpdate, .init(equipment: ["wok"]), user: "ada")
            }
            #expect(appliance?.code == .badRequest && appliance?.field == "equipment.0")
        }
    }

    @Test func unknownDislikedIngredientsAreNamedByIndex() async throws {
        try await withPlanner { world in
            let error = await #expect(throws: ServiceError.self) {
                try await world.call(PlannerAPI.updateProfile, ProfileUpdate(people: 3, dislikes: ["egg", "tomato", "unicorn"]))
            }
            #expect(error?.code == .notFound && error?.field == "dislikes.2")
            let stored = try await world.call(PlannerAPI.getProfile, Empty())
            #expect(stored.people == 2, "a rejected update writes nothing")
        }
    }

    @Test func dislikesCannotBeCheckedWhileTheCatalogIsDown() async throws {
        let planner = try PlannerService(
            configuration: {
                var configuration = ServiceConfiguration.inProcess(.planner)
                configuration.makeAbsent(.catalog)
                return configuration
            }(), logger: quietLogger("planner")
        )
        try await withRunningService(planner.host) { host in
            let client = host.client(Planner.self)
            let error = await #expect(throws: ServiceError.self) {
                try await client.call(PlannerAPI.updateProfile, ProfileUpdate(dislikes: ["egg"]), user: "ada")
            }
            #expect(error?.code == .unavailable && error?.message.contains("catalog") == true)
            // Updates that do not touch dislikes need no catalog.
            let updated = try await client.call(PlannerAPI.updateProfile, ProfileUpdate(people: 3), user: "ada")
            #expect(updated.people == 3)
        }
    }

    @Test func methodsActForAUser() async throws {
        try await withPlanner { world in
            let error = await #expect(throws: ServiceError.self) { try await world.client.call(PlannerAPI.getProfile, Empty()) }
            #expect(error?.code == .unauthorized)
        }
    }
}

/// Allergens and dislikes are switchable layers of the saved profile, like diets, equipment and
/// patience: switched off, the default search shows what they hid, and the lists are kept.
@Suite(.closesItsSockets)
struct FilterSwitchTests {
    @Test func allergensAndDislikesCanBeSwitchedOffInTheProfile() async throws {
        let stack = try StackFixture.make()
        try await withRunningServices(stack.hosts) { _ in
            let planner = stack.client(Planner.self), catalog = stack.client(Catalog.self)
            let saved = RecipeSearch(useSavedProfile: true, pageSize: 100)
            let everything = Set(try await catalog.call(CatalogAPI.searchRecipes, RecipeSearch(pageSize: 100), user: "ada").recipes.map(\.id))
            let profile = try await planner.call(PlannerAPI.updateProfile, ProfileUpdate(allergens: [.gluten], dislikes: ["eggplant"]), user: "ada")
            #expect(profile.filterAllergens && profile.filterDislikes, "on by default")
            let filtered = try await catalog.call(CatalogAPI.searchRecipes, saved, user: "ada").recipes
            #expect(filtered.allSatisfy { !$0.allergens.contains(.gluten) } && filtered.count < everything.count)
            let withEggplant = Set(try TestSeedRecipes.using("eggplant"))
            #expect(withEggplant.isDisjoint(with: filtered.map(\.id)))

            // The catalog keeps the profile it filtered by: the change reaches it as the planner's
            // event. Waited for by its content: the first update's event may be applied late.
            let applied = stack.catalog.profiles.applied.subscribe()
            let off = try await planner.call(PlannerAPI.updateProfile, ProfileUpdate(filterAllergens: false, filterDislikes: false), user: "ada")
            _ = try await firstElement(of: applied, within: .seconds(30)) { user in
                user == "ada" && stack.catalog.profiles.lastKnown(for: "ada")?.filterAllergens == false
            }
            #expect(!off.filterAllergens && !off.filterDislikes && off.allergens == [.gluten] && off.dislikes == ["eggplant"], "the lists are kept")
            #expect(try await planner.call(PlannerAPI.getProfile, Empty(), user: "ada") == off, "stored")
            let unfiltered = Set(try await catalog.call(CatalogAPI.searchRecipes, saved, user: "ada").recipes.map(\.id))
            #expect(unfiltered == everything)

            // A search can still switch a layer back on for itself.
            let onceMore = try await catalog.call(
                CatalogAPI.searchRecipes, RecipeSearch(useSavedProfile: true, switches: FilterSwitches(allergens: true), pageSize: 100), user: "ada"
            ).recipes
            #expect(onceMore.allSatisfy { !$0.allergens.contains(.gluten) })
            #expect(!withEggplant.isDisjoint(with: onceMore.map(\.id)), "dislikes stay off")
        }
    }
}

/// Seed recipes using an ingredient, read from the shipped file independently of the catalog.
enum TestSeedRecipes {
    static func using(_ ingredient: String) throws -> [String] {
        let seed = try SeedData.bundled()
        return seed.recipes.filter { $0.ingredients.contains { $0.ingredient == ingredient } }.map(\.id)
    }
}
