import ArgumentParser
import Foundation
import SousClient
import SousSchema
import SousWire

/// `sous journal`: the coeliac food diary (what you ate and how it went, with photos).
struct JournalCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "journal",
        abstract: "Keep a coeliac food diary: entries with a title, notes and a photo per day.",
        discussion: """
            Dates are YYYY-MM-DD and times HH:MM (24-hour), on your own clock: when left out they are \
            now in the time zone of your cooking profile (UTC if the planner cannot be reached). \
            Photos are image files of at most 5 MiB.
            """,
        subcommands: [Add.self, List.self, Show.self, Edit.self, Delete.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an entry.", discussion: "Example: sous journal add \"Lunch at Mario's\" --description \"GF pizza\" --photo pizza.jpg")

        @Argument(help: "What the entry is about (required).") var title: String
        @Option(help: "Notes: what was in it, how you felt.") var description: String?
        @Option(help: "An image file to attach (at most 5 MiB).") var photo: String?
        @Option(help: "The day, YYYY-MM-DD (default: today).") var date: String?
        @Option(help: "The time, HH:MM (default: now).") var time: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let draft = JournalEntryDraft(
                title: title, description: description, photo: try photo.map(readPhoto),
                date: try date.map { try parseJournalDate($0, option: "date") }, time: try time.map(parseJournalTime)
            )
            let entry = try await global.client(Tracker.self).call(CoeliacAPI.addEntry, draft, session: global.token)
            if global.json { return try printJSON(entry) }
            Console.current.out("Added entry \(entry.id) on \(entry.date) at \(entry.time): \(entry.title)\(entry.hasPhoto ? " (with photo)" : "")")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List entries of a day (default today) or of --from … --to.")

        @Option(help: "One day, YYYY-MM-DD.") var date: String?
        @Option(help: "First day of a range, YYYY-MM-DD (with --to; at most 366 days).") var from: String?
        @Option(help: "Last day of a range, YYYY-MM-DD.") var to: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let query = JournalQuery(
                date: try date.map { try parseJournalDate($0, option: "date") },
                from: try from.map { try parseJournalDate($0, option: "from") },
                to: try to.map { try parseJournalDate($0, option: "to") }
            )
            let list = try await global.client(Tracker.self).call(CoeliacAPI.listEntries, query, session: global.token)
            if global.json { return try printJSON(list) }
            let span = list.from == list.to ? "\(list.from)" : "\(list.from) – \(list.to)"
            guard !list.entries.isEmpty else { return Console.current.out("No journal entries for \(span).") }
            var table = Table([("id", .right), ("date", .left), ("time", .left), ("title", .left), ("photo", .left), ("notes", .left)])
            for entry in list.entries {
                table.add([
                    "\(entry.id)", "\(entry.date)", "\(entry.time)", entry.title.truncated(40), entry.hasPhoto ? photoSize(entry.photoBytes) : "",
                    (entry.description ?? "").replacingOccurrences(of: "\n", with: " ").truncated(50),
                ])
            }
            Console.current.out(table.render())
            Console.current.out("\n\(list.entries.count) \(list.entries.count == 1 ? "entry" : "entries") for \(span)")
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one entry; --save-photo writes its photo to a file.")

        @Argument(help: "Entry id (see `sous journal list`).") var id: Int64
        @Option(help: "Write the entry's photo to this file.") var savePhoto: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let detail = try await global.client(Tracker.self).call(CoeliacAPI.getEntry, JournalEntryID(id: id), session: global.token)
            if let savePhoto {
                guard let photo = detail.photo else { throw ValidationError("entry \(id) has no photo") }
                do {
                    try photo.write(to: URL(fileURLWithPath: savePhoto))
                } catch {
                    throw ValidationError("cannot write \(savePhoto): \(error.localizedDescription)")
                }
            }
            // JSON leaves the image bytes out: base64 megabytes help nobody on a terminal.
            if global.json { return try printJSON(detail.entry) }
            let entry = detail.entry
            Console.current.out("\(entry.title)\n\(entry.date) at \(entry.time)  (entry \(entry.id))")
            if let description = entry.description { Console.current.out("\n\(description)") }
            if entry.hasPhoto {
                Console.current.out(
                    "\nPhoto: \(photoSize(entry.photoBytes))\(savePhoto.map { ", saved to \($0)" } ?? " (use --save-photo FILE to get it)")")
            }
        }
    }

    struct Edit: AsyncParsableCommand, FlagsForFields {
        static let configuration = CommandConfiguration(abstract: "Change an entry; options left out stay as they are.")

        @Argument(help: "Entry id.") var id: Int64
        @Option(help: "New title.") var title: String?
        @Option(help: "New notes (\"\" removes them).") var description: String?
        @Option(help: "Replace the photo with this image file (at most 5 MiB).") var photo: String?
        @Flag(help: "Remove the photo.") var removePhoto = false
        @Option(help: "Move to this day, YYYY-MM-DD.") var date: String?
        @Option(help: "New time, HH:MM.") var time: String?
        @OptionGroup var global: GlobalOptions

        static let flagsForFields = ["removePhoto": "--remove-photo"]

        func run() async throws {
            let edit = JournalEdit(
                id: id, title: title, description: description, photo: try photo.map(readPhoto), removePhoto: removePhoto ? true : nil,
                date: try date.map { try parseJournalDate($0, option: "date") }, time: try time.map(parseJournalTime)
            )
            let entry = try await global.client(Tracker.self).call(CoeliacAPI.editEntry, edit, session: global.token)
            if global.json { return try printJSON(entry) }
            Console.current.out("Updated entry \(entry.id) on \(entry.date) at \(entry.time): \(entry.title)\(entry.hasPhoto ? " (with photo)" : "")")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete an entry and its photo.")

        @Argument(help: "Entry id.") var id: Int64
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.client(Tracker.self).call(CoeliacAPI.deleteEntry, JournalEntryID(id: id), session: global.token)
            if global.json { return try printJSON(["deleted": id]) }
            Console.current.out("Deleted entry \(id).")
        }
    }
}

/// A YYYY-MM-DD option, or a usage error naming it.
func parseJournalDate(_ text: String, option: String) throws -> LocalDate {
    guard let date = LocalDate(text) else { throw ValidationError("--\(option) must be a date in the form YYYY-MM-DD, not \"\(text)\"") }
    return date
}

private func parseJournalTime(_ text: String) throws -> TimeOfDay {
    guard let time = TimeOfDay(text) else { throw ValidationError("--time must be a time in the form HH:MM, not \"\(text)\"") }
    return time
}

/// The photo file's bytes (a journal entry's or a recipe's: both keep at most 5 MiB). A file
/// over the limit is refused here, with the service's own error, because a much larger one would
/// not even fit in a message.
func readPhoto(_ path: String) throws -> Data {
    let data: Data
    do {
        data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
        throw ValidationError("cannot read \(path): \(error.localizedDescription)")
    }
    guard data.count <= JournalLimits.maxPhotoBytes else {
        throw ServiceError.badRequest("\(path) is \(photoSize(data.count)); photos can be at most 5 MiB", field: "photo")
    }
    return data
}

func photoSize(_ bytes: Int) -> String {
    bytes >= 1024 * 1024 ? String(format: "%.1f MiB", Double(bytes) / 1_048_576) : bytes >= 1024 ? "\(bytes / 1024) KiB" : "\(bytes) B"
}
