import Foundation
import PlannerService
import SousClient
import SousMail
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing

/// Email confirmation at registration (`SOUS_VERIFY_EMAIL=on`), through a real SMTP server: the
/// account signs in only after the mailed code, which works once, for 24 hours, and for nothing
/// else.
extension RecoveryTests {
    @Test func aNewAccountSignsInOnlyAfterItsMailedCodeConfirmsTheEmail() async throws {
        try await withMailCatcher { catcher in
            try await withPlanner(mailingThrough: catcher, verifyingEmails: true) { world in
                let account = try await world.register()
                #expect(account.emailVerified == false)
                let mail = try #require(try await catcher.mails(count: 1).first)
                #expect(mail.to == ["ada@example.org"] && mail.header("Subject") == "Confirm your email for Sous")
                let code = try Self.code(in: mail)
                #expect(mail.text.contains("https://sous.example.org/verify?code=\(code.replacingOccurrences(of: "-", with: ""))"))

                // Unconfirmed: the right password is told to confirm; a wrong one learns nothing more.
                let waiting = await #expect(throws: ServiceError.self) { try await world.login() }
                #expect(waiting?.code == .forbidden && waiting?.field == "email" && waiting?.message.contains("account.verify") == true)
                let wrong = await #expect(throws: ServiceError.self) { try await world.login(password: "not the password at all") }
                #expect(wrong?.code == .unauthorized)

                // A confirmation code sets no password.
                let asReset = await #expect(throws: ServiceError.self) { try await world.reset(code) }
                #expect(asReset?.code == .badRequest && asReset?.field == "code")

                let confirmed = try await world.client.call(AccountAPI.verify, EmailVerification(code: code.lowercased()))
                #expect(confirmed.user == account.user && confirmed.emailVerified)
                #expect(try await world.login().account.emailVerified)
                let again = await #expect(throws: ServiceError.self) {
                    try await world.client.call(AccountAPI.verify, EmailVerification(code: code))
                }
                #expect(again?.code == .badRequest && again?.field == "code")
            }
        }
    }

    @Test func aNewConfirmationCodeIsAnsweredAlikeAndMailedOnlyToAnUnconfirmedAccount() async throws {
        try await withMailCatcher { catcher in
            try await withPlanner(mailingThrough: catcher, verifyingEmails: true) { world in
                _ = try await world.register()
                _ = try await world.register("bob@example.org")
                let first = try await catcher.mails(count: 2)
                let bobsFirst = try Self.code(in: try #require(first.first { $0.to == ["bob@example.org"] }))
                _ = try await world.client.call(AccountAPI.verify, EmailVerification(code: bobsFirst))

                let resend = { (email: String) async throws -> RecoveryStarted in
                    let started = try await world.client.call(AccountAPI.resendVerification, RecoveryRequest(email: email))
                    world.clock.advance(by: 10)  // past the pause a code's mail waits before it leaves
                    return started
                }
                let nobody = try await resend("nobody@example.org")
                let confirmed = try await resend("bob@example.org")
                let waiting = try await resend("ada@example.org")
                #expect(nobody == confirmed && confirmed == waiting && waiting.validMinutes == 24 * 60)
                let mails = try await catcher.mails(count: 3)
                #expect(mails.last?.to == ["ada@example.org"], "only Ada, still unconfirmed, gets a new code")
                let fresh = try Self.code(in: try #require(mails.last))

                // 24 hours later the new code no longer works; a reset by mail confirms the address too.
                try await world.mailSettled()
                world.clock.advance(by: 24 * 3600 + 1)
                let expired = await #expect(throws: ServiceError.self) {
                    try await world.client.call(AccountAPI.verify, EmailVerification(code: fresh))
                }
                #expect(expired?.code == .badRequest && expired?.field == "code")
                _ = try await world.recover("ada@example.org")
                let resetCode = try Self.code(in: try #require(try await catcher.mails(count: 4).last))
                _ = try await world.reset(resetCode)
                let afterReset = try await world.login(password: Self.newPassword)
                #expect(afterReset.account.emailVerified)
            }
        }
    }

    @Test func withoutConfirmationAccountsSignInAtOnce() async throws {
        try await withMailCatcher { catcher in
            try await withPlanner(mailingThrough: catcher) { world in
                let registered = try await world.register()
                let signedIn = try await world.login()
                #expect(registered.emailVerified && signedIn.account.emailVerified)
                let refused = await #expect(throws: ServiceError.self) {
                    try await world.client.call(AccountAPI.resendVerification, RecoveryRequest(email: "ada@example.org"))
                }
                #expect(refused?.code == .badRequest && refused?.field == "email")
            }
        }
    }

    @Test func confirmingEmailsNeedsARelayAndAClearSetting() throws {
        #expect(throws: MailSettingsError.self) { try AccountMail.fromEnvironment(["SOUS_VERIFY_EMAIL": "on"]) }
        let smtp = ["SOUS_SMTP_URL": "smtp://relay.example.org", "SOUS_MAIL_FROM": "Sous <sous@example.org>"]
        #expect(throws: MailSettingsError.self) { try AccountMail.fromEnvironment(smtp.merging(["SOUS_VERIFY_EMAIL": "sometimes"]) { $1 }) }
        #expect(try AccountMail.fromEnvironment(smtp.merging(["SOUS_VERIFY_EMAIL": "on"]) { $1 }).verifiesEmail)
        #expect(try AccountMail.fromEnvironment(smtp).verifiesEmail == false)
    }
}
