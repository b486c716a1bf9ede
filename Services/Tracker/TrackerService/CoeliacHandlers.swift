import Foundation
import Logging
import SousRuntime
import SousSchema
import SousWire

/// The coeliac diary's methods, served by the tracker: validate everything, write in one
/// transaction, then publish the event (the runtime records activity).
struct CoeliacHandlers: Sendable {
    let host: HostParts
    let database: SousDatabase
    private let store: CoeliacStore
    /// Read for the user's time zone when a request leaves its date or time to "now".
    private let zones: UserTimeZones

    init(host: HostParts, database: SousDatabase, zones: UserTimeZones) {
        self.host = host
        self.database = database
        store = CoeliacStore(database: database)
        self.zones = zones
    }

    /// The route table: every method of the coeliac diary and the function that answers it.
    func register(on server: RPCServer) {
        server.register(CoeliacAPI.addEntry, use: addEntry)
        server.register(CoeliacAPI.listEntries, use: listEntries)
        server.register(CoeliacAPI.getEntry, use: getEntry)
        server.register(CoeliacAPI.editEntry, use: editEntry)
        server.register(CoeliacAPI.deleteEntry, use: deleteEntry)
        server.register(CoeliacAPI.predict, use: predict)
        server.register(CoeliacAPI.recordResult, use: recordResult)
        server.register(CoeliacAPI.deleteResult, use: deleteResult)
        server.register(CoeliacAPI.stats, use: stats)
        server.register(CoeliacAPI.calendar, use: calendar)
    }

    // MARK: Journal

    func addEntry(_ request: JournalEntryDraft, user: String, context: RequestContext) async throws -> JournalEntry {
        let now = host.clock.now
        let valid = try await CoeliacValidation.entry(request) {
            let zone = await timeZone(of: user, context: context)
            return (LocalDate(now, in: zone), TimeOfDay(now, in: zone))
        }
        if let date = request.date { try await check(date, .happened, user: user, context: context) }
        let entry = try store.addEntry(valid, user: user, now: now)
        host.publisher.publish(CoeliacTopics.journalChanged, JournalEvent(user: user, entry: entry.id, date: entry.date, change: .added))
        return entry
    }

    func listEntries(_ request: JournalQuery, user: String, context: RequestContext) async throws -> JournalList {
        let range = try await CoeliacValidation.range(request) { await today(of: user, context: context) }
        let entries = try store.entries(user: user, from: range.from, to: range.to)
        return JournalList(from: range.from, to: range.to, entries: entries)
    }

    func getEntry(_ request: JournalEntryID, user: String, context: RequestContext) throws -> JournalEntryDetail {
        let detail = try store.entryDetail(request.id, user: user)
        return detail
    }

    func editEntry(_ request: JournalEdit, user: String, context: RequestContext) async throws -> JournalEntry {
        let changes = try CoeliacValidation.edit(request)
        if let date = request.date { try await check(date, .happened, user: user, context: context) }
        let (before, after) = try store.edit(request.id, changes: changes, user: user, now: host.clock.now)
        host.publisher.publish(CoeliacTopics.journalChanged, JournalEvent(user: user, entry: after.id, date: after.date, change: .edited))
        if before.date != after.date {
            // Subscribers keeping a day's view fresh learn that the old day lost the entry too.
            host.publisher.publish(CoeliacTopics.journalChanged, JournalEvent(user: user, entry: before.id, date: before.date, change: .deleted))
        }
        return after
    }

    func deleteEntry(_ request: JournalEntryID, user: String, context: RequestContext) throws -> Empty {
        let deleted = try store.deleteEntry(request.id, user: user)
        host.publisher.publish(CoeliacTopics.journalChanged, JournalEvent(user: user, entry: deleted.id, date: deleted.date, change: .deleted))
        return Empty()
    }

    // MARK: Gluten tests

    func predict(_ request: GlutenPredictionRequest, user: String, context: RequestContext) async throws -> GlutenDay {
        let date = if let date = request.date { date } else { await today(of: user, context: context) }
        if request.date != nil { try await check(date, .planned, user: user, context: context) }
        let day = try store.predict(date, expectsGluten: request.expectsGluten, user: user, now: host.clock.now)
        host.publisher.publish(CoeliacTopics.glutenRecorded, GlutenEvent(user: user, day: day))
        return day
    }

    func recordResult(_ request: GlutenResultRequest, user: String, context: RequestContext) async throws -> GlutenResultRecorded {
        let date = if let date = request.date { date } else { await today(of: user, context: context) }
        if request.date != nil { try await check(date, .happened, user: user, context: context) }
        let recorded = try store.recordResult(
            date, positive: request.positive, replace: request.replace ?? false, user: user, now: host.clock.now)
        host.publisher.publish(CoeliacTopics.glutenRecorded, GlutenEvent(user: user, day: recorded.day))
        for badge in recorded.newBadges {
            host.publisher.publish(CoeliacTopics.badgeEarned, GlutenEvent(user: user, day: recorded.day, badge: badge))
        }
        return recorded
    }

    func deleteResult(_ request: GlutenResultRemoval, user: String, context: RequestContext) throws -> GlutenDay {
        let day = try store.deleteResult(request.date, user: user)
        host.publisher.publish(CoeliacTopics.glutenRecorded, GlutenEvent(user: user, day: day))
        return day
    }

    func stats(_ request: Empty, user: String, context: RequestContext) throws -> GlutenStats {
        let (history, badges) = try store.statsInputs(user: user)
        return GlutenScoring.stats(history, earned: badges)
    }

    func calendar(_ request: GlutenCalendarRequest, user: String, context: RequestContext) async throws -> GlutenCalendar {
        let (year, month) = try await CoeliacValidation.month(request) { await today(of: user, context: context) }
        guard let first = LocalDate(year: year, month: month, day: 1) else {
            throw ServiceError.badRequest("\(year)-\(month) is not a month", field: "month")
        }
        let history = try store.history(user: user, from: first, to: first.lastOfMonth)
        guard let calendar = GlutenScoring.calendar(year: year, month: month, history: history) else {
            throw ServiceError.badRequest("\(year)-\(month) is not a month", field: "month")
        }
        return calendar
    }

    // MARK: Dates and time zones

    /// A date a request names, checked against the plausibility window.
    private func check(_ date: LocalDate, _ kind: DateWindow.Kind, user: String, context: RequestContext) async throws {
        try await DateWindow.check(date, kind, field: "date", now: host.clock.now) { await today(of: user, context: context) }
    }

    /// Today in the user's time zone, by the service clock.
    private func today(of user: String, context: RequestContext) async -> LocalDate {
        LocalDate(host.clock.now, in: await timeZone(of: user, context: context))
    }

    /// The user's time zone (``UserTimeZones``).
    private func timeZone(of user: String, context: RequestContext) async -> TimeZone {
        await zones.zone(of: user, context: context).zone
    }
}
