import Foundation
import Hummingbird
import SousWire

extension WebApp {
    /// Runs a form's action; a refusal the person can fix (a field, a conflict, a missing
    /// record) re-renders the form with the message and its status, anything else goes to the
    /// edge (session ended, service down, internal).
    func submit(
        _ action: () async throws -> Response, orShow form: (WebError) async throws -> Response
    ) async throws -> Response {
        do {
            return try await action()
        } catch let error as WebError where Self.isFixable(error) {
            return try await form(error)
        } catch let error as ServiceError {
            let refusal = WebError(error)
            guard Self.isFixable(refusal) else { throw error }
            return try await form(refusal)
        }
    }

    static func isFixable(_ error: WebError) -> Bool {
        !error.sessionEnded
            && [.unprocessableContent, .notFound, .conflict, .badRequest, .tooManyRequests, .forbidden, .unauthorized].contains(error.status)
    }

    /// A call that checks a password: there `unauthorized` means a wrong email or password, to
    /// fix in the form, not a session that has ended.
    func checkingPassword<T>(field: String = "password", _ call: () async throws -> T) async throws -> T {
        do {
            return try await call()
        } catch let error as ServiceError where error.code == .unauthorized {
            throw WebError(status: .unauthorized, message: error.message, field: error.field ?? field)
        }
    }
}

/// Dates and numbers as the pages show them.
enum Show {
    static func dateTime(_ date: Date, timeZone: String? = nil) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_GB")
        formatter.timeZone = timeZone.flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "UTC")
        formatter.dateFormat = "d MMM yyyy, HH:mm"
        return formatter.string(from: date) + (timeZone == nil ? " UTC" : "")
    }

    static func euros(_ amount: Double) -> String { "€" + String(format: "%.2f", amount) }
    /// A price, or "no price" for a food no shop price is known for (never €0).
    static func euros(_ amount: Double?) -> String { amount.map(euros) ?? "no price" }

    static func number(_ value: Double, decimals: Int = 0) -> String { value.formatted(decimals: decimals) }

    static func weekday(_ index: Int) -> String {
        ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"][max(1, min(index, 7)) - 1]
    }
}

/// A path to send someone back to after signing in: only a path on this site.
func localPath(_ text: String?) -> String? {
    guard let text, text.hasPrefix("/"), !text.hasPrefix("//"), !text.contains("\\"), text.utf8.count <= 512,
        text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
    else { return nil }
    return text
}
