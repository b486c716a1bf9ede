import ArgumentParser
import Foundation
import SousCLI
import SousRuntime
import SousServiceTesting
import SousTestSupport
import SousWire
import Testing

/// What `sous` says when something is wrong, and its help screens: in the CLI's own words.
@Suite(.closesItsSockets)
struct CLIMessagesTests {
    /// 2026-03-10 10:00 UTC, a Tuesday.
    static let now = ISO8601DateFormatter().date(from: "2026-03-10T10:00:00Z")!

    /// Runs the five services on a manual clock and passes `sous` the flags that reach them as "ada".
    func withServices(_ body: (_ flags: [String]) async throws -> Void) async throws {
        let stack = try StackFixture.make(clock: .manual(at: Self.now))
        try await withRunningServices(stack.hosts) { _ in
            var flags = ["--user", "ada"]
            for host in stack.hosts { flags += ["--\(host.name)", host.boundEndpoints.requests] }
            try await body(flags)
        }
    }

    /// A service error about a request field names the option that filled it (it named
    /// `weeklyBudget` for `--budget` and said "send replace: true" for `--replace`).
    @Test func serviceErrorsNameTheCommandsOptions() async throws {
        try await withServices { flags in
            let budget = await sous(["plan", "fill", "--budget", "0"] + flags)
            #expect(budget.code == 4 && budget.err.contains("--budget must be more than 0"), "\(budget.err)")
            #expect(!budget.err.contains("weeklyBudget"), "\(budget.err)")
            let kcal = await sous(["plan", "fill", "--kcal", "900-100"] + flags)
            #expect(kcal.code == 4 && kcal.err.contains("--kcal must be") && !kcal.err.contains("dailyKcal"), "\(kcal.err)")
            let repeats = await sous(["plan", "fill", "--no-repeat-days", "40"] + flags)
            #expect(repeats.code == 4 && repeats.err.contains("--no-repeat-days must be 0 to 28"), "\(repeats.err)")
            #expect(!repeats.err.contains("noRepeatDays"), "\(repeats.err)")

            #expect(await sous(["gluten", "result", "positive", "--date", "2026-03-09"] + flags).code == 0)
            let twice = await sous(["gluten", "result", "negative", "--date", "2026-03-09"] + flags)
            #expect(twice.code == 7 && twice.err.contains("use --replace to correct it"), "\(twice.err)")
            #expect(!twice.err.contains("replace: true"), "\(twice.err)")

            // A field the message does not name gets the option after it.
            let hour = await sous(["profile", "set", "--reminder-hour", "30"] + flags)
            #expect(hour.code == 4 && hour.err.contains("(option: --reminder-hour)") && !hour.err.contains("reminderHour"), "\(hour.err)")
            let page = await sous(["recipes", "search", "--page-size", "500"] + flags)
            #expect(page.code == 4 && page.err.contains("--page-size must be 1 to 100") && !page.err.contains("pageSize"), "\(page.err)")
            // A field filled by an option of its own name is still named as the field.
            let people = await sous(["profile", "set", "--people", "99"] + flags)
            #expect(people.code == 4 && people.err.contains("(field: people)"), "\(people.err)")
        }
    }

    /// A usage error a command finds while running (it printed `sous <subcommand>`'s usage) shows
    /// the usage of that command, under its full name.
    @Test func usageErrorsFoundWhileRunningShowTheCommandsUsage() async throws {
        try await withServices { flags in
            let slot = await sous(["plan", "put", "today", "3", "x"] + flags)
            #expect(slot.code == 64 && slot.err.contains("\"3\" is not a slot"), "\(slot.err)")
            #expect(slot.err.contains("Usage: sous plan put ") && slot.err.contains("<date> <slot> <recipe>"), "\(slot.err)")
            #expect(slot.err.contains("See 'sous plan put --help' for more information."), "\(slot.err)")
            #expect(!slot.err.contains("Usage: sous <subcommand>"), "\(slot.err)")

            let add = await sous(["diary", "yesterday", "--add", "99"] + flags)
            #expect(add.code == 64 && add.err.contains("--add 99: there are 0 foods"), "\(add.err)")
            #expect(add.err.contains("Usage: sous diary yesterday") && add.err.contains("See 'sous diary yesterday --help'"), "\(add.err)")
        }
    }

    /// -N is the day N days ago wherever a plan command takes a day (it was read as an unknown
    /// option), and a missing day says which forms a day takes.
    @Test func minusNIsADayAgoInPlanCommands() async throws {
        try await withServices { flags in
            // Parsed and resolved: the planner refuses 2026-03-09 only because it is past.
            let put = await sous(["plan", "put", "-1", "lunch", "tomato-lentil-soup"] + flags)
            #expect(put.code == 4 && put.err.contains("2026-03-09 is outside the plan's week"), "\(put.err)")
            let cooked = await sous(["plan", "cooked", "-1", "dinner"] + flags)
            #expect(cooked.code == 3 && cooked.err.contains("nothing is planned for dinner on 2026-03-09"), "\(cooked.err)")
            let show = await sous(["plan", "show", "--from", "-2", "--to", "-1"] + flags)
            #expect(show.code == 0 && show.out.contains("2026-03-08") && show.out.contains("2026-03-09"), "\(show.out)\(show.err)")
            #expect(!show.out.contains("2026-03-10"), "\(show.out)")

            let missing = await sous(["plan", "put"] + flags)
            #expect(missing.code == 64 && missing.err.contains("Missing expected argument '<date>'"), "\(missing.err)")
            #expect(missing.err.contains("YYYY-MM-DD, today, tomorrow, yesterday, +N or -N"), "\(missing.err)")
        }
    }

    /// No help screen has a run of spaces inside a sentence (`sous diary chart --help` showed the
    /// indentation of its source); example command lines may align their comments.
    @Test func helpScreensHaveNoRunsOfSpacesInSentences() async {
        for (path, command) in Self.commands() {
            let name = (["sous"] + path).joined(separator: " ")
            let help = await sous(path + ["--help"])
            #expect(help.code == 0 && help.out.contains("USAGE: \(name)"), "\(name) --help: \(help.err)")
            // Unwrapped too: wrapping to the terminal's width can break a run of spaces across two lines.
            let wide = SousCommand.helpMessage(for: command, includeHidden: false, columns: 10_000)
            for line in Self.runsOfSpaces(in: help.out) + Self.runsOfSpaces(in: wide) {
                Issue.record("\(name) --help: \"\(line)\"")
            }
        }
    }

    /// `sous` and every command under it, with the names that run it.
    static func commands(under command: any ParsableCommand.Type = SousCommand.self, path: [String] = []) -> [([String], any ParsableCommand.Type)] {
        [(path, command)] + command.configuration.subcommands.flatMap { commands(under: $0, path: path + [$0._commandName]) }
    }

    /// The lines of a help screen with a run of spaces in their prose: two or more between letters,
    /// or between a letter and punctuation either way. Not prose: example command lines ("sous …",
    /// which may align comments in a column) and, from USAGE on, the column of options, arguments
    /// and subcommands on lines indented by two (and the padding after it).
    static func runsOfSpaces(in help: String) -> [String] {
        let runOfSpaces = #/[A-Za-z][ ]{2,}[A-Za-z,.;:!?)]|[,.;:][ ]{2,}[A-Za-z]/#
        var pastUsage = false
        var found: [String] = []
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("USAGE:") { pastUsage = true }
            var prose = line.drop { $0 == " " }
            if prose.hasPrefix("sous ") { continue }
            if pastUsage && line.hasPrefix("  ") && !line.hasPrefix("   ") {
                guard let gap = prose.range(of: "  ") else { continue }
                prose = prose[gap.upperBound...].drop { $0 == " " }
            }
            if prose.contains(runOfSpaces) { found.append(String(line)) }
        }
        return found
    }
}
