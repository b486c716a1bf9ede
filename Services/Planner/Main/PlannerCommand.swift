public import ArgumentParser
import Foundation
import PlannerService
public import SousRuntime
import SousSchema
import SousWire

/// `sous-planner` (a link to `sous-server`, which runs this command when started by that name).
public struct PlannerCommand: AsyncParsableCommand, ServiceExecutable {
    public static let configuration = commandConfiguration(
        abstract: "The Sous planner service: accounts, cooking profiles and the rolling 7-day meal plan.",
        adding: [OperatorCommand.self, AccountCommand.self])

    public static let service = SousService.planner

    public init() {}

    public static func host(for configuration: ServiceConfiguration) throws -> ServiceHost {
        try PlannerService(configuration: configuration, mail: AccountMail.fromEnvironment()).host
    }
}

/// Machine-local account administration: whoever can run this can read the data folder (or has
/// the database's URL), so it writes to the planner's database directly, where the service's
/// configuration says it is (the service may be running: the database serializes writes).
struct MachineAccountOptions: ParsableArguments {
    @Option(help: "Folder of the planner's SQLite database (env SOUS_DATA_DIR, default ./data; SOUS_DATABASE_URL for PostgreSQL).")
    var dataDir: String?

    @Option(help: "The account's email.")
    var email: String

    @Option(help: "How the account is shown.")
    var name: String?

    /// Runs `body` with the planner's accounts, at the location the service's configuration
    /// names (environment, then `--data-dir`), and closes the database afterwards.
    func withStore<T>(_ body: (AccountStore) throws -> T) throws -> T {
        var configuration = try ServiceConfiguration.fromEnvironment(.planner)
        if let dataDir { configuration.dataDirectory = dataDir }
        SousLogging.bootstrap(level: configuration.logLevel)
        let database = try PlannerService.openDatabase(
            at: configuration.database, logger: SousLogging.logger(for: "planner", level: configuration.logLevel))
        defer { database.close() }
        return try body(AccountStore(database: database))
    }

    /// The password from a prompt (echo off) or one line of standard input, never from argv.
    func readPassword() throws -> String {
        guard let line = Terminal.readSecret(prompt: "Password (at least 10 characters): "), !line.isEmpty else {
            throw ValidationError("no password given: type it at the prompt or pipe it on standard input")
        }
        return line
    }
}

/// `sous-planner operator create`: the first operator is made on the machine itself.
struct OperatorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "operator",
        abstract: "Operators: accounts that may change what every user shares (imports, seed reloads, the clock).",
        subcommands: [Create.self]
    )

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an operator account; the password is read from standard input (there is no default password)."
        )

        @OptionGroup var options: MachineAccountOptions

        func run() throws {
            let password = try options.readPassword()
            let info = try options.withStore { store in
                try store.createAccount(email: options.email, password: password, name: options.name ?? "Operator", role: .operator, now: Date())
            }
            print("Created operator \(info.email) (user \(info.user)). Sign in with: sous login --email \(info.email)")
        }
    }
}

/// `sous-planner account adopt`: gives a user id from before accounts existed an account, so
/// its data (kept under that id in every service) belongs to someone who can sign in.
struct AccountCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account",
        abstract: "Accounts on this machine.",
        subcommands: [Adopt.self, ResetCode.self, Confirm.self]
    )

    struct ResetCode: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-code",
            abstract: "Issue a password reset code for an account, printed here instead of mailed (valid 30 minutes, once).",
            discussion: "Give the code to the account's owner in person; they set a new password with: sous account reset --code CODE"
        )

        @OptionGroup var options: MachineAccountOptions

        func run() throws {
            let email = options.email.trimmingCharacters(in: .whitespaces).lowercased()
            let code = try options.withStore { store in try store.startRecovery(email: email, now: Date(), mail: nil) }
            guard let code else { throw ValidationError("no account has the email \(email)") }
            print("Reset code for \(email): \(code.prefix(5))-\(code.dropFirst(5)) (valid 30 minutes, once).")
            print("The owner sets a new password with: sous account reset --code \(code.prefix(5))-\(code.dropFirst(5))")
        }
    }

    struct Confirm: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Confirm an account's email by hand (on a server with SOUS_VERIFY_EMAIL=on, when the code's mail cannot reach it).",
            discussion: "Check first, in person, that the email is the owner's: from then on the account signs in without a code."
        )

        @OptionGroup var options: MachineAccountOptions

        func run() throws {
            let email = options.email.trimmingCharacters(in: .whitespaces).lowercased()
            guard let confirmed = try options.withStore({ store in try store.confirmEmail(email, now: Date()) }) else {
                throw ValidationError("no account has the email \(email)")
            }
            print(confirmed ? "Confirmed \(email): it can sign in now." : "\(email) was confirmed already.")
        }
    }

    struct Adopt: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an account for a user id of a protocol-1 data folder; the password is read from standard input.",
            discussion: "The account keeps the old id, so everything stored under it in every service is the account's at once."
        )

        @Argument(help: "The user id the data was stored under before accounts (what --user was).")
        var user: String

        @OptionGroup var options: MachineAccountOptions

        func run() throws {
            let password = try options.readPassword()
            let info = try options.withStore { store in
                try store.createAccount(user: user, email: options.email, password: password, name: options.name ?? user, role: .user, now: Date())
            }
            print("User \(info.user) now belongs to \(info.email). Sign in with: sous login --email \(info.email)")
        }
    }
}
