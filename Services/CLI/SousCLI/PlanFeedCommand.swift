import ArgumentParser
import Foundation
import SousClient
import SousSchema
import SousWire

/// `sous plan feed …`: the week as a calendar your calendar app subscribes to.
struct PlanFeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feed",
        abstract: "A private address your calendar app subscribes to: your household's week, kept current.",
        discussion: """
            The web app serves the address at /calendar/SECRET.ics. Anyone with it can read the week and nothing \
            else; the secret is shown once. A new password stops it.
              sous plan feed on          (a new address; the old one stops working)
              sous plan feed off
            """,
        subcommands: [Show.self, On.self, Off.self, Read.self],
        defaultSubcommand: Show.self
    )

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Whether you have a calendar address, and since when.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let feed = try await global.client(Planner.self).call(PlannerAPI.feed, Empty(), session: global.token)
            if global.json { return try printJSON(feed) }
            guard feed.active, let created = feed.createdAt else {
                return Console.current.out("No calendar address. `sous plan feed on` makes one.")
            }
            Console.current.out("A calendar address is on since \(created.formatted(.iso8601)). `sous plan feed on` replaces it, `off` stops it.")
        }
    }

    struct On: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a calendar address (replacing the one you had).")
        @Option(help: "Where people open the web app (default: $SOUS_WEB_URL), to print the whole address.") var webURL: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let feed = try await global.client(Planner.self).call(PlannerAPI.setFeed, FeedSetting(on: true), session: global.token)
            if global.json { return try printJSON(feed) }
            guard let token = feed.token else { throw ServiceError(.internal, "the planner made no address") }
            if let base = (webURL ?? ProcessInfo.processInfo.environment["SOUS_WEB_URL"]).flatMap({ $0.isEmpty ? nil : $0 }) {
                Console.current.out("Your calendar address (shown once): \(CalendarFeed.address(token: token, at: base))")
            } else {
                Console.current.out("Your calendar address (shown once) is the web app's address followed by /calendar/\(token).ics")
            }
        }
    }

    struct Off: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop your calendar address.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let feed = try await global.client(Planner.self).call(PlannerAPI.setFeed, FeedSetting(on: false), session: global.token)
            if global.json { return try printJSON(feed) }
            Console.current.out("Your calendar address no longer works.")
        }
    }

    struct Read: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the calendar an address serves, as a calendar app reads it (no sign-in needed).")
        @Argument(help: "The address, or its secret.") var address: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            var secret = Substring(address)
            if let slash = secret.lastIndex(of: "/") { secret = secret[secret.index(after: slash)...] }
            if secret.hasSuffix(".ics") { secret = secret.dropLast(4) }
            let export = try await global.client(Planner.self).call(PlannerAPI.feedCalendar, FeedRead(token: String(secret)))
            if global.json { return try printJSON(export) }
            Console.current.out(export.calendar, terminator: "")
        }
    }
}
