import HTTPTypes
import SousWire

/// Why a request was refused, as the page shows it: a status, one sentence for a person, and
/// the form field to blame. Nothing internal (endpoints, stack traces, SQL) is ever in it.
struct WebError: Error, Sendable {
    var status: HTTPResponse.Status
    var message: String
    var field: String?
    /// The session has ended (signed out elsewhere, expired): forget the cookie, sign in again.
    var sessionEnded = false

    static func field(_ name: String, _ message: String) -> WebError { WebError(status: .unprocessableContent, message: message, field: name) }
    static func badForm(_ message: String) -> WebError { WebError(status: .badRequest, message: message) }
    static func tooLarge(_ message: String) -> WebError { WebError(status: .contentTooLarge, message: message) }
    static let notFound = WebError(status: .notFound, message: "There is no such page.")
    static let formExpired = WebError(
        status: .forbidden, message: "This form has expired or did not come from this site. Go back, reload the page and send it again.")
    static let rateLimited = WebError(status: .tooManyRequests, message: "Too many requests from your address. Wait a minute and try again.")
    static let signInRequired = WebError(status: .unauthorized, message: "Sign in to see this page.", sessionEnded: true)

    /// What a person is told about a service's error: its sentence for what they did wrong
    /// (the services name the field), a plain one for what went wrong on the server's side.
    init(_ error: ServiceError) {
        field = error.field
        switch error.code {
        case .badRequest, .quotaExceeded:
            status = .unprocessableContent
            message = error.message
        case .notFound:
            status = .notFound
            message = error.message
        case .conflict:
            status = .conflict
            message = error.message
        case .unauthorized:
            status = .unauthorized
            message = "Your session has ended. Sign in again."
            sessionEnded = true
        case .forbidden:
            status = .forbidden
            message = error.message
        case .rateLimited:
            status = .tooManyRequests
            message = error.message
        case .unavailable, .timeout:
            status = .serviceUnavailable
            message = "Sous is not answering right now. Try again in a moment."
            field = nil
        default:
            status = .internalServerError
            message = "Something went wrong on our side. Try again in a moment."
            field = nil
        }
    }

    init(status: HTTPResponse.Status, message: String, field: String? = nil, sessionEnded: Bool = false) {
        self.status = status
        self.message = message
        self.field = field
        self.sessionEnded = sessionEnded
    }
}
