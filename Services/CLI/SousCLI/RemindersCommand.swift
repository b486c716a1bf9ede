import ArgumentParser
import Foundation
import Logging
import SousClient
import SousSchema
import SousWire

/// `sous reminders`: the daily reminder to log food (watch it arrive, its log, the next one).
struct RemindersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reminders",
        abstract: "Your daily reminder to log food: watch for it, see what was sent, see when the next one is due.",
        discussion: """
            The notifier reminds you at your profile's reminder hour (default 19:00) in your profile's time zone, \
            once a day, and only while you use Sous: any action in another Sous service schedules the next one. \
            Change the hour, zone or opt out with `sous profile`. `sous reminders channels` sends them to your mail, \
            an ntfy topic, a webhook or (from the web app) your browser; `sous reminders quiet` keeps them silent at night.
            """,
        subcommands: [Watch.self, List.self, Next.self, Channels.self, Quiet.self]
    )

    // MARK: watch

    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Wait for your reminders and print each as it arrives (Ctrl-C stops).",
            discussion: """
                Asks the notifier (--notifier, env SOUS_NOTIFIER_ENDPOINT) for your reminders as they are sent; \
                only yours ever reach you. With --json each reminder is one JSON object per line. --count and --timeout \
                make it return by itself (for scripts): exit 5 if --count reminders \
                did not arrive within --timeout seconds.
                """
        )

        @OptionGroup var watch: WatchOptions
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let token = try global.token
            let client = global.client(Notifier.self)
            let json = global.json
            // The cursor comes first, so a reminder sent after the "Waiting" line is never missed.
            var cursor = try await client.call(NotifierAPI.wait, ReminderWait(), session: token).cursor
            if !json { Console.current.out("Waiting for your reminders from \(global.endpoint(of: .notifier))…") }
            try await watch.run(one: "reminder", many: "reminders", verb: "arrived") { wait, wanted in
                let feed = try await client.call(
                    NotifierAPI.wait, ReminderWait(after: cursor, waitSeconds: wait), session: token,
                    timeout: .milliseconds(Int(wait * 1000) + 10_000)
                )
                cursor = feed.cursor
                let shown = feed.reminders.prefix(wanted ?? feed.reminders.count)
                for reminder in shown { try Self.print(reminder, json: json) }
                return shown.count
            }
        }

        static func print(_ reminder: Reminder, json: Bool) throws {
            if json {
                try printJSONLine(reminder)
            } else {
                Console.current.out("\(reminder.date)  \(reminder.message)")
            }
        }
    }

    // MARK: list

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show your reminder log: which days were sent, skipped (dinner already logged) or missed (notifier down).",
            discussion: "Times are shown in your profile's time zone as the notifier knows it."
        )

        @Option(help: "Newest days to show (1–365).") var limit = 30
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let client = global.client(Notifier.self)
            let token = try global.token
            let log = try await client.call(NotifierAPI.list, ReminderLogRequest(limit: limit), session: token)
            if global.json { return try printJSON(log) }
            guard !log.entries.isEmpty else { return Console.current.out("No reminders yet.") }
            let zone = try await client.call(NotifierAPI.next, Empty(), session: token).timeZone
            var table = Table([("DATE", .left), ("OUTCOME", .left), ("DUE", .left), ("KCAL", .right), ("CHANNELS", .left), ("NOTE", .left)])
            for entry in log.entries {
                let kcal = entry.kcal.map { kcal in
                    entry.kcalGoal.map { "\(number(kcal, decimals: 0)) / \(number($0, decimals: 0))" } ?? number(kcal, decimals: 0)
                }
                let deliveries = entry.deliveries ?? []
                let channels = deliveries.map { delivery in
                    "\(delivery.kind.rawValue) \(delivery.state.rawValue)" + (delivery.at.map { " " + clockTime($0, zone: zone) } ?? "")
                }
                let why = deliveries.compactMap { delivery in
                    delivery.state == .sent ? nil : delivery.reason.map { "\(delivery.kind.rawValue): \($0)" }
                }
                table.add([
                    entry.date.description, entry.outcome.rawValue, clockTime(entry.dueAt, zone: zone), kcal ?? "-",
                    channels.isEmpty ? "-" : channels.joined(separator: ", "), ([entry.reason].compactMap { $0 } + why).joined(separator: "; "),
                ])
            }
            Console.current.out(table.render())
        }
    }

    // MARK: next

    struct Next: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show when your next reminder is due, or why none is.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let next = try await global.client(Notifier.self).call(NotifierAPI.next, Empty(), session: global.token)
            if global.json { return try printJSON(next) }
            if next.status == .scheduled, let dueAt = next.dueAt, let date = next.date {
                Console.current.out("Next reminder: \(date) at \(clockTime(dueAt, zone: next.timeZone)) (\(next.timeZone)).")
            } else {
                Console.current.out("No reminder scheduled: \(next.explanation).")
            }
        }
    }
}

/// `instant` as HH:mm on the wall clock of the IANA zone `zone` (UTC if unknown).
private func clockTime(_ instant: Date, zone: String) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: zone) ?? TimeZone(identifier: "UTC")
    formatter.dateFormat = "HH:mm"
    return formatter.string(from: instant)
}
