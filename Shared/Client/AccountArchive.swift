public import Foundation
public import SousSchema
public import SousWire

/// The archive file of `sous export` and the web app's download: everything a user keeps in the
/// five services, as JSON, instants as UTC text with their nanoseconds.
public enum ArchiveFile {
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ArchiveInstant.text(date))
        }
        return encoder
    }()

    /// Reads instants as ISO 8601 text, and as seconds since 1970 (archives written before).
    public static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            if let seconds = try? container.decode(Double.self) { return Date(timeIntervalSince1970: seconds) }
            let text = try container.decode(String.self)
            guard let date = ArchiveInstant.date(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "\(text.prefix(40)) is not an instant like 2026-03-10T18:30:00.25Z")
            }
            return date
        }
        return decoder
    }()

    /// The archive in `data`: refused (badRequest) when it is not one, or from a newer Sous, before
    /// anything is asked of a service.
    public static func read(_ data: Data, named name: String) throws -> SousArchive {
        struct Header: Decodable {
            var format: String?
            var version: Int?
        }
        guard let header = try? decoder.decode(Header.self, from: data), header.format == SousArchive.formatName, let version = header.version
        else {
            throw ServiceError.badRequest(
                "\(name) is not a Sous archive (no \"format\": \"\(SousArchive.formatName)\" and version)", field: "archive")
        }
        try ArchiveFormat.check(version)
        do {
            return try decoder.decode(SousArchive.self, from: data)
        } catch {
            let problem = ServiceError(decoding: error)
            throw ServiceError.badRequest("\(name) is not a readable Sous archive: \(problem.message)", field: problem.field.map { "archive.\($0)" })
        }
    }
}

/// The five services' clients, for what spans them all (an account's archive).
public struct SousClients: Sendable {
    public let catalog: ServiceClient<Catalog>
    public let planner: ServiceClient<Planner>
    public let groceries: ServiceClient<Groceries>
    public let tracker: ServiceClient<Tracker>
    public let notifier: ServiceClient<Notifier>

    public init(
        catalog: ServiceClient<Catalog>, planner: ServiceClient<Planner>, groceries: ServiceClient<Groceries>, tracker: ServiceClient<Tracker>,
        notifier: ServiceClient<Notifier>
    ) {
        self.catalog = catalog
        self.planner = planner
        self.groceries = groceries
        self.tracker = tracker
        self.notifier = notifier
    }
}

/// Taking everything with you: one archive from the five services, and back into an empty account.
public enum AccountArchive {
    /// Everything `user` keeps, read from each service with their session `token`. Photos
    /// travel apart, one per answer (`recipes.photo`, `journal.get`), so that no answer passes a
    /// message's 8 MiB however many a user has; the archive holds them in place.
    public static func export(_ clients: SousClients, user: String, token: String) async throws(ServiceError) -> SousArchive {
        var catalog = try await clients.catalog.call(CatalogAPI.exportArchive, Empty(), session: token)
        for index in catalog.recipes.indices where catalog.recipes[index].photo != nil {
            catalog.recipes[index].draft.photo = try await clients.catalog.call(
                CatalogAPI.photo, RecipeID(id: catalog.recipes[index].id), session: token
            ).photo
        }
        var tracker = try await clients.tracker.call(TrackerAPI.exportArchive, Empty(), session: token)
        for index in tracker.journal.indices where tracker.journal[index].entry.hasPhoto {
            tracker.journal[index].photo = try await clients.tracker.call(
                CoeliacAPI.getEntry, JournalEntryID(id: tracker.journal[index].entry.id), session: token
            ).photo
        }
        return SousArchive(
            exportedAt: Date(), user: user, catalog: catalog,
            planner: try await clients.planner.call(PlannerAPI.exportArchive, Empty(), session: token),
            groceries: try await clients.groceries.call(GroceriesAPI.exportArchive, Empty(), session: token),
            tracker: tracker,
            notifier: try await clients.notifier.call(NotifierAPI.exportArchive, Empty(), session: token))
    }

    /// What a restore wrote, and what a part that failed part-way left behind.
    public struct Restored: Sendable {
        /// Notes on recipes left out (already there, …).
        public var skipped: [String]
        /// "Imported 3 recipes, 5 planned meals, …".
        public var summary: String
    }

    /// A restore refused after some parts were written (each part is all or nothing).
    public struct PartlyRestored: Error, Sendable {
        public var done: [String]
        public var error: ServiceError
        public var message: String {
            "Imported \(done.isEmpty ? "nothing" : done.joined(separator: ", ")) before \(error.message). "
                + "Each part is all or nothing; to start again, delete the account, register, and import."
        }
    }

    /// Restores `archive` into the account of `token`, which must be empty. Every part is
    /// checked by its service first, photos by the same rules here, so a bad record or a
    /// non-empty account writes nothing; recipes keep their ids unless taken, and the plan, the
    /// list and the diary follow the new ids. Photos are sent apart, one per request, after the
    /// part they belong to, so that no request passes a message's 8 MiB.
    public static func restore(_ archive: SousArchive, into clients: SousClients, token: String) async throws -> Restored {
        let catalog = clients.catalog, planner = clients.planner, groceries = clients.groceries
        let tracker = clients.tracker, notifier = clients.notifier
        let photos = try ArchivePhotos(archive)
        _ = try await catalog.call(CatalogAPI.importArchive, CatalogArchiveImport(archive: photos.catalog, dryRun: true), session: token)
        _ = try await tracker.call(TrackerAPI.importArchive, TrackerArchiveImport(archive: photos.tracker, dryRun: true), session: token)
        _ = try await planner.call(PlannerAPI.importArchive, PlannerArchiveImport(archive: archive.planner, dryRun: true), session: token)
        _ = try await groceries.call(GroceriesAPI.importArchive, GroceriesArchiveImport(archive: archive.groceries, dryRun: true), session: token)
        _ = try await notifier.call(NotifierAPI.importArchive, NotifierArchiveImport(archive: archive.notifier, dryRun: true), session: token)

        var done: [String] = []
        do throws(ServiceError) {
            let recipes = try await catalog.call(CatalogAPI.importArchive, CatalogArchiveImport(archive: photos.catalog), session: token)
            done.append("catalog")
            for (id, photo) in photos.recipes {
                let imported = recipes.renamedRecipes[id] ?? id
                _ = try await catalog.call(CatalogAPI.editRecipe, RecipeEdit(id: imported, changes: RecipeDraft(photo: photo)), session: token)
            }
            if !photos.recipes.isEmpty { done.append("recipe photos") }
            var remappedTracker = archive.remapped(recipes: recipes.renamedRecipes, entries: [:]).tracker
            remappedTracker.journal = photos.tracker.journal
            let diary = try await tracker.call(TrackerAPI.importArchive, TrackerArchiveImport(archive: remappedTracker), session: token)
            done.append("tracker")
            let journal = Dictionary((diary.journal ?? []).map { ($0.from, $0.to) }, uniquingKeysWith: { first, _ in first })
            for (id, photo) in photos.journal {
                guard let imported = journal[id] else { throw ServiceError.internal("the tracker did not say where journal entry \(id) went") }
                _ = try await tracker.call(CoeliacAPI.editEntry, JournalEdit(id: imported, photo: photo), session: token)
            }
            if !photos.journal.isEmpty { done.append("journal photos") }
            let entries = Dictionary(diary.entries.map { ($0.from, $0.to) }, uniquingKeysWith: { first, _ in first })
            let remapped = archive.remapped(recipes: recipes.renamedRecipes, entries: entries)
            _ = try await planner.call(PlannerAPI.importArchive, PlannerArchiveImport(archive: remapped.planner), session: token)
            done.append("planner")
            _ = try await groceries.call(GroceriesAPI.importArchive, GroceriesArchiveImport(archive: remapped.groceries), session: token)
            done.append("groceries")
            _ = try await notifier.call(NotifierAPI.importArchive, NotifierArchiveImport(archive: remapped.notifier), session: token)
            done.append("notifier")
            return Restored(skipped: recipes.skipped, summary: "Imported " + contents(of: archive) + ".")
        } catch {
            throw PartlyRestored(done: done, error: error)
        }
    }

    /// "3 recipes, 5 planned meals, …": what an archive holds.
    public static func contents(of archive: SousArchive) -> String {
        "\(archive.catalog.recipes.count) recipes, \(archive.planner.slots.count) planned meals, "
            + "\(archive.groceries.recipes.count + archive.groceries.items.count) list entries, \(archive.groceries.orders.count) orders, "
            + "\(archive.tracker.entries.count) diary entries, \(archive.tracker.journal.count) journal entries, "
            + "\(archive.notifier.log.count) reminders"
    }
}

/// An archive's photos taken out of its catalog and tracker parts, to be sent one per request
/// after the part they belong to; each checked first as the service will check it.
struct ArchivePhotos {
    /// The parts without their photos' bytes; a journal entry still says how big its photo is.
    var catalog: CatalogArchive
    var tracker: TrackerArchive
    /// Recipe id in the archive → photo, and journal entry id in the archive → photo.
    var recipes: [(String, Data)] = []
    var journal: [(Int64, Data)] = []

    init(_ archive: SousArchive) throws(ServiceError) {
        catalog = archive.catalog
        tracker = archive.tracker
        for index in catalog.recipes.indices {
            guard let photo = catalog.recipes[index].draft.photo else { continue }
            _ = try ImageType.checked(photo, field: "archive.recipes.\(index).draft.photo", maxBytes: RecipeLimits.maxPhotoBytes)
            recipes.append((catalog.recipes[index].id, photo))
            catalog.recipes[index].draft.photo = nil
        }
        for index in tracker.journal.indices {
            guard let photo = tracker.journal[index].photo else { continue }
            _ = try ImageType.checked(photo, field: "archive.journal.\(index).photo", maxBytes: JournalLimits.maxPhotoBytes)
            journal.append((tracker.journal[index].entry.id, photo))
            tracker.journal[index].photo = nil
            tracker.journal[index].entry.hasPhoto = true
            tracker.journal[index].entry.photoBytes = photo.count
        }
    }
}

/// An archive's instants as people read them, `2026-03-10T18:30:00.25Z`: UTC, with the
/// nanoseconds the wire carries (no trailing zeros). Split into seconds and nanoseconds as the
/// MessagePack timestamp is, so an instant read back is the one a service sent.
enum ArchiveInstant {
    static func text(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        var seconds = interval.rounded(.down)
        var nanoseconds = ((interval - seconds) * 1_000_000_000).rounded()
        if nanoseconds >= 1_000_000_000 {
            seconds += 1
            nanoseconds -= 1_000_000_000
        }
        var text = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: seconds))
        guard nanoseconds > 0, text.hasSuffix("Z") else { return text }
        var fraction = String(Int(nanoseconds))
        fraction = String(repeating: "0", count: 9 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        text.removeLast()
        return text + "." + fraction + "Z"
    }

    static func date(_ text: String) -> Date? {
        guard text.hasSuffix("Z"), text.count <= 40 else { return nil }
        let parts = text.dropLast().split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = ISO8601DateFormatter().date(from: parts[0] + "Z") else { return nil }
        var nanoseconds = 0.0
        if parts.count == 2 {
            let digits = parts[1]
            guard (1...9).contains(digits.count), digits.allSatisfy({ ("0"..."9").contains($0) }), let value = Int(digits) else { return nil }
            nanoseconds = Double(value) * pow(10, Double(9 - digits.count))
        }
        return Date(timeIntervalSince1970: whole.timeIntervalSince1970 + nanoseconds / 1_000_000_000)
    }
}
