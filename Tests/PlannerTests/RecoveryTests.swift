import Foundation
import PlannerService
import SousCrypto
import SousMail
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing

/// A forgotten password, recovered through a real SMTP server: the code mailed, used once,
/// within 30 minutes; the same answer for an email without an account; no mail relay at all.
@Suite(.closesItsSockets)
struct RecoveryTests {
    static let password = "correct horse battery"
    static let newPassword = "another fine evening"

    struct World {
        let client: ServiceClient<Planner>
        let planner: PlannerService
        let clock: WallClock
        let catcher: MailCatcher?

        func register(_ email: String = "ada@example.org") async throws -> AccountInfo {
            try await client.call(AccountAPI.register, Registration(email: email, password: RecoveryTests.password, name: "Ada"))
        }

        func login(_ email: String = "ada@example.org", password: String = RecoveryTests.password) async throws(ServiceError) -> SignedIn {
            try await client.call(AccountAPI.login, SignIn(email: email, password: password, device: "laptop"))
        }

        /// Asks for a code, then moves the clock past the random pause (1 to 10 s) a recovery
        /// mail waits before it leaves.
        func recover(_ email: String) async throws -> RecoveryStarted {
            let started = try await client.call(AccountAPI.recover, RecoveryRequest(email: email))
            clock.advance(by: 10)
            return started
        }

        /// Waits (bounded) until every mail queued has been sent or given up: the courier records
        /// an attempt's outcome after the relay has the mail, so moving the clock past the
        /// attempt's lease before then would let the courier send it again.
        func mailSettled() async throws {
            try await eventually(within: .seconds(30), waitingFor: "every queued mail sent or given up") {
                let pending = try planner.accounts.database.read { session in
                    try session.value(Int.self, "SELECT COUNT(*) FROM sous_outbox WHERE state = 'pending'") ?? 0
                }
                guard pending == 0 else { throw HarnessTimeout("\(pending) mail(s) still pending after 30 s") }
            }
        }

        func reset(_ code: String, password: String = RecoveryTests.newPassword) async throws(ServiceError) -> PasswordResetDone {
            try await client.call(AccountAPI.reset, PasswordReset(code: code, password: password))
        }
    }

    /// A planner that mails through `catcher` (or sends no mail), on a manual clock.
    func withPlanner<T: Sendable>(
        mailingThrough catcher: MailCatcher?, verifyingEmails: Bool = false, _ body: (World) async throws -> T
    ) async throws -> T {
        let clock = WallClock.manual(at: Date(timeIntervalSince1970: 1_790_000_000))
        let settings = try catcher.map { catcher in
            MailSettings(
                host: "localhost", port: catcher.port, security: .startTLS, sender: try MailSender("Sous <sous@example.org>"),
                extraTrustRoots: catcher.certificateFile)
        }
        let planner = try PlannerService(
            configuration: .inProcess(.planner, clock: clock), logger: quietLogger("planner"), passwordCost: .minimal,
            mail: AccountMail(settings: settings, webURL: "https://sous.example.org/", verifiesEmail: verifyingEmails))
        return try await withRunningServices([planner.host]) { _ in
            try await body(World(client: planner.host.client(Planner.self), planner: planner, clock: clock, catcher: catcher))
        }
    }

    /// The code a recovery mail carries, as shown (`ABCDE-FGHJK`).
    static func code(in mail: CaughtMail) throws -> String {
        let line = try #require(mail.text.components(separatedBy: "\r\n").first { $0.hasPrefix("Your code: ") })
        return String(line.dropFirst("Your code: ".count))
    }

    @Test func aForgottenPasswordIsResetOnceWithTheMailedCode() async throws {
        try await withMailCatcher { catcher in
            try await withPlanner(mailingThrough: catcher) { world in
                let account = try await world.register()
                let signedIn = try await world.login()
                let started = try await world.recover(" ADA@example.org ")
                #expect(started.validMinutes == 30)
                let mail = try #require(try await catcher.mails(count: 1).first)
                #expect(mail.to == ["ada@example.org"] && mail.tls && mail.header("Subject") == "Your Sous password reset code")
                let code = try Self.code(in: mail)
                #expect(code.count == 11 && code.dropFirst(5).first == "-")
                let plain = code.replacingOccurrences(of: "-", with: "")
                #expect(mail.text.contains("https://sous.example.org/reset?code=\(plain)"))

                // Typed in lower case without the dash, it works; every session ends.
                let done = try await world.reset(plain.lowercased())
                #expect(done == PasswordResetDone(email: "ada@example.org", endedSessions: 1))
                #expect(world.planner.host.gate.revocations.isRevoked(signedIn.session.id))
                let old = await #expect(throws: ServiceError.self) { try await world.login() }
                #expect(old?.code == .unauthorized)
                #expect(try await world.login(password: Self.newPassword).account.user == account.user)
                let changed = try #require(try await catcher.mails(count: 2).last)
                #expect(changed.header("Subject") == "Your Sous password was changed" && changed.to == ["ada@example.org"])

                // Once only.
                let again = await #expect(throws: ServiceError.self) { try await world.reset(code, password: "yet another one here") }
                #expect(again?.code == .badRequest && again?.field == "code")
            }
        }
    }

    @Test func anEmailWithoutAnAccountIsAnsweredAlikeAndGetsNothing() async throws {
        try await withMailCatcher { catcher in
            try await withPlanner(mailingThrough: catcher) { world in
                _ = try await world.register()
                let unknown = try await world.recover("nobody@example.org")
                let known = try await world.recover("ada@example.org")
                #expect(unknown == known)
                let mails = try await catcher.mails(count: 1)
                #expect(mails.count == 1 && mails[0].to == ["ada@example.org"])
                let malformed = await #expect(throws: ServiceError.self) { try await world.recover("not an address") }
                #expect(malformed?.code == .badRequest && malformed?.field == "email")
            }
        }
    }

    @Test func aCodeStopsWorkingAfterThirtyMinutesAndAWeakPasswordDoesNotUseItUp() async throws {
        try await withMailCatcher { catcher in
            try await withPlanner(mailingThrough: catcher) { world in
                _ = try await world.register()
                _ = try await world.recover("ada@example.org")
                let code = try Self.code(in: try #require(try await catcher.mails(count: 1).first))
                let weak = await #expect(throws: ServiceError.self) { try await world.reset(code, password: "short") }
                #expect(weak?.code == .badRequest && weak?.field == "password")
                world.clock.advance(by: 30 * 60 + 1)
                let expired = await #expect(throws: ServiceError.self) { try await world.reset(code) }
                #expect(expired?.code == .badRequest && expired?.field == "code")
                #expect(try await world.login().account.email == "ada@example.org", "the password is unchanged")
            }
        }
    }

    @Test func anAccountGetsAtMostThreeCodesADay() async throws {
        try await withMailCatcher { catcher in
            try await withPlanner(mailingThrough: catcher) { world in
                _ = try await world.register()
                _ = try await world.register("bob@example.org")
                for _ in 1...4 { _ = try await world.recover("ada@example.org") }
                // Bob's mail is queued after Ada's fourth request: once it is in, that one was not sent.
                _ = try await world.recover("bob@example.org")
                let mails = try await catcher.mails(count: 4)
                #expect(mails.filter { $0.to == ["ada@example.org"] }.count == 3 && mails.filter { $0.to == ["bob@example.org"] }.count == 1)
                try await world.mailSettled()
                world.clock.advance(by: 24 * 3600 + 1)
                _ = try await world.recover("ada@example.org")
                let later = try await catcher.mails(count: 5)
                #expect(later.filter { $0.to == ["ada@example.org"] }.count == 4, "\(later.map { ($0.to, $0.header("Subject") ?? "") })")
            }
        }
    }

    /// Guessing reset codes, or asking for codes over and over, is slowed down per address: the
    /// person the web app names (here, as a web app in this process would), not the web app.
    @Test func oneAddressGuessingCodesIsRefusedAndOthersAreNot() async throws {
        try await withMailCatcher { catcher in
            try await withPlanner(mailingThrough: catcher) { world in
                _ = try await world.register()
                let guesser = "198.51.100.7"
                for guess in 0..<20 {
                    let wrong = await #expect(throws: ServiceError.self) {
                        try await world.client.call(
                            AccountAPI.reset, PasswordReset(code: String(format: "%010d", guess), password: Self.newPassword), forwardedFor: guesser)
                    }
                    #expect(wrong?.code == .badRequest && wrong?.field == "code", "guess \(guess)")
                }
                for call in ["reset", "recover"] {
                    let refused = await #expect(throws: ServiceError.self) {
                        if call == "reset" {
                            _ = try await world.client.call(
                                AccountAPI.reset, PasswordReset(code: "ABCDE-FGHJK", password: Self.newPassword), forwardedFor: guesser)
                        } else {
                            _ = try await world.client.call(AccountAPI.recover, RecoveryRequest(email: "ada@example.org"), forwardedFor: guesser)
                        }
                    }
                    #expect(refused?.code == .rateLimited, "\(call): \(String(describing: refused))")
                }
                // Ada, at another address, still gets her code.
                _ = try await world.client.call(AccountAPI.recover, RecoveryRequest(email: "ada@example.org"), forwardedFor: "203.0.113.9")
                world.clock.advance(by: 10)
                #expect(try await catcher.mails(count: 1).first?.to == ["ada@example.org"])
            }
        }
    }

    @Test func withoutAMailRelayRecoveryIsUnavailableAndTheOperatorIssuesTheCode() async throws {
        try await withPlanner(mailingThrough: nil) { world in
            _ = try await world.register()
            let unavailable = await #expect(throws: ServiceError.self) { try await world.recover("ada@example.org") }
            #expect(unavailable?.code == .unavailable && unavailable?.message.contains("reset-code") == true)
            let code = try #require(try world.planner.accounts.startRecovery(email: "ada@example.org", now: world.clock.now, mail: nil))
            #expect(try world.planner.accounts.startRecovery(email: "nobody@example.org", now: world.clock.now, mail: nil) == nil)
            #expect(try await world.reset(code).endedSessions == 0)
            #expect(try await world.login(password: Self.newPassword).account.email == "ada@example.org")
        }
    }
}

struct HarnessTimeout: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
