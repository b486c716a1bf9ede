import Foundation
import GRDB
import PlannerService
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing

/// Whatever changes the plan, and however, the week `plan.get` answers is the one the database
/// holds now.
@Suite(.closesItsSockets)
struct KeptWeekTests {
    /// The week `plan.get` answers, checked against one read from the database with nothing kept.
    func currentWeek(_ world: PlannerWorld, user: String = "ada") async throws -> WeekPlan {
        let answered = try await world.call(PlannerAPI.getPlan, Empty(), user: user)
        #expect(answered == (try world.planner.store.week(member: .alone(user), now: world.clock.now)))
        return answered
    }

    func slot(_ week: WeekPlan, _ date: String, _ number: Int) -> PlanSlot? {
        week.days.first { $0.date == localDate(date) }?.slots.first { $0.slot == number }
    }

    @Test func everyKindOfChangeIsInTheNextWeekRead() async throws {
        try await withPlanner { world in
            var week = try await currentWeek(world)
            #expect(slot(week, "2026-03-11", 1)?.recipe == nil)
            // Read twice with nothing between: the kept week.
            #expect(try await currentWeek(world) == week)

            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-11"), slot: 1, recipe: soup))
            week = try await currentWeek(world)
            #expect(slot(week, "2026-03-11", 1)?.recipe == soup)
            #expect(week.selection.map(\.id) == [soup])

            _ = try await world.call(
                PlannerAPI.moveSlot,
                SlotMove(from: SlotRef(date: localDate("2026-03-11"), slot: 1), to: SlotRef(date: localDate("2026-03-12"), slot: 2)))
            week = try await currentWeek(world)
            #expect(slot(week, "2026-03-11", 1)?.recipe == nil)
            #expect(slot(week, "2026-03-12", 2)?.recipe == soup)

            _ = try await world.call(PlannerAPI.addRecipe, RecipeID(id: gazpacho))
            week = try await currentWeek(world)
            #expect(week.selection.map(\.id) == [soup, gazpacho])

            _ = try await world.call(PlannerAPI.clearSlot, SlotRef(date: localDate("2026-03-12"), slot: 2))
            week = try await currentWeek(world)
            #expect(slot(week, "2026-03-12", 2)?.recipe == nil)
            #expect(week.selection.first { $0.id == soup }?.plannedSlots == 0)

            _ = try await world.call(PlannerAPI.removeRecipe, RecipeID(id: gazpacho))
            #expect(try await currentWeek(world).selection.map(\.id) == [soup])

            // The profile's time zone moves today: Auckland is already on Wednesday.
            _ = try await world.call(PlannerAPI.updateProfile, ProfileUpdate(timeZone: "Pacific/Auckland"))
            week = try await currentWeek(world)
            #expect(week.timeZone == "Pacific/Auckland")
            #expect(week.today == localDate("2026-03-10"))
            _ = try await world.call(PlannerAPI.resetProfile, Empty())
            week = try await currentWeek(world)
            #expect(week.timeZone == CookingProfile.defaults.timeZone)
        }
    }

    /// Today moves at midnight with no write at all: the kept week is not served past its day.
    @Test func theWeekRollsOverWithoutAWrite() async throws {
        try await withPlanner { world in
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-10"), slot: 2, recipe: soup))
            let tuesday = try await currentWeek(world)
            #expect(tuesday.today == localDate("2026-03-10"))
            _ = world.clock.advance(by: 24 * 3600)
            let wednesday = try await currentWeek(world)
            #expect(wednesday.today == localDate("2026-03-11"))
            #expect(wednesday.days.first?.date == localDate("2026-03-11"))
            #expect(wednesday.selection.first?.plannedSlots == 0)
        }
    }

    /// The version is raised by the database itself: a statement no store method makes, and a
    /// second store on the same database (another replica), are seen at once; on a file, so is
    /// a write through another connection while the I/O thread serves the week by its stamp.
    @Test(arguments: [false, true])
    func aChangeMadeAnywhereInTheDatabaseIsSeen(onFile: Bool) async throws {
        try await withPlanner(onFile: onFile) { world in
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-10"), slot: 1, recipe: soup))
            let database = world.planner.store.database
            let replica = PlannerStore(database: database)
            #expect(try replica.week(member: .alone("ada"), now: world.clock.now) == (try await currentWeek(world)))

            try database.write { session in
                _ = try session.execute(#"UPDATE slot SET recipe_name = 'Soup of the day' WHERE household = ?"#, ["ada"])
            }
            #expect(slot(try await currentWeek(world), "2026-03-10", 1)?.recipeName == "Soup of the day")

            _ = try await world.call(PlannerAPI.clearSlot, SlotRef(date: localDate("2026-03-10"), slot: 1))
            #expect(slot(try replica.week(member: .alone("ada"), now: world.clock.now), "2026-03-10", 1)?.recipe == nil)

            guard onFile, database.engine == .sqlite else { return }
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-11"), slot: 2, recipe: soup))
            let week = try await currentWeek(world)
            #expect(try await currentWeek(world) == week)
            let outside = try DatabaseQueue(path: database.path)
            try await outside.write { db in
                try db.execute(sql: #"UPDATE slot SET recipe_name = 'Soup by hand' WHERE household = ?"#, arguments: ["ada"])
            }
            #expect(slot(try await currentWeek(world), "2026-03-11", 2)?.recipeName == "Soup by hand")
        }
    }

    /// Erasing a household that nobody belongs to any more empties its plan; the person's
    /// profile stays theirs, and a new plan starts from nothing.
    @Test func erasingAHouseholdEmptiesItsPlan() async throws {
        try await withPlanner { world in
            let database = world.planner.store.database
            _ = try await world.call(PlannerAPI.putSlot, SlotAssignment(date: localDate("2026-03-10"), slot: 1, recipe: soup))
            #expect(try await currentWeek(world).selection.map(\.id) == [soup])
            let erased = try database.eraseHousehold("ada")
            #expect(erased["slot"] == 1 && erased["selection"] == 1)
            #expect(try await currentWeek(world).selection.isEmpty)
            _ = try await world.call(PlannerAPI.addRecipe, RecipeID(id: soup))
            #expect(try await currentWeek(world).selection.map(\.id) == [soup])
        }
    }
}
