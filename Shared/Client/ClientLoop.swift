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
/// A call whose first attempt was sent from its caller's thread on a socket of the client's
/// ``SocketPool`` (``ServiceClient/send(_:waitingHereFor:)``) and not answered there in time is
/// handed over here with that socket (``adopt(_:)``): the loop waits on it for the reply, and
/// makes any further attempt on its own socket.
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
        /// Calls whose first attempt is out on a socket of the pool.
        var adopted: [Pending] = []
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
    private let pool: SocketPool

    // Shared with callers.
    private let inbox = Mutex(Inbox())
    private let wakeSender: Mutex<ZMQSocket?>
    private let wakeEndpoint: String

    /// A call waiting for its reply.
    struct Pending {
        let call: Call
        var attempts: CallAttempts
        /// The pool's socket the attempt went out on, or nil for the loop's own.
        var socket: ZMQSocket?
    }

    // Owned by the loop thread.
    private var pending: [String: Pending] = [:]
    /// Ids of pending attempts the socket could not take yet, oldest first.
    private var unsent: [String] = []
    private var lastReplyAt = ContinuousClock.now
    /// Whether the dealer sent since its replies were last read to EAGAIN (see run).
    private var sentSinceRead = false

    init(
        service: String, endpoint: String, options: ClientOptions, curve: CurveClientSetup?, context: ZMQContext, pool: SocketPool,
        makeID: @escaping @Sendable () -> String
    ) throws(ZMQError) {
        self.service = service
        self.pool = pool
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

    /// Takes over a call whose first attempt is out on `pending.socket`; its completion is
    /// resumed exactly once.
    func adopt(_ pending: Pending) {
        guard !Task.isCancelled else {
            // Its reply may still come on the pool's socket: whoever borrows it next skips it.
            if let socket = pending.socket { pool.giveBack(socket) }
            pending.call.completion.resume(returning: .failure(.unavailable("the call to \(service) was cancelled before it was answered")))
            return
        }
        let accepted = inbox.withLock { inbox -> Bool in
            guard !inbox.stopping else { return false }
            inbox.adopted.append(pending)
            return true
        }
        guard accepted else {
            if let socket = pending.socket { pool.discard(socket) }
            pending.call.completion.resume(returning: .failure(.unavailable("the \(service) client was closed")))
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
            let left = inbox.withLock { inbox in
                defer { inbox.adopted = [] }
                return inbox.adopted
            }
            for entry in Array(pending.values) + left {
                if let socket = entry.socket { pool.discard(socket) }
                entry.call.completion.resume(returning: .failure(.unavailable("the \(service) client was closed")))
            }
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
                        inbox.adopted = []
                        inbox.cancelled = []
                    }
                    return inbox
                }
                for entry in taken.adopted { pending[entry.attempts.id] = entry }
                for call in taken.calls { start(call, on: dealer) }
                // After starting: a call cancelled right after it was handed over is found.
                for token in taken.cancelled { abandon(token) }
                if taken.stopping { return }
            }
            sentSinceRead = false
            guard readReplies(dealer) else { return }
            guard readAdoptedReplies() else { return }
            if !unsent.isEmpty { sendUnsent(on: dealer) }
            if expireAttempts(on: dealer) {
                // No reply since the expired attempt was sent: the connection may be dead. A new
                // socket reconnects, and every waiting request goes out again on it.
                if let fresh = try? Self.connect(endpoint, curve: curve, context: context) {
                    dealer.close()
                    dealer = fresh
                    unsent = []
                    for (id, entry) in pending.sorted(by: { $0.key < $1.key }) where entry.socket == nil { resend(id, on: dealer) }
                }
            }
            if sentSinceRead {
                guard readReplies(dealer) else { return }
            }
            let now = ContinuousClock.now
            let nextDeadline = pending.values.map(\.attempts.attemptDeadline).min()
            let timeout = nextDeadline.map { max($0 - now, .zero) } ?? .seconds(1)
            do {
                // The pool's sockets were read to EAGAIN above (readAdoptedReplies).
                let adopted = try pending.values.compactMap(\.socket).map { socket throws(ZMQError) in try socket.eventDescriptor() }
                let descriptors = [try wake.eventDescriptor(), try dealer.eventDescriptor()] + adopted
                wakeSignalled = try ZMQPoller.wait(descriptors, timeout: min(timeout, .seconds(1)))[0]
            } catch {
                if error.isTerminated { return }
                wakeSignalled = true
            }
        }
    }

    private func start(_ call: Call, on dealer: ZMQSocket) {
        launch(Pending(call: call, attempts: CallAttempts(call.attempt, options: options)), on: dealer)
    }

    /// Sends the next attempt of `entry` under a new id on the loop's socket, or fails the call
    /// if none is left.
    private func launch(_ entry: Pending, on dealer: ZMQSocket) {
        var entry = entry
        entry.socket = nil
        do {
            guard try entry.attempts.next(id: makeID()) else {
                entry.call.completion.resume(returning: .failure(entry.attempts.failure(service: service, endpoint: endpoint, options: options)))
                return
            }
        } catch {
            entry.call.completion.resume(returning: .failure(error))
            return
        }
        pending[entry.attempts.id] = entry
        resend(entry.attempts.id, on: dealer)
    }

    /// Sends the attempt `id`, or keeps it for when the socket can take it; false in that case.
    @discardableResult
    private func resend(_ id: String, on dealer: ZMQSocket) -> Bool {
        guard let entry = pending[id] else { return true }
        do {
            if try dealer.send(multipart: entry.attempts.frames, dontWait: true) {
                sentSinceRead = true
                return true
            }
            if !unsent.contains(id) { unsent.append(id) }
            return false
        } catch {
            pending[id]?.attempts.lastProblem = "\(error)"
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
            guard let entry = pending[reply.header.id], entry.socket == nil else { continue }
            pending[reply.header.id] = nil
            entry.call.completion.resume(returning: .success(reply))
        }
    }

    /// Reads every reply waiting on the pool's sockets the loop holds; a socket whose reply
    /// came goes back to the pool. False once the context is terminated.
    private func readAdoptedReplies() -> Bool {
        for (id, entry) in pending {
            guard let socket = entry.socket else { continue }
            let reply: Envelope.Reply?
            do {
                // What is waiting, without blocking; a reply to an earlier attempt on this
                // socket (its caller gave up) is skipped.
                reply = try socket.reply(to: id, by: .now)
            } catch {
                if error.isTerminated { return false }
                continue
            }
            guard let reply else { continue }
            pending[id] = nil
            pool.giveBack(socket)
            entry.call.completion.resume(returning: .success(reply))
        }
        return true
    }

    /// Retries or fails the attempts whose time is up; true when the socket looks dead.
    private func expireAttempts(on dealer: ZMQSocket) -> Bool {
        let now = ContinuousClock.now
        var suspect = false
        for (id, entry) in pending where entry.attempts.attemptDeadline <= now {
            pending[id] = nil
            var expired = entry
            let seconds = ClientAttempt.secondsText(entry.attempts.attemptDeadline - entry.attempts.sentAt)
            if let socket = entry.socket {
                // The pool's socket may be the dead one: closed, and the next attempt goes on
                // the loop's own.
                pool.discard(socket)
                expired.attempts.lastProblem = "no reply within \(seconds) s"
            } else if let position = unsent.firstIndex(of: id) {
                // Never sent: no connection to any replica came up in time. A new socket would
                // not connect sooner.
                unsent.remove(at: position)
                expired.attempts.lastProblem = "not sent within \(seconds) s: no connection to it was up"
            } else {
                expired.attempts.lastProblem = "no reply within \(seconds) s"
                if lastReplyAt < entry.attempts.sentAt { suspect = true }
            }
            launch(expired, on: dealer)
        }
        return suspect
    }

    /// Fails the waiting call `token` names; a token whose call already ended names nothing.
    private func abandon(_ token: UUID) {
        guard let id = pending.first(where: { $0.value.call.token == token })?.key, let entry = pending.removeValue(forKey: id) else { return }
        // Its reply may still come on the pool's socket: whoever borrows it next skips it.
        if let socket = entry.socket { pool.giveBack(socket) }
        entry.call.completion.resume(
            returning: .failure(.unavailable("the call to \(service) (\(entry.call.attempt.method)) was cancelled before it was answered")))
    }
}
