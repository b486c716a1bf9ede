import ArgumentParser
public import Foundation
import SousClient
public import SousSchema
import SousWire

/// `sous export` and `sous import`: everything a user keeps in the five services, in one file.
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

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write everything Sous keeps for you into one archive file (recipes, plan, list, orders, diary, journal, reminders…).",
        discussion: """
            The archive is JSON (photos as base64). `sous import FILE` restores it into an empty account, here or on \
            another Sous. Your account itself (e-mail, password) is not in it.
              sous export --output sous-archive.json
            """)

    @Option(name: [.short, .long], help: "The file to write; default sous-<user>-<date>.json.") var output: String?
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let token = try global.token
        let archive = SousArchive(
            exportedAt: Date(), user: try global.account.user,
            catalog: try await global.client(Catalog.self).call(CatalogAPI.exportArchive, Empty(), session: token),
            planner: try await global.client(Planner.self).call(PlannerAPI.exportArchive, Empty(), session: token),
            groceries: try await global.client(Groceries.self).call(GroceriesAPI.exportArchive, Empty(), session: token),
            tracker: try await global.client(Tracker.self).call(TrackerAPI.exportArchive, Empty(), session: token),
            notifier: try await global.client(Notifier.self).call(NotifierAPI.exportArchive, Empty(), session: token))
        let path = output ?? "sous-\(archive.user.filter { $0.isLetter || $0.isNumber || $0 == "-" })-\(LocalDate(Date(), in: .current)).json"
        do {
            try ArchiveFile.encoder.encode(archive).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw ValidationError("could not write \(path): \(error.localizedDescription)")
        }
        Console.current.out(
            "Wrote \(path): \(archive.catalog.recipes.count) recipes, \(archive.planner.slots.count) planned meals, "
                + "\(archive.groceries.recipes.count + archive.groceries.items.count) list entries, \(archive.groceries.orders.count) orders, "
                + "\(archive.tracker.entries.count) diary entries, \(archive.tracker.journal.count) journal entries, "
                + "\(archive.notifier.log.count) reminders.")
    }
}

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Restore a `sous export` archive into your account, which must be empty.",
        discussion: """
            Every part is checked by its service first; if any is refused (a newer archive, a bad record, an \
            account that already has data), nothing is imported. Recipes keep their ids unless another recipe has \
            one; the plan, the list and the diary follow the new ids.
              sous import sous-archive.json
            """)

    @Argument(help: "The archive file.") var file: String
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let archive = try ArchiveFile.read(try readFile(file), named: file)
        let token = try global.token
        let catalog = global.client(Catalog.self), planner = global.client(Planner.self), groceries = global.client(Groceries.self)
        let tracker = global.client(Tracker.self), notifier = global.client(Notifier.self)
        // Every part checked before any is written: nothing half-imported by a bad record.
        _ = try await catalog.call(CatalogAPI.importArchive, CatalogArchiveImport(archive: archive.catalog, dryRun: true), session: token)
        _ = try await tracker.call(TrackerAPI.importArchive, TrackerArchiveImport(archive: archive.tracker, dryRun: true), session: token)
        _ = try await planner.call(PlannerAPI.importArchive, PlannerArchiveImport(archive: archive.planner, dryRun: true), session: token)
        _ = try await groceries.call(GroceriesAPI.importArchive, GroceriesArchiveImport(archive: archive.groceries, dryRun: true), session: token)
        _ = try await notifier.call(NotifierAPI.importArchive, NotifierArchiveImport(archive: archive.notifier, dryRun: true), session: token)

        var done: [String] = []
        var skipped: [String] = []
        do {
            let recipes = try await catalog.call(CatalogAPI.importArchive, CatalogArchiveImport(archive: archive.catalog), session: token)
            done.append("catalog")
            let diary = try await tracker.call(
                TrackerAPI.importArchive,
                TrackerArchiveImport(archive: archive.remapped(recipes: recipes.renamedRecipes, entries: [:]).tracker), session: token)
            done.append("tracker")
            let entries = Dictionary(diary.entries.map { ($0.from, $0.to) }, uniquingKeysWith: { first, _ in first })
            let remapped = archive.remapped(recipes: recipes.renamedRecipes, entries: entries)
            _ = try await planner.call(PlannerAPI.importArchive, PlannerArchiveImport(archive: remapped.planner), session: token)
            done.append("planner")
            _ = try await groceries.call(GroceriesAPI.importArchive, GroceriesArchiveImport(archive: remapped.groceries), session: token)
            done.append("groceries")
            _ = try await notifier.call(NotifierAPI.importArchive, NotifierArchiveImport(archive: remapped.notifier), session: token)
            done.append("notifier")
            skipped = recipes.skipped
        } catch {
            Console.current.err(
                "Imported \(done.isEmpty ? "nothing" : done.joined(separator: ", ")) before \(error.message). "
                    + "Each part is all or nothing; to start again, delete the account (sous account delete), register, and import.")
            throw error
        }
        Console.current.out(
            "Imported \(archive.catalog.recipes.count) recipes, \(archive.planner.slots.count) planned meals, "
                + "\(archive.groceries.recipes.count + archive.groceries.items.count) list entries, \(archive.groceries.orders.count) orders, "
                + "\(archive.tracker.entries.count) diary entries, \(archive.tracker.journal.count) journal entries, "
                + "\(archive.notifier.log.count) reminders from \(file).")
        for note in skipped { Console.current.out("  Note: \(note)") }
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
