import Foundation
import SousWire
import Synchronization
import ZeroMQ

/// The one thread and the one DEALER socket a ``ServiceClient`` waits on for all its calls.
///
/// Calls from any number of tasks are handed over through an in-memory inbox and an `inproc`
/// wake-up socket; replies are matched to calls by request id, so a late reply to an abandoned
/// attempt is recognised and dropped. An attempt that times out without any reply arriving on
/// the socket since it was sent means the connection may be dead (a peer gone without closing
/// TCP): the socket is then replaced and every waiting request sent again on the new one.
/// However many calls wait, the client uses one thread.
///
/// With several replicas (``Replicas``) the socket queues a request only on a connection that
/// is up, so a request made before any is (the first call, or every replica down for a moment)
/// is held here and sent as soon as the socket can take it, within its attempt's time.
final class ClientLoop: @unchecked Sendable {
    typealias Completion = CheckedContinuation<Result<Envelope.Reply, ServiceError>, Never>

    struct Call {
        let attempt: ClientAttempt
        /// Names the call for ``cancel(_:)``.
        let token: UUID
        let completion: Completion
    }

    private struct Inbox {
        var calls: [Call] = []
        /// Calls whose callers' tasks were cancelled.
        var cancelled: [UUID] = []
        var stopping = false
    }

    private let service: String
    private let endpoint: String
    private let options: ClientOptions
    private let context: ZMQContext
    private let makeID: @Sendable () -> String
    private let curve: CurveClientSetup?

    // Shared with callers.
    private let inbox = Mutex(Inbox())
    private let wakeSender: Mutex<ZMQSocket?>
    private let wakeEndpoint: String

    // Owned by the loop thread.
    private struct Pending {
        let call: Call
        var id: String
        var frames: [ZMQFrame]
        var attemptsLeft: Int
        var sentAt: ContinuousClock.Instant
        var attemptDeadline: ContinuousClock.Instant
        let callDeadline: ContinuousClock.Instant?
        let idempotencyKey: String?
        var lastProblem: String
    }

    private var pending: [String: Pending] = [:]
    /// Ids of pending attempts the socket could not take yet, oldest first.
    private var unsent: [String] = []
    private var lastReplyAt = ContinuousClock.now
    /// Whether the dealer sent since its replies were last read to EAGAIN (see run).
    private var sentSinceRead = false

    init(
        service: String, endpoint: String, options: ClientOptions, curve: CurveClientSetup?, context: ZMQContext,
        makeID: @escaping @Sendable () -> String
    ) throws(ZMQError) {
        self.service = service
        self.curve = curve
        self.endpoint = endpoint
        self.options = options
        self.context = context
        self.makeID = makeID
        wakeEndpoint = "inproc://sous-client-wake-\(UUID().uuidString)"
        let wake = try context.socket(.pull)
        try wake.setReceiveHighWaterMark(0)
        try wake.bind(wakeEndpoint)
        let sender = try context.socket(.push)
        try sender.setSendHighWaterMark(0)
        try sender.setLinger(milliseconds: 0)
        try sender.connect(wakeEndpoint)
        wakeSender = Mutex(sender)
        let dealer = try Self.connect(endpoint, curve: curve, context: context)
        startThread(named: "sous-client-\(service)") { [self] in run(wake: wake, dealer: dealer) }
    }

    static func connect(_ endpoint: String, curve: CurveClientSetup?, context: ZMQContext) throws(ZMQError) -> ZMQSocket {
        let socket = try context.socket(.dealer)
        if let curve { try socket.setCurveClient(serverKey: curve.serverKey, keyPair: curve.keyPair) }
        // Unsent requests are worthless once their callers gave up: never linger on close.
        try socket.setLinger(milliseconds: 0)
        try socket.setMaxMessageSize(Int64(SousProtocol.maxMessageBytes))
        try socket.setReconnectInterval(milliseconds: 100, max: 2_000)
        try socket.setSendHighWaterMark(10_000)
        try Replicas.connect(socket, to: endpoint)
        return socket
    }

    /// Hands a call to the loop; `completion` is resumed exactly once.
    func submit(_ attempt: ClientAttempt, token: UUID, _ completion: Completion) {
        guard !Task.isCancelled else {
            completion.resume(returning: .failure(.unavailable("the call to \(service) was cancelled before it was sent")))
            return
        }
        let accepted = inbox.withLock { inbox -> Bool in
            guard !inbox.stopping else { return false }
            inbox.calls.append(Call(attempt: attempt, token: token, completion: completion))
            return true
        }
        guard accepted else {
            completion.resume(returning: .failure(.unavailable("the \(service) client was closed")))
            return
        }
        wake()
    }

    /// Gives up the call `token` names, if it is still waiting: it fails with `unavailable` at
    /// once, and a reply that comes later is dropped.
    func cancel(_ token: UUID) {
        inbox.withLock { $0.cancelled.append(token) }
        wake()
    }

    /// Ends the loop: waiting calls fail with `unavailable`.
    func stop() {
        inbox.withLock { $0.stopping = true }
        wake()
    }

    private func wake() {
        wakeSender.withLock { socket in
            _ = try? socket?.send(multipart: [[]], dontWait: true)
        }
    }

    // MARK: The loop thread

    private func run(wake: ZMQSocket, dealer initial: ZMQSocket) {
        var dealer = initial
        defer {
            for entry in pending.values { entry.call.completion.resume(returning: .failure(.unavailable("the \(service) client was closed"))) }
            pending = [:]
            dealer.close()
            wake.close()
            wakeSender.withLock { socket in
                socket?.close()
                socket = nil
            }
        }
        // The sockets' descriptors are edge-triggered (ZMQSocket.eventDescriptor): the wake
        // socket is read when signalled, the dealer until EAGAIN on every pass and again after
        // any send (a send may take in the commands that signalled a reply), then one poll(2).
        var wakeSignalled = true
        while true {
            if wakeSignalled {
                while (try? wake.receiveMultipart(dontWait: true)) != nil {}
                let taken = inbox.withLock { inbox in
                    defer {
                        inbox.calls = []
                        inbox.cancelled = []
                    }
                    return inbox
                }
                for call in taken.calls { start(call, on: dealer) }
                // After starting: a call cancelled right after it was handed over is found.
                for token in taken.cancelled { abandon(token) }
                if taken.stopping { return }
            }
            sentSinceRead = false
            guard readReplies(dealer) else { return }
            if !unsent.isEmpty { sendUnsent(on: dealer) }
            if expireAttempts(on: dealer) {
                // No reply since the expired attempt was sent: the connection may be dead. A new
                // socket reconnects, and every waiting request goes out again on it.
                if let fresh = try? Self.connect(endpoint, curve: curve, context: context) {
                    dealer.close()
                    dealer = fresh
                    unsent = []
                    for id in pending.keys.sorted() { resend(id, on: dealer) }
                }
            }
            if sentSinceRead {
                guard readReplies(dealer) else { return }
            }
            let now = ContinuousClock.now
            let nextDeadline = pending.values.map(\.attemptDeadline).min()
            let timeout = nextDeadline.map { max($0 - now, .zero) } ?? .seconds(1)
            do {
                let descriptors = [try wake.eventDescriptor(), try dealer.eventDescriptor()]
                wakeSignalled = try ZMQPoller.wait(descriptors, timeout: min(timeout, .seconds(1)))[0]
            } catch {
                if error.isTerminated { return }
                wakeSignalled = true
            }
        }
    }

    private func start(_ call: Call, on dealer: ZMQSocket) {
        let attempt = call.attempt
        let configured = min(max(attempt.timeout ?? options.timeout, .milliseconds(1)), ClientAttempt.longestAttempt)
        let entry = Pending(
            call: call, id: "", frames: [], attemptsLeft: 1 + min(max(options.retries, 0), 10), sentAt: .now, attemptDeadline: .now,
            callDeadline: attempt.deadline, idempotencyKey: attempt.isWrite ? (attempt.idempotencyKey ?? UUID().uuidString) : nil,
            lastProblem: "no time was left to send it"
        )
        launch(entry, configured: configured, on: dealer)
    }

    /// Sends the next attempt of `entry` under a new id, or fails the call if none is left.
    private func launch(_ entry: Pending, configured: Duration, on dealer: ZMQSocket) {
        var entry = entry
        let now = ContinuousClock.now
        var attemptTimeout = configured
        if let callDeadline = entry.callDeadline { attemptTimeout = min(attemptTimeout, callDeadline - now) }
        guard entry.attemptsLeft > 0, attemptTimeout >= .milliseconds(1) else {
            fail(entry)
            return
        }
        entry.attemptsLeft -= 1
        entry.id = makeID()
        let deadline = Int64((Date().timeIntervalSince1970 + ClientAttempt.seconds(attemptTimeout)) * 1000)
        let header = RequestHeader(
            method: entry.call.attempt.method, id: entry.id, session: entry.call.attempt.session, onBehalfOf: entry.call.attempt.onBehalfOf,
            deadline: deadline, idempotencyKey: entry.idempotencyKey
        )
        do {
            entry.frames = try Envelope.requestFrames(header, body: entry.call.attempt.body)
        } catch {
            entry.call.completion.resume(returning: .failure(.internal("request header could not be encoded: \(error)")))
            return
        }
        entry.sentAt = now
        entry.attemptDeadline = now + attemptTimeout
        pending[entry.id] = entry
        resend(entry.id, on: dealer)
    }

    /// Sends the attempt `id`, or keeps it for when the socket can take it; false in that case.
    @discardableResult
    private func resend(_ id: String, on dealer: ZMQSocket) -> Bool {
        guard let entry = pending[id] else { return true }
        do {
            if try dealer.send(multipart: entry.frames, dontWait: true) {
                sentSinceRead = true
                return true
            }
            if !unsent.contains(id) { unsent.append(id) }
            return false
        } catch {
            pending[id]?.lastProblem = "\(error)"
            return true
        }
    }

    /// Sends what the socket could not take before, in order, until it refuses again.
    private func sendUnsent(on dealer: ZMQSocket) {
        let waiting = unsent.filter { pending[$0] != nil }
        unsent = []
        for (position, id) in waiting.enumerated() where !resend(id, on: dealer) {
            unsent = Array(waiting[position...])
            return
        }
    }

    /// Reads every reply waiting on the dealer; false once the context is terminated.
    private func readReplies(_ dealer: ZMQSocket) -> Bool {
        while true {
            let frames: [ZMQFrame]
            do {
                frames = try dealer.receiveMultipart(dontWait: true)
            } catch {
                return !error.isTerminated
            }
            lastReplyAt = .now
            guard let reply = try? Envelope.parseReply(frames) else { continue }
            // A reply to an abandoned attempt has no entry any more: dropped.
            guard let entry = pending.removeValue(forKey: reply.header.id) else { continue }
            entry.call.completion.resume(returning: .success(reply))
        }
    }

    /// Retries or fails the attempts whose time is up; true when the socket looks dead.
    private func expireAttempts(on dealer: ZMQSocket) -> Bool {
        let now = ContinuousClock.now
        var suspect = false
        for (id, entry) in pending where entry.attemptDeadline <= now {
            pending[id] = nil
            var expired = entry
            let seconds = ClientAttempt.seconds(entry.attemptDeadline - entry.sentAt)
            if let position = unsent.firstIndex(of: id) {
                // Never sent: no connection to any replica came up in time. A new socket would
                // not connect sooner.
                unsent.remove(at: position)
                expired.lastProblem = "not sent within \(seconds) s: no connection to it was up"
            } else {
                expired.lastProblem = "no reply within \(seconds) s"
                if lastReplyAt < entry.sentAt { suspect = true }
            }
            let configured = min(max(entry.call.attempt.timeout ?? options.timeout, .milliseconds(1)), ClientAttempt.longestAttempt)
            launch(expired, configured: configured, on: dealer)
        }
        return suspect
    }

    /// Fails the waiting call `token` names; a token whose call already ended names nothing.
    private func abandon(_ token: UUID) {
        guard let id = pending.first(where: { $0.value.call.token == token })?.key, let entry = pending.removeValue(forKey: id) else { return }
        entry.call.completion.resume(
            returning: .failure(.unavailable("the call to \(service) (\(entry.call.attempt.method)) was cancelled before it was answered")))
    }

    private func fail(_ entry: Pending) {
        let made = 1 + min(max(options.retries, 0), 10) - entry.attemptsLeft
        entry.call.completion.resume(
            returning: .failure(
                .unavailable(
                    "\(service) did not answer \(entry.call.attempt.method) at \(endpoint) (\(made) attempt\(made == 1 ? "" : "s"), \(entry.lastProblem))"
                )))
    }
}
