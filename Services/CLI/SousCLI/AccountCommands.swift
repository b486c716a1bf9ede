import ArgumentParser
import Foundation
import SousClient
import SousSchema
import SousWire

/// Reads a password from a prompt (echo off) or one line of standard input; never from argv.
func readPassword(_ prompt: String) throws -> String {
    guard let password = Console.current.readSecret(prompt: prompt), !password.isEmpty else {
        throw ValidationError("no password given: type it at the prompt or pipe it on standard input")
    }
    return password
}

/// Signs in and remembers the session as the current account.
func signIn(email: String, password: String, device: String?, global: GlobalOptions) async throws -> SignedIn {
    let device = device ?? ProcessInfo.processInfo.hostName
    let signedIn = try await global.client(Planner.self).call(
        AccountAPI.login, SignIn(email: email, password: password, device: String(device.prefix(80))))
    var credentials = try Credentials.load()
    credentials.remember(signedIn)
    try credentials.save()
    return signedIn
}

/// `sous register`: creates an account and signs in on this device.
struct RegisterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register",
        abstract: "Create your account (email, password, name) and sign in on this device.",
        discussion: "The password is read from a prompt, or from standard input when it is not a terminal. At least 10 characters."
    )

    @Option(help: "Your email; unique regardless of case.") var email: String
    @Option(help: "How you are shown.") var name: String
    @Option(help: "Names this device in `sous sessions` (default: the host name).") var device: String?
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let password = try readPassword("Choose a password (at least 10 characters): ")
        let account = try await global.client(Planner.self).call(AccountAPI.register, Registration(email: email, password: password, name: name))
        guard account.emailVerified else {
            if global.json { return try printJSON(account) }
            Console.current.out("Registered \(account.email) (user \(account.user)). A code is on its way to that email (valid 24 hours).")
            Console.current.out("Confirm it with: sous account verify --code CODE, then sign in with: sous login --email \(account.email)")
            return
        }
        let signedIn = try await signIn(email: account.email, password: password, device: device, global: global)
        if global.json { return try printJSON(signedIn.account) }
        Console.current.out("Registered \(account.email) (user \(account.user)) and signed in on \(signedIn.session.device).")
    }
}

/// `sous login`
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in on this device; the session is kept in your config folder (mode 0600).",
        discussion: "The password is read from a prompt, or from standard input when it is not a terminal."
    )

    @Option(help: "Your email.") var email: String
    @Option(help: "Names this device in `sous sessions` (default: the host name).") var device: String?
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let password = try readPassword("Password: ")
        let signedIn = try await signIn(email: email, password: password, device: device, global: global)
        if global.json { return try printJSON(signedIn.account) }
        Console.current.out("Signed in as \(signedIn.account.name) <\(signedIn.account.email)> on \(signedIn.session.device).")
    }
}

/// `sous logout`
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "logout", abstract: "End this device's session and forget it.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let account = try global.account
        do {
            try await global.client(Planner.self).call(AccountAPI.logout, Empty(), session: account.token)
        } catch {
            // A session already ended elsewhere: forgetting it is all that is left to do.
            guard error.code == .unauthorized else { throw error }
        }
        var credentials = try Credentials.load()
        credentials.forget(user: account.user)
        try credentials.save()
        Console.current.out("Signed out \(account.email).")
    }
}

/// `sous whoami`
struct WhoAmICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "whoami", abstract: "Show the account and session you act as.")

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let who = try await global.client(Planner.self).call(AccountAPI.whoami, Empty(), session: global.token)
        if global.json { return try printJSON(who) }
        Console.current.out(
            "\(who.account.name) <\(who.account.email)>, user \(who.account.user)\(who.account.role == .operator ? ", operator" : "")")
        Console.current.out("session \(who.session.id) on \(who.session.device), until \(who.session.expiresAt.formatted(.iso8601))")
    }
}

/// `sous sessions`
struct SessionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions",
        abstract: "List the devices you are signed in on, or end one.",
        subcommands: [List.self, End.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List your sessions (the current one is marked *).")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let list = try await global.client(Planner.self).call(AccountAPI.sessions, Empty(), session: global.token)
            if global.json { return try printJSON(list) }
            SessionsCommand.print(list)
        }
    }

    struct End: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "End one session: that device is signed out everywhere within 2 s.")
        @Argument(help: "The session id, from `sous sessions`.") var session: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let list = try await global.client(Planner.self).call(AccountAPI.endSession, SessionRef(session: session), session: global.token)
            if global.json { return try printJSON(list) }
            Console.current.out("Ended session \(session).")
            SessionsCommand.print(list)
        }
    }

    static func print(_ list: SessionList) {
        var table = Table([("", .left), ("SESSION", .left), ("DEVICE", .left), ("SINCE", .left), ("UNTIL", .left)])
        for session in list.sessions {
            table.add([
                session.current ? "*" : "", session.id, session.device, session.createdAt.formatted(.iso8601), session.expiresAt.formatted(.iso8601),
            ])
        }
        Console.current.out(table.render())
    }
}

/// `sous password`
struct PasswordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "password",
        abstract: "Change your password; every other session ends.",
        discussion: "Reads the current password, then the new one, from prompts or two lines of standard input."
    )

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let current = try readPassword("Current password: ")
        let new = try readPassword("New password (at least 10 characters): ")
        let changed = try await global.client(Planner.self).call(
            AccountAPI.changePassword, PasswordChange(current: current, new: new), session: global.token)
        if global.json { return try printJSON(changed) }
        Console.current.out("Password changed; \(changed.endedSessions) other session\(changed.endedSessions == 1 ? "" : "s") ended.")
    }
}

/// `sous account delete`
struct AccountCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account", abstract: "Your account.", subcommands: [Delete.self, Recover.self, Reset.self, Verify.self, ResendVerification.self])

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Confirm your email with the code mailed at registration (on a server that asks for it).",
            discussion: "Then sign in: sous login --email EMAIL")

        @Option(help: "The code from the mail (with or without its dash).") var code: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let account = try await global.client(Planner.self).call(AccountAPI.verify, EmailVerification(code: code))
            if global.json { return try printJSON(account) }
            Console.current.out("Confirmed \(account.email). Sign in with: sous login --email \(account.email)")
        }
    }

    struct ResendVerification: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "resend-verification",
            abstract: "Mail a new confirmation code to an account that is not confirmed yet (valid 24 hours, once).",
            discussion: "The answer is the same whether or not the email has such an account.")

        @Option(help: "Your account's email.") var email: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let started = try await global.client(Planner.self).call(AccountAPI.resendVerification, RecoveryRequest(email: email))
            if global.json { return try printJSON(started) }
            Console.current.out(started.message)
            Console.current.out("Then confirm with: sous account verify --code CODE")
        }
    }

    struct Recover: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Forgot your password? Mails a reset code to your account's email (valid 30 minutes, once).",
            discussion: "Then: sous account reset --code CODE. The answer is the same whether or not the email has an account."
        )

        @Option(help: "Your account's email.") var email: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let started = try await global.client(Planner.self).call(AccountAPI.recover, RecoveryRequest(email: email))
            if global.json { return try printJSON(started) }
            Console.current.out(started.message)
            Console.current.out("Then set a new password with: sous account reset --code CODE")
        }
    }

    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set a new password with a mailed reset code; every session of the account ends.",
            discussion: "The new password is read from a prompt, or from standard input when it is not a terminal. Sign in afterwards."
        )

        @Option(help: "The code from the mail (with or without its dash).") var code: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let password = try readPassword("New password (at least 10 characters): ")
            let done = try await global.client(Planner.self).call(AccountAPI.reset, PasswordReset(code: code, password: password))
            if global.json { return try printJSON(done) }
            Console.current.out(
                "Password set for \(done.email); \(done.endedSessions) session\(done.endedSessions == 1 ? "" : "s") ended. Sign in with: sous login --email \(done.email)"
            )
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete your account and erase everything of yours in every service.",
            discussion: "Asks for your password. Needs --yes."
        )

        @Flag(help: "Confirm: this cannot be undone.") var yes = false
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            guard yes else { throw ValidationError("deleting the account erases all your data in every service: add --yes") }
            let account = try global.account
            let password = try readPassword("Password: ")
            let deleted = try await global.client(Planner.self).call(AccountAPI.delete, AccountDeletion(password: password), session: account.token)
            var credentials = try Credentials.load()
            credentials.forget(user: account.user)
            try credentials.save()
            if global.json { return try printJSON(deleted) }
            Console.current.out("Deleted \(account.email). Erased in: \(deleted.erased.joined(separator: ", ")).")
            if !deleted.pending.isEmpty {
                Console.current.out("Still to erase (the planner keeps asking): \(deleted.pending.joined(separator: ", ")).")
            }
        }
    }
}
