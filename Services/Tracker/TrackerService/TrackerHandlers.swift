import Foundation
import Logging
import SousRuntime
import SousSchema
import SousWire

/// The tracker's methods: validate, resolve the day, call the store, publish events (the runtime records activity).
struct TrackerHandlers: Sendable {
    let host: HostParts
    let store: TrackerStore
    let catalog: Peer<Catalog>
    let zones: UserTimeZones
    /// Where unknown barcodes are looked up (when the settings allow).
    let openFoodFacts: OpenFoodFacts

    var clock: WallClock { host.clock }

    /// The route table: every method the tracker serves and the function that answers it
    /// (the functions are in TrackerHandlers+Diary, +DrinksAndGoals, +Foods and +Products).
    func register(on server: RPCServer) {
        server.register(TrackerAPI.addEntry, use: addEntry)
        server.register(TrackerAPI.logRecipeServing, use: logRecipeServing)
        server.register(TrackerAPI.editEntry, use: editEntry)
        server.register(TrackerAPI.deleteEntry, use: deleteEntry)
        server.register(TrackerAPI.listEntries, use: listEntries)
        server.register(TrackerAPI.summary, use: summary)
        server.register(TrackerAPI.diaryStatus, use: diaryStatus)
        server.register(TrackerAPI.diaryStatuses, use: diaryStatuses)
        server.register(TrackerAPI.history, use: history)
        server.register(TrackerAPI.analysis, use: analysis)
        server.register(TrackerAPI.yesterday, use: yesterday)
        server.register(TrackerAPI.export, use: export)
        server.register(TrackerAPI.changeDrink, use: changeDrink)
        server.register(TrackerAPI.drinks, use: drinks)
        server.register(TrackerAPI.goals, use: goals)
        server.register(TrackerAPI.setGoals, use: setGoals)
        server.register(TrackerAPI.presets, use: presets)
        server.register(TrackerAPI.createFood, use: createFood)
        server.register(TrackerAPI.editFood, use: editFood)
        server.register(TrackerAPI.deleteFood, use: deleteFood)
        server.register(TrackerAPI.listFoods, use: listFoods)
        server.register(TrackerAPI.logFood, use: logFood)
        server.register(TrackerAPI.product, use: product)
        server.register(TrackerAPI.addProduct, use: addProduct)
        server.register(TrackerAPI.importProducts, use: importProducts)
        server.register(TrackerAPI.exportArchive, use: exportArchive)
        server.register(TrackerAPI.importArchive, use: importArchive)
        registerProgress(on: server)
    }

    // MARK: Shared helpers

    /// Calls the catalog: an unknown (or malformed) id becomes notFound naming `field`.
    func askCatalog<Request, Response>(
        _ method: Method<Catalog, Request, Response>, _ request: Request, user: String, what: String, field: String, context: RequestContext
    ) async throws -> Response {
        do {
            return try await catalog.call(method, request, user: user, for: context)
        } catch {
            guard error.code == .notFound || error.code == .badRequest else { throw error }
            throw ServiceError.notFound("no \(what) in the catalog", field: field)
        }
    }

    func logged(_ entry: DiaryEntry, user: String) {
        host.publisher.publish(TrackerTopics.entryLogged, DiaryEntryEvent(user: user, entry: entry.id, date: entry.date, meal: entry.meal))
    }

    /// The request's date, or today in the user's time zone (``UserTimeZones``; the reply
    /// carries its note when that is not the profile's).
    func day(_ date: LocalDate?, user: String, context: RequestContext) async throws -> ResolvedDay {
        if let date { return ResolvedDay(date: date, timeZone: nil) }
        let resolved = await zones.zone(of: user, context: context)
        return ResolvedDay(date: LocalDate(clock.now, in: resolved.zone), timeZone: resolved.name, note: resolved.note)
    }

    /// The date a write records on: the one it names, checked against the plausibility window
    /// (docs/PROTOCOL.md, "Dates"), or today in the user's time zone.
    func recordedDay(
        _ date: LocalDate?, _ kind: DateWindow.Kind, field: String = "date", user: String, context: RequestContext
    ) async throws -> LocalDate {
        guard let date else { return try await day(nil, user: user, context: context).date }
        try await DateWindow.check(date, kind, field: field, now: clock.now) {
            (try? await day(nil, user: user, context: context).date) ?? LocalDate(clock.now, in: .gmt)
        }
        return date
    }
}
