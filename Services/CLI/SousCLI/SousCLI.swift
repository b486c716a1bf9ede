public import ArgumentParser
import Foundation
public import SousWire

/// `sous`: the command-line client of every Sous service, grouped by noun.
public struct SousCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "sous",
        abstract: "Plan meals, shop and track food with your Sous services.",
        discussion: """
            Every command talks to the Sous services over ZeroMQ. Endpoints come from SOUS_<SERVICE>_ENDPOINT \
            (default: the local run on 127.0.0.1) or flags such as --catalog. Add --json to any command for \
            machine-readable output. Exit codes: 0 ok, 64 usage, 3 not found, 4 bad request, 5 unavailable \
            or timed out, 6 unauthorized (sign in), 7 conflict or quota reached, 8 forbidden, 9 too many sign-in \
            failures, 1 anything else. You act as the account you signed in with last (--user EMAIL picks another).

            New here? `sous register --email you@example.org --name You`, then `sous profile set --people 2 --diet vegetarian --time-zone Europe/Rome`, \
            `sous recipes search`, `sous plan put today dinner RECIPE`, `sous groceries add-recipe RECIPE`. \
            Every command has --help, and every method of the protocol has a command (operators' ones under \
            `sous operator`). Shell completion: `sous --generate-completion-script bash` (or zsh, fish).
            """,
        version: SousVersion.current,
        subcommands: [
            RegisterCommand.self, LoginCommand.self, LogoutCommand.self, WhoAmICommand.self,
            SessionsCommand.self, PasswordCommand.self, AccountCommand.self,  // accounts (planner)
            StatusCommand.self, DescribeCommand.self,
            RecipesCommand.self, IngredientsCommand.self, CatalogCommand.self,  // catalog
            ProfileCommand.self, PlanCommand.self, CookCommand.self, HouseholdCommand.self, FriendsCommand.self,  // planner
            GroceriesCommand.self, PantryCommand.self,  // groceries
            DiaryCommand.self, WaterCommand.self, CoffeeCommand.self, GoalsCommand.self,
            FoodsCommand.self, BarcodeCommand.self, ProductsCommand.self,  // tracker
            JournalCommand.self, GlutenCommand.self,  // tracker: coeliac diary
            RemindersCommand.self,  // notifier
            ExportCommand.self, ImportCommand.self,  // all five
            OperatorCommand.self,  // operators only
        ]
    )

    public init() {}

    /// Runs `sous` with `arguments` and returns the process exit code. A service error is one line
    /// on stderr; usage errors print the usage.
    public static func run(_ arguments: [String]) async -> Int32 {
        let console = Console.current
        var command: any ParsableCommand
        do {
            command = try parseAsRoot(dayOffsetsAsValues(GlobalOptions.movedAfterSubcommand(arguments)))
        } catch {
            if let unknown = CommandSuggestion.unknownCommand(in: arguments) {
                let hint = unknown.suggestion.map { "did you mean `sous \($0)`?" } ?? "see `sous --help`"
                console.err("sous: no command \"\(unknown.word)\"; \(hint)")
                return ExitCode.validationFailure.rawValue
            }
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success { console.out(message) } else { console.err(message) }
            return code.rawValue
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return 0
        } catch let error as ServiceError {
            console.err(error.line(for: type(of: command)))
            return ExitCodes.code(for: error)
        } catch let error as ExitCode {
            return error.rawValue
        } catch let error as ValidationError {
            // Thrown by run(), after parsing: ArgumentParser would show the root's usage, not the running command's.
            console.err(usageError(error, in: type(of: command)))
            return ExitCode.validationFailure.rawValue
        } catch {
            // `--help` and `--version` arrive here as clean exits: their text belongs on stdout.
            let code = exitCode(for: error)
            if code == .success {
                console.out(fullMessage(for: error))
                return 0
            }
            console.err(fullMessage(for: error))
            return code.rawValue
        }
    }
}

extension SousCommand {
    /// `sous plan put -1 lunch soup`: ArgumentParser reads an argument such as -1 as an option (and
    /// finds none of that name), so within `sous plan`, where a day can be N days ago, each argument
    /// that is exactly -N before any `--` gets a leading space, which makes it a value;
    /// ``PlanDate/resolve(_:today:)`` ignores the space. No option of `sous` is named like -N.
    static func dayOffsetsAsValues(_ arguments: [String]) -> [String] {
        guard arguments.first == PlanCommand._commandName else { return arguments }
        let end = arguments.firstIndex(of: "--") ?? arguments.endIndex
        return arguments.enumerated().map { index, argument in
            let isOffset = argument.count > 1 && argument.first == "-" && argument.dropFirst().allSatisfy { "0123456789".contains($0) }
            return index < end && isOffset ? " " + argument : argument
        }
    }

    /// A usage error `command` threw while running, as ArgumentParser prints one found while
    /// parsing: the message, then the usage of `command` under its full name ("sous plan put").
    static func usageError(_ error: ValidationError, in command: any ParsableCommand.Type) -> String {
        let name = ([_commandName] + (names(of: command) ?? [])).joined(separator: " ")
        return "Error: \(error.message)\nUsage: \(usageString(for: command))\n  See '\(name) --help' for more information."
    }

    /// The subcommand names that lead from `parent` to `command` ("plan", "put"); nil when
    /// `command` is not under `parent`.
    static func names(of command: any ParsableCommand.Type, under parent: any ParsableCommand.Type = SousCommand.self) -> [String]? {
        if ObjectIdentifier(command) == ObjectIdentifier(parent) { return [] }
        for child in parent.configuration.subcommands {
            if let names = names(of: command, under: child) { return [child._commandName] + names }
        }
        return nil
    }
}

/// A command whose options fill request fields named otherwise (`--budget` fills `weeklyBudget`):
/// a service error about such a field names the option instead (``ServiceError/line(for:)``).
protocol FlagsForFields {
    /// Request field, as service errors name it (a dotted path), → the option that fills it. A
    /// field also stands for the fields under it: "slots" for "slots.1".
    static var flagsForFields: [String: String] { get }
}

extension ServiceError {
    /// The one line `sous` prints for this error after running `command`: in the command's words,
    /// naming the option that filled the field the error is about rather than the field.
    func line(for command: any ParsableCommand.Type) -> String {
        let flags = (command as? any FlagsForFields.Type)?.flagsForFields ?? [:]
        var message = self.message
        // A service asks for a boolean field ("send replace: true"); on the command line it is a flag.
        for (name, flag) in flags { message = message.replacingOccurrences(of: "send \(name): true", with: "use \(flag)") }
        guard let field else { return "sous: \(message)" }
        guard let option = Self.flag(for: field, in: flags) else { return "sous: \(message) (field: \(field))" }
        message = Self.renaming(option.name, to: option.flag, in: Self.renaming(field, to: option.flag, in: message))
        return "sous: \(message)" + (message.contains(option.flag) ? "" : " (option: \(option.flag))")
    }

    /// The option filling `field`, or the field it is under, with the name it is mapped by.
    private static func flag(for field: String, in flags: [String: String]) -> (name: String, flag: String)? {
        // "slots.1", then "slots".
        let names = sequence(first: Substring(field)) { name in name.lastIndex(of: ".").map { name[..<$0] } }
        return names.lazy.compactMap { name in flags[String(name)].map { (name: String(name), flag: $0) } }.first
    }

    /// `message` with the field `name` as a word replaced by `flag`: anywhere when the name is an
    /// identifier no sentence uses ("weeklyBudget", "dailyKcal.max"), else only as the subject
    /// that opens the message ("multiplier must be…", but not "at most 10 ingredients").
    private static func renaming(_ name: String, to flag: String, in message: String) -> String {
        let identifier = name.contains { $0.isUppercase || $0 == "." }
        let punctuation = CharacterSet(charactersIn: "()\"',.;:")
        let words = message.split(separator: " ", omittingEmptySubsequences: false).enumerated().map { index, word in
            guard identifier || index == 0, word.trimmingCharacters(in: punctuation) == name else { return String(word) }
            return word.replacingOccurrences(of: name, with: flag)
        }
        return words.joined(separator: " ")
    }
}

/// Distinct exit codes per kind of failure, for scripts.
public enum ExitCodes {
    public static let notFound: Int32 = 3
    public static let badRequest: Int32 = 4
    public static let unavailable: Int32 = 5
    public static let unauthorized: Int32 = 6
    public static let conflict: Int32 = 7
    public static let forbidden: Int32 = 8
    public static let rateLimited: Int32 = 9

    public static func code(for error: ServiceError) -> Int32 {
        switch error.code {
        case .notFound: notFound
        case .badRequest: badRequest
        case .unavailable, .timeout: unavailable
        case .unauthorized: unauthorized
        case .conflict, .quotaExceeded: conflict
        case .forbidden: forbidden
        case .rateLimited: rateLimited
        default: 1
        }
    }
}

/// The command a mistyped first word most likely meant ("recipe" → "recipes").
enum CommandSuggestion {
    static var names: [String] {
        SousCommand.configuration.subcommands.map { $0._commandName } + ["help"]
    }

    /// The first word when it names no command, and the closest command's name, if one is close.
    static func unknownCommand(in arguments: [String]) -> (word: String, suggestion: String?)? {
        guard let word = GlobalOptions.movedAfterSubcommand(arguments).first, !word.hasPrefix("-"), !names.contains(word) else { return nil }
        let lowered = word.lowercased()
        let scored = names.map { name in (name, distance(lowered, name)) }.filter { $0.1 <= max(1, min(2, lowered.count / 3)) }
        let prefixed = names.filter { $0.hasPrefix(lowered) && lowered.count >= 3 }
        let best = scored.min { $0.1 < $1.1 }?.0 ?? (prefixed.count == 1 ? prefixed[0] : nil)
        return (word, best)
    }

    /// Levenshtein distance.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for (i, left) in a.enumerated() {
            var current = [i + 1]
            for (j, right) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (left == right ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
