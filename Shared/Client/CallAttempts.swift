import Foundation
import SousWire
import ZeroMQ

/// A call's attempts (Lazy Pirate): the one out now and how many may follow, each with its own
/// id, the same idempotency key, and a time limit that ends by the call's deadline.
struct CallAttempts {
    let attempt: ClientAttempt
    /// Each attempt's own time limit (shortened to fit the call's deadline).
    let configured: Duration
    let idempotencyKey: String?
    /// When the call must be over: its own deadline, or its limit from now (the sooner).
    let callDeadline: ContinuousClock.Instant?
    var id = ""
    var frames: [ZMQFrame] = []
    var attemptsLeft: Int
    var sentAt = ContinuousClock.now
    var attemptDeadline = ContinuousClock.now
    var lastProblem = "no time was left to send it"

    init(_ attempt: ClientAttempt, options: ClientOptions) {
        self.attempt = attempt
        configured = min(max(attempt.timeout ?? options.timeout, .milliseconds(1)), ClientAttempt.longestAttempt)
        attemptsLeft = 1 + min(max(options.retries, 0), 10)
        let limited = options.callLimit.map { ContinuousClock.now + $0 }
        callDeadline = [attempt.deadline, limited].compactMap { $0 }.min()
        // The same key on every attempt: the service applies a retried write once.
        idempotencyKey = attempt.isWrite ? (attempt.idempotencyKey ?? UUID.random().uuidString) : nil
    }

    /// Makes the next attempt under a new id, to be sent now; false when none is left or
    /// no time is (the call then fails with ``failure(service:endpoint:options:)``).
    mutating func next(id: String) throws(ServiceError) -> Bool {
        let now = ContinuousClock.now
        var attemptTimeout = configured
        if let callDeadline { attemptTimeout = min(attemptTimeout, callDeadline - now) }
        guard attemptsLeft > 0, attemptTimeout >= .milliseconds(1) else { return false }
        attemptsLeft -= 1
        self.id = id
        let deadline = Int64((Date().timeIntervalSince1970 + ClientAttempt.seconds(attemptTimeout)) * 1000)
        let header = RequestHeader(
            method: attempt.method, id: id, session: attempt.session, onBehalfOf: attempt.onBehalfOf, deadline: deadline,
            idempotencyKey: idempotencyKey, forwardedFor: attempt.forwardedFor
        )
        do {
            frames = try Envelope.requestFrames(header, body: attempt.body)
        } catch {
            throw .internal("request header could not be encoded: \(error)")
        }
        sentAt = now
        attemptDeadline = now + attemptTimeout
        return true
    }

    func failure(service: String, endpoint: String, options: ClientOptions) -> ServiceError {
        let made = 1 + min(max(options.retries, 0), 10) - attemptsLeft
        return .unavailable(
            "\(service) did not answer \(attempt.method) at \(endpoint) (\(made) attempt\(made == 1 ? "" : "s"), \(lastProblem))")
    }
}
