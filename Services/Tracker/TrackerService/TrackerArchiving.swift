import Foundation
import GRDB
import SousRuntime
import SousSchema
import SousWire

/// The tracker's part of a user's archive: the diary, goals, drinks, saved foods, own products,
/// the coeliac journal (photos apart: the export leaves their bytes out, the client fetches each
/// with `journal.get`), gluten days and badges. An import checks every record as
/// the methods that write them do, then writes all of it in one transaction, into an account
/// that has nothing in the tracker yet.
extension TrackerStore {
    /// Every table an import must find empty for the user (own products are by `owner`).
    static let archivedTables = [
        "diary_entry", "goal", "drinks", "saved_food", "coeliac_journal_entry", "coeliac_gluten_day", "coeliac_gluten_badge",
    ]

    func archive(user: String) throws -> TrackerArchive {
        try database.read { session in
            let entries = try session.fetchAll(DiaryEntryRecord.self, #"SELECT * FROM diary_entry WHERE "user" = ? ORDER BY date, id"#, [user])
                .map(\.entry)
            let goals = try session.fetchAll(GoalRecord.self, #"SELECT * FROM goal WHERE "user" = ? ORDER BY from_date"#, [user])
                .map { ArchivedGoals(from: $0.from, goals: $0.goals) }
            let drinks = try session.rows(#"SELECT date, water, coffee FROM drinks WHERE "user" = ? ORDER BY date"#, [user]).compactMap { row in
                LocalDate(row["date"] as String).map { ArchivedDrinks(date: $0, water: row["water"], coffee: row["coffee"]) }
            }
            let foods = try session.fetchAll(SavedFoodRecord.self, #"SELECT * FROM saved_food WHERE "user" = ? ORDER BY id"#, [user]).map(\.food)
            let products = try session.fetchAll(OwnProductRecord.self, "SELECT * FROM user_product WHERE owner = ? ORDER BY code", [user])
                .map(\.product)
            let journal = try session.fetchAll(
                JournalEntryRecord.self, #"SELECT * FROM coeliac_journal_entry WHERE "user" = ? ORDER BY date, time, id"#, [user]
            )
            // Each photo travels apart (`journal.get`): two of 5 MiB would pass a message's 8 MiB.
            .map { record in JournalEntryDetail(entry: record.entry, photo: nil) }
            let gluten = try session.fetchAll(GlutenDayRecord.self, #"SELECT * FROM coeliac_gluten_day WHERE "user" = ? ORDER BY date"#, [user])
                .map(\.day)
            let badges = try session.fetchAll(
                GlutenBadgeRecord.self, #"SELECT * FROM coeliac_gluten_badge WHERE "user" = ? ORDER BY streak"#, [user]
            ).map(\.badge)
            return TrackerArchive(
                entries: entries, goals: goals, drinks: drinks, foods: foods, products: products, journal: journal, gluten: gluten, badges: badges)
        }
    }

    /// Checks `archive` (badRequest naming the field under `archive.`), then, unless `dryRun`,
    /// writes it for `user` in one transaction; conflict when the user already has data here.
    func restore(_ archive: TrackerArchive, user: String, dryRun: Bool, now: Date) throws -> ArchiveImported {
        try TrackerArchiveCheck.check(archive)
        return try database.write { session in
            try session.requireNoRows(of: user, in: Self.archivedTables, what: "a diary, goals, foods or a journal in the tracker")
            try session.requireNoRows(of: user, in: ["user_product"], column: "owner", what: "products of your own in the tracker")
            guard !dryRun else { return ArchiveImported(counts: archive.counts) }
            var renumbered: [RenumberedEntry] = []
            var journal: [RenumberedEntry] = []
            for entry in archive.entries {
                let new = NewEntry(
                    date: entry.date, meal: entry.meal, food: entry.food, grams: entry.grams, per100g: entry.per100g, source: entry.source)
                renumbered.append(
                    RenumberedEntry(from: entry.id, to: try DiaryEntryRecord.insert(new, user: user, loggedAt: entry.loggedAt, session)))
            }
            for change in archive.goals { try session.insert(GoalRecord(user: user, from: change.from, goals: change.goals)) }
            for day in archive.drinks {
                try session.execute(
                    #"INSERT INTO drinks ("user", date, water, coffee) VALUES (?, ?, ?, ?)"#, [user, day.date.description, day.water, day.coffee])
            }
            for food in archive.foods { _ = try SavedFoodRecord.insert(food, user: user, session) }
            for product in archive.products { try session.insert(OwnProductRecord(owner: user, product: product)) }
            for item in archive.journal {
                var entry = item.entry
                entry.photoBytes = item.photo?.count ?? 0
                entry.hasPhoto = item.photo != nil
                let id = try JournalEntryRecord.insert(entry, user: user, session)
                journal.append(RenumberedEntry(from: item.entry.id, to: id))
                if let photo = item.photo {
                    try session.execute("INSERT INTO coeliac_journal_photo (entry_id, bytes) VALUES (?, ?)", [id, photo])
                }
            }
            for day in archive.gluten {
                try session.execute(
                    """
                    INSERT INTO coeliac_gluten_day ("user", date, expects_gluten, predicted_at, positive, result_at) VALUES (?, ?, ?, ?, ?, ?)
                    """,
                    [
                        user, day.date.description, day.expectsGluten, day.expectsGluten == nil ? nil : now.timeIntervalSince1970, day.positive,
                        day.positive == nil ? nil : now.timeIntervalSince1970,
                    ])
            }
            for badge in archive.badges { try session.insert(GlutenBadgeRecord(user: user, badge: badge, earnedAt: now)) }
            return ArchiveImported(counts: archive.counts, entries: renumbered, journal: journal)
        }
    }
}

extension TrackerHandlers {
    func exportArchive(_ request: Empty, user: String, context: RequestContext) throws -> TrackerArchive {
        try store.archive(user: user)
    }

    func importArchive(_ request: TrackerArchiveImport, user: String, context: RequestContext) throws -> ArchiveImported {
        try store.restore(request.archive, user: user, dryRun: request.dryRun ?? false, now: host.clock.now)
    }
}

extension TrackerArchive {
    var counts: [String: Int] {
        [
            "entries": entries.count, "goals": goals.count, "drinks": drinks.count, "foods": foods.count, "products": products.count,
            "journal": journal.count, "gluten": gluten.count, "badges": badges.count,
        ]
    }
}

/// The checks of a tracker archive: each record as the method that writes it checks it, and the
/// quotas, with the field path under `archive.`.
enum TrackerArchiveCheck {
    static func check(_ archive: TrackerArchive) throws(ServiceError) {
        try ArchiveFormat.check(archive.version)
        var perDay: [LocalDate: Int] = [:]
        for (index, entry) in archive.entries.enumerated() {
            let field = "archive.entries.\(index)"
            _ = try TrackerValidation.name(entry.food, field: "\(field).food")
            try TrackerValidation.grams(entry.grams, field: "\(field).grams")
            try TrackerValidation.macros(entry.per100g, field: "\(field).per100g")
            perDay[entry.date, default: 0] += 1
            try TrackerQuotas.diaryEntriesPerDay.check(current: perDay[entry.date, default: 0] - 1)
        }
        try unique(archive.goals.map(\.from), field: "archive.goals")
        for (index, change) in archive.goals.enumerated() { try TrackerValidation.goals(change.goals, field: "archive.goals.\(index).goals") }
        try unique(archive.drinks.map(\.date), field: "archive.drinks")
        // drinks.change has no ceiling of its own; this one only keeps the numbers sane.
        for (index, day) in archive.drinks.enumerated() where !(0...10_000).contains(day.water) || !(0...10_000).contains(day.coffee) {
            throw .badRequest("water and coffee are 0 to 10000 a day", field: "archive.drinks.\(index)")
        }
        try TrackerQuotas.savedFoods.check(current: 0, adding: archive.foods.count)
        for (index, food) in archive.foods.enumerated() {
            _ = try TrackerValidation.name(food.name, field: "archive.foods.\(index).name")
            try TrackerValidation.grams(food.grams, field: "archive.foods.\(index).grams")
            try TrackerValidation.macros(food.per100g, field: "archive.foods.\(index).per100g")
        }
        try TrackerQuotas.ownProducts.check(current: 0, adding: archive.products.count)
        try unique(archive.products.map(\.code), field: "archive.products")
        for (index, product) in archive.products.enumerated() { try TrackerValidation.product(product, field: "archive.products.\(index)") }
        var journalPerDay: [LocalDate: Int] = [:]
        var photoBytes = 0
        for (index, item) in archive.journal.enumerated() {
            let field = "archive.journal.\(index)"
            do {
                _ = try CoeliacValidation.title(item.entry.title)
                _ = try CoeliacValidation.description(item.entry.description)
                if let photo = item.photo { _ = try CoeliacValidation.photo(photo) }
            } catch {
                throw error.nested(under: field)
            }
            journalPerDay[item.entry.date, default: 0] += 1
            try TrackerQuotas.journalEntriesPerDay.check(current: journalPerDay[item.entry.date, default: 0] - 1)
            // A photo to be attached after the import counts as the size its entry declares.
            let bytes = item.photo?.count ?? (item.entry.hasPhoto ? max(item.entry.photoBytes, 0) : 0)
            try TrackerQuotas.photoBytes.check(current: photoBytes, adding: bytes)
            photoBytes += bytes
        }
        try unique(archive.gluten.map(\.date), field: "archive.gluten")
        for (index, badge) in archive.badges.enumerated() where !GlutenBadge.thresholds.contains(badge.streak) {
            throw .badRequest(
                "a badge is for a streak of \(GlutenBadge.thresholds.map(String.init).joined(separator: ", "))", field: "archive.badges.\(index)")
        }
        try unique(archive.badges.map(\.streak), field: "archive.badges")
    }

    /// badRequest naming the second of two equal keys.
    static func unique<Key: Hashable>(_ keys: [Key], field: String) throws(ServiceError) {
        var seen: Set<Key> = []
        for (index, key) in keys.enumerated() where !seen.insert(key).inserted {
            throw .badRequest("\(key) is in the archive twice", field: "\(field).\(index)")
        }
    }
}
