import Foundation
import SousMail
import SousTestSupport
import Testing

/// The SMTP client against a real server (aiosmtpd on loopback, `MailCatcher`): STARTTLS,
/// TLS from the first byte, AUTH, and every way a relay can say no.
@Suite(.closesItsSockets)
struct SMTPClientTests {
    static func settings(
        _ catcher: MailCatcher, _ security: MailSettings.Security = .startTLS, user: String? = nil, password: String? = nil,
        timeout: Duration = .seconds(30)
    ) throws -> MailSettings {
        var settings = MailSettings(
            host: "localhost", port: catcher.port, security: security, username: user, password: password,
            sender: try MailSender("Sous Küche <sous@example.org>"), extraTrustRoots: catcher.certificateFile)
        settings.commandTimeout = timeout
        return settings
    }

    static func message(to: String = "ada@example.org") -> MailMessage {
        MailMessage(
            to: to, subject: "Crème brûlée tonight — 19:00", text: "Line one\nLine two with ünïcode\n.a line starting with a dot",
            messageID: "test-\(UUID().uuidString)")
    }

    @Test func aMailGoesOverStartTLSWithAuthenticationAndReadsBackExactly() async throws {
        try await withMailCatcher(mode: .starttls, user: "relay", password: "s3cret pass") { catcher in
            let message = Self.message()
            try await SMTPClient(settings: Self.settings(catcher, user: "relay", password: "s3cret pass")).send(message)
            let mail = try #require(try await catcher.mails(count: 1).first)
            #expect(mail.tls && mail.auth == "relay")
            #expect(mail.from == "sous@example.org" && mail.to == ["ada@example.org"])
            #expect(mail.header("Subject") == message.subject)
            #expect(mail.header("From") == "\"Sous Küche\" <sous@example.org>")
            #expect(mail.header("Message-ID") == "<\(message.messageID)@example.org>")
            #expect(mail.text == "Line one\r\nLine two with ünïcode\r\n.a line starting with a dot")
        }
    }

    @Test func implicitTLSWorksFromTheFirstByte() async throws {
        try await withMailCatcher(mode: .implicit) { catcher in
            try await SMTPClient(settings: Self.settings(catcher, .tls)).send(Self.message())
            #expect(try await catcher.mails(count: 1).first?.tls == true)
        }
    }

    @Test func aRelayWithoutStartTLSGetsNothingUnencrypted() async throws {
        try await withMailCatcher(mode: .none) { catcher in
            let error = await #expect(throws: MailError.self) { try await SMTPClient(settings: Self.settings(catcher)).send(Self.message()) }
            guard case .tls(let reason) = error else {
                Issue.record("\(String(describing: error))")
                return
            }
            #expect(reason.contains("does not offer STARTTLS"))
            // smtp+plain:// is the explicit way to a local catcher.
            try await SMTPClient(settings: Self.settings(catcher, .none)).send(Self.message())
            #expect(try await catcher.mails(count: 1).first?.tls == false)
        }
    }

    @Test func aCertificateNobodyTrustsIsRefused() async throws {
        try await withMailCatcher(mode: .implicit) { catcher in
            var settings = try Self.settings(catcher, .tls)
            settings.extraTrustRoots = nil
            let error = await #expect(throws: MailError.self) { try await SMTPClient(settings: settings).send(Self.message()) }
            #expect(error?.isPermanent == false, "\(String(describing: error))")
            #expect(catcher.mails.isEmpty)
        }
    }

    @Test func refusalsArePermanentAndDeferralsAreNot() async throws {
        try await withMailCatcher(user: "relay", password: "right", refuse: ["nobody"], defer: ["busy"]) { catcher in
            let wrongPassword = await #expect(throws: MailError.self) {
                try await SMTPClient(settings: Self.settings(catcher, user: "relay", password: "wrong")).send(Self.message())
            }
            #expect(wrongPassword == .refused(code: 535, reply: "at AUTH: 5.7.8 Authentication credentials invalid"))
            let client = SMTPClient(settings: try Self.settings(catcher, user: "relay", password: "right"))
            let refused = await #expect(throws: MailError.self) { try await client.send(Self.message(to: "nobody@example.org")) }
            #expect(refused?.isPermanent == true && refused?.description.contains("550") == true, "\(String(describing: refused))")
            let deferred = await #expect(throws: MailError.self) { try await client.send(Self.message(to: "busy@example.org")) }
            #expect(deferred?.isPermanent == false && deferred?.description.contains("451") == true, "\(String(describing: deferred))")
            let malformed = await #expect(throws: MailError.self) {
                try await client.send(Self.message(to: "ada@example.org>\r\nRCPT TO:<eve@x.org"))
            }
            #expect(malformed?.isPermanent == true)
            #expect(catcher.mails.isEmpty)
        }
    }

    @Test func aStallingRelayEndsTheAttemptAtTheBoundAndOthersStillGetThrough() async throws {
        try await withMailCatcher(stall: ["slow"]) { catcher in
            let impatient = SMTPClient(settings: try Self.settings(catcher, timeout: .seconds(1)))
            let stalled = await #expect(throws: MailError.self) { try await impatient.send(Self.message(to: "slow@example.org")) }
            // RCPT TO is where the relay stalls (a busy machine may run out of time earlier).
            guard case .timedOut = stalled else {
                Issue.record("\(String(describing: stalled))")
                return
            }
            try await SMTPClient(settings: Self.settings(catcher)).send(Self.message())
            #expect(try await catcher.mails(count: 1).count == 1)
        }
    }

    @Test func settingsComeFromTheEnvironmentOrSayWhatIsWrong() throws {
        let full = try #require(
            try MailSettings.fromEnvironment(["SOUS_SMTP_URL": "smtps://me%40x.org:p%3Ass@mail.example.org", "SOUS_MAIL_FROM": "sous@example.org"]))
        #expect(full.security == .tls && full.port == 465 && full.username == "me@x.org" && full.password == "p:ss")
        #expect(try MailSettings.parse(url: "smtp://mail.example.org", from: "a@b.org").port == 587)
        #expect(try MailSettings.fromEnvironment([:]) == nil)
        for (environment, words) in [
            (["SOUS_SMTP_URL": "smtp://mail.example.org"], "SOUS_MAIL_FROM"),
            (["SOUS_SMTP_URL": "http://mail.example.org", "SOUS_MAIL_FROM": "a@b.org"], "must start with"),
            (["SOUS_SMTP_URL": "smtp+plain://u:p@localhost", "SOUS_MAIL_FROM": "a@b.org"], "never sends a password"),
            (["SOUS_SMTP_URL": "smtp://mail.example.org", "SOUS_MAIL_FROM": "Sous <not an address>"], "SOUS_MAIL_FROM"),
            (["SOUS_SMTP_URL": "smtp://mail.example.org", "SOUS_MAIL_FROM": "a@b.org", "SOUS_SMTP_CA_FILE": "/nonexistent.pem"], "cannot read"),
        ] {
            let error = #expect(throws: MailSettingsError.self) { try MailSettings.fromEnvironment(environment) }
            #expect(error?.description.contains(words) == true, "\(String(describing: error))")
        }
    }
}
