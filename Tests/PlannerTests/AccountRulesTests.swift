import Foundation
import SousWire
import Testing

@testable import PlannerService

/// What one address and one account may try: failed sign-ins and registrations of emails that
/// have an account share an address's budget, so registering cannot tell who has an account
/// faster than guessing passwords; a registration never locks the account's owner out.
struct LoginThrottleTests {
    static let start = Date(timeIntervalSince1970: 1_773_136_800)

    @Test func registrationsOfTakenEmailsUseTheAddresssBudgetAndNeverLockTheAccount() {
        var throttle = LoginThrottle()
        for attempt in 0..<(LoginThrottle.addressFailures - 1) {
            throttle.failed(address: "203.0.113.7", now: Self.start.addingTimeInterval(Double(attempt)))
        }
        #expect(throttle.refusal(account: nil, address: "203.0.113.7", now: Self.start.addingTimeInterval(30)) == nil)
        // One failed sign-in more from the same address: the budget is shared.
        throttle.failed(account: "bob@example.org", address: "203.0.113.7", now: Self.start.addingTimeInterval(31))
        let refused = throttle.refusal(account: nil, address: "203.0.113.7", now: Self.start.addingTimeInterval(32))
        #expect(refused?.code == .rateLimited && refused?.message.contains("registrations of taken emails from this address") == true)
        #expect(refused?.message.contains("try again in 568 s") == true, "until ten minutes after the first failure: \(refused?.message ?? "")")
        // The account whose email was tried is not locked, from anywhere else.
        #expect(throttle.refusal(account: "ada@example.org", address: "198.51.100.1", now: Self.start.addingTimeInterval(32)) == nil)
        // Ten minutes on, the address may try again.
        #expect(throttle.refusal(account: nil, address: "203.0.113.7", now: Self.start.addingTimeInterval(601)) == nil)
    }

    /// Calls made in-process (another service, a test) have no address and are never counted.
    @Test func callsWithoutAnAddressAreNotCounted() {
        var throttle = LoginThrottle()
        for _ in 0..<100 { throttle.failed(address: nil, now: Self.start) }
        #expect(throttle.refusal(account: nil, address: nil, now: Self.start) == nil)
        #expect(throttle.addresses.isEmpty)
    }
}

/// A refused new password is told the reason that applies to it.
struct NewPasswordTests {
    @Test(arguments: [
        ("Lovelace1815!", "lovelace@example.org", "contains your email's name (lovelace)"),
        ("abababababab", "ada@example.org", "repeats one or two characters"),
        ("password1234", "ada@example.org", "among the first any attacker tries"),
    ])
    func aRefusedPasswordIsToldWhy(password: String, email: String, reason: String) {
        let error = #expect(throws: ServiceError.self) { try AccountRules.checkNewPassword(password, email: email) }
        #expect(error?.code == .badRequest && error?.field == "password")
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
    }

    @Test func aPasswordWithAShortLocalPartInsideIsAccepted() throws {
        // "ada" is too short a name to refuse every password that contains it.
        try AccountRules.checkNewPassword("cadaver-tulip-9", email: "ada@example.org")
    }

    /// Names are text people write: emoji joined with the zero-width joiner (👩‍🍳, 🏳️‍🌈), the
    /// non-joiner of Persian spelling and the soft hyphen are kept; control characters are not.
    @Test func namesKeepJoinedEmojiAndFormatCharactersButNotControlCharacters() throws {
        for name in ["Ada 👩‍🍳", "👨‍👩‍👧‍👦 home", "🏳️‍🌈", "می\u{200C}خواهم", "Cup\u{00AD}board"] {
            #expect(try AccountRules.checkName(name) == name)
            #expect(try PlannerHandlers.templateName(name) == name)
        }
        for name in ["Ada\u{0007}", "line\nbreak", "tab\there", "C1\u{0085}code"] {
            #expect(throws: ServiceError.self) { try AccountRules.checkName(name) }
            #expect(throws: ServiceError.self) { try PlannerHandlers.templateName(name) }
        }
    }
}
