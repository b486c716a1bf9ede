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
            ProfileCommand.self, PlanCommand.self, CookCommand.self,  // planner
            GroceriesCommand.self,  // groceries
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
            command = try parseAsRoot(GlobalOptions.movedAfterSubcommand(arguments))
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
            console.err("sous: \(error.message)\(error.field.map { " (field: \($0))" } ?? "")")
            return ExitCodes.code(for: error)
        } catch let error as ExitCode {
            return error.rawValue
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
