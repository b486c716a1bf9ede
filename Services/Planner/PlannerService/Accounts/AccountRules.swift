import Foundation
import SousWire

/// What an account's fields must be. Errors name the field and never echo a password.
enum AccountRules {
    static let minimumPasswordLength = 10
    /// Longer passwords are refused rather than hashed: Argon2id takes any length, but a
    /// megabyte "password" is an attack on the hasher, not a secret.
    static let maximumPasswordBytes = 1024
    static let maximumEmailBytes = 254
    static let maximumNameLength = 80
    /// How long a session lasts unless it is ended first.
    static let sessionLifetime: TimeInterval = 30 * 86_400

    /// The email in the form uniqueness is decided on: trimmed and lowercased.
    static func normalizedEmail(_ email: String, field: String = "email") throws(ServiceError) -> String {
        let trimmed = email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let parts = trimmed.split(separator: "@", omittingEmptySubsequences: false)
        guard trimmed.utf8.count <= maximumEmailBytes, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
            !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
            trimmed.unicodeScalars.allSatisfy({ !CharacterSet.whitespacesAndNewlines.contains($0) && !CharacterSet.controlCharacters.contains($0) })
        else {
            throw .badRequest("an email address looks like name@example.org (at most \(maximumEmailBytes) bytes)", field: field)
        }
        return trimmed
    }

    static func checkName(_ name: String, field: String = "name") throws(ServiceError) -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...maximumNameLength).contains(trimmed.count),
            !trimmed.containsControlCharacter
        else {
            throw .badRequest("\(field) must be 1 to \(maximumNameLength) characters, without control characters", field: field)
        }
        return trimmed
    }

    /// Refuses passwords that are too short, too long, or among the most common ones (or the
    /// email's own name).
    static func checkNewPassword(_ password: String, email: String, field: String = "password") throws(ServiceError) {
        guard password.count >= minimumPasswordLength else {
            throw .badRequest("a password needs at least \(minimumPasswordLength) characters", field: field)
        }
        guard password.utf8.count <= maximumPasswordBytes else {
            throw .badRequest("a password may have at most \(maximumPasswordBytes) bytes", field: field)
        }
        let lowered = password.lowercased()
        let local = email.split(separator: "@").first.map(String.init) ?? ""
        if !local.isEmpty && lowered.contains(local.lowercased()) && local.count >= 4 {
            throw .badRequest("this password contains your email's name (\(local)), which an attacker tries first; choose another", field: field)
        }
        if Set(lowered).count <= 2 {
            throw .badRequest("this password repeats one or two characters; choose one with more variety", field: field)
        }
        if commonPasswords.contains(lowered) {
            throw .badRequest("this password is among the first any attacker tries; choose a longer, less common one", field: field)
        }
    }

    /// A password offered to sign in: bounded before it reaches the hasher.
    static func checkOfferedPassword(_ password: String, field: String = "password") throws(ServiceError) {
        guard !password.isEmpty, password.utf8.count <= maximumPasswordBytes else {
            throw .badRequest("a password has 1 to \(maximumPasswordBytes) bytes", field: field)
        }
    }

    /// Common passwords of 10 or more characters (shorter ones are refused by length anyway),
    /// from the most-used lists published after breaches.
    static let commonPasswords: Set<String> = [
        "1234567890", "12345678910", "123456789a", "1234567890a", "0123456789", "0987654321", "1q2w3e4r5t", "1q2w3e4r5t6y",
        "qwertyuiop", "qwertyuiop1", "qwerty1234", "qwerty12345", "qwerty123456", "1qaz2wsx3edc", "zaq12wsxcde3", "asdfghjkl1",
        "password12", "password123", "password1234", "password!", "passw0rd123", "p@ssw0rd123", "p@ssword123", "iloveyou12",
        "iloveyou123", "princess123", "sunshine123", "football123", "baseball123", "welcome123", "welcome1234", "letmein123",
        "letmein1234", "trustno1234", "dragon1234", "monkey1234", "master1234", "superman123", "starwars123", "michael123",
        "charlie123", "jennifer123", "1111111111", "2222222222", "1231231234", "1212121212", "abcdefghij", "abcdefg123",
        "abc1234567", "abcd123456", "abc123456789", "changeme123", "administrator", "admin12345", "admin123456", "computer123",
        "whatever123", "internet123", "123qweasdzxc", "qazwsxedcrfv", "1234qwerasdf", "zxcvbnm123", "zxcvbnmasdf", "asdfghjkl;",
        "liverpool123", "chelsea1234", "arsenal1234", "pokemon1234", "pa55word123", "mypassword", "mypassword1", "secret1234",
        "password00", "passwordpassword", "qwertyqwerty", "asdfasdfasdf", "testtest123", "test123456", "samsung123", "google1234",
        "1234567890q", "q1w2e3r4t5", "q1w2e3r4t5y6", "a1b2c3d4e5", "1a2b3c4d5e", "987654321a", "11223344556", "00000000000",
        "sousrecipes", "sous123456", "mealplanner", "foodtracker",
    ]
}

/// Slows down guessing (docs/PROTOCOL.md, "Accounts"): after 5 failed sign-ins in a row for
/// an account, each further try waits twice as long as the last (1 s, 2 s, 4 s … up to 15
/// minutes) and is refused with `rateLimited` until then; a success starts over. Separately,
/// 20 failures from one address within 10 minutes refuse that address for the rest of the 10
/// minutes, whichever accounts it tries. Kept in memory: a restart forgets it.
struct LoginThrottle: Sendable {
    struct Counter: Sendable {
        var failures = 0
        var blockedUntil: Date?
        var windowStart: Date
    }

    static let freeFailures = 5
    static let longestLockout: TimeInterval = 15 * 60
    static let addressFailures = 20
    static let addressWindow: TimeInterval = 10 * 60

    private(set) var accounts: [String: Counter] = [:]
    private(set) var addresses: [String: Counter] = [:]

    /// `rateLimited` if this account or address must wait; nil if it may try now. An address
    /// counts failed sign-ins and registrations of emails that have an account alike: either
    /// tells whether an email has an account, so together they are what an address may try.
    func refusal(account: String?, address: String?, now: Date) -> ServiceError? {
        let counters = [
            (account.flatMap { accounts[$0] }, "too many failed sign-ins for this account"),
            (address.flatMap { addresses[$0] }, "too many failed sign-ins or registrations of taken emails from this address"),
        ]
        for (counter, what) in counters {
            if let until = counter?.blockedUntil, until > now {
                let seconds = Int(until.timeIntervalSince(now).rounded(.up))
                return ServiceError(.rateLimited, "\(what); try again in \(seconds) s")
            }
        }
        return nil
    }

    mutating func failed(account: String, address: String?, now: Date) {
        var counter = accounts[account] ?? Counter(windowStart: now)
        counter.failures += 1
        if counter.failures >= Self.freeFailures {
            let exponent = min(counter.failures - Self.freeFailures, 20)
            counter.blockedUntil = now.addingTimeInterval(min(pow(2, Double(exponent)), Self.longestLockout))
        }
        accounts[account] = counter
        failed(address: address, now: now)
    }

    /// A failure counted against the address only: a registration of an email that has an
    /// account (which must not lock the account's owner out).
    mutating func failed(address: String?, now: Date) {
        if let address {
            var counter = addresses[address] ?? Counter(windowStart: now)
            if now.timeIntervalSince(counter.windowStart) > Self.addressWindow { counter = Counter(windowStart: now) }
            counter.failures += 1
            if counter.failures >= Self.addressFailures { counter.blockedUntil = counter.windowStart.addingTimeInterval(Self.addressWindow) }
            addresses[address] = counter
        }
        if accounts.count > 100_000 { accounts = accounts.filter { $0.value.blockedUntil.map { $0 > now } ?? false } }
        if addresses.count > 100_000 { addresses = addresses.filter { $0.value.blockedUntil.map { $0 > now } ?? false } }
    }

    mutating func succeeded(account: String) {
        accounts[account] = nil
    }
}
