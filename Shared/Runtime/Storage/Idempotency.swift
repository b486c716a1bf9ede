public import Foundation
import MessagePack
import SousCrypto
public import SousWire
import Synchronization

/// One remembered keyed write: who sent which key for which request, and the reply it got.
public struct IdempotencyRecord: Sendable, Equatable {
    public let user: String
    public let key: String
    public let method: String
    /// BLAKE2b of the method name and the request body: the same key with another body is a
    /// different request and gets `conflict`.
    public let digest: [UInt8]
    /// The reply's bytes; empty for a write whose transaction committed before its reply was
    /// known (``isAppliedWithoutReply``).
    public let reply: [UInt8]
    public let createdAt: Date

    /// The mark a write's own transaction leaves when its value is not the method's reply (the
    /// handler builds the reply after it): the write is applied, and the reply is stored once
    /// the handler returns. A MessagePack reply is never empty, so the two cannot be confused.
    public var isAppliedWithoutReply: Bool { reply.isEmpty }

    public init(user: String, key: String, method: String, digest: [UInt8], reply: [UInt8], createdAt: Date) {
        self.user = user
        self.key = key
        self.method = method
        self.digest = digest
        self.reply = reply
        self.createdAt = createdAt
    }
}

/// Where keyed writes are remembered: the service's own database (``SousDatabase``), so a
/// record commits with the write it protects and outlives a crash.
public protocol IdempotencyLedger: Sendable {
    func record(user: String, key: String) throws -> IdempotencyRecord?
    func save(_ record: IdempotencyRecord) throws
    /// Drops the applied mark of a key (``IdempotencyRecord/isAppliedWithoutReply``), if that
    /// is what is stored: its write answered with an error, and a retry runs again.
    func forgetMark(user: String, key: String) throws
}

/// A keyed write being answered: what ``SousDatabase/write(idempotent:_:)`` stores its reply
/// under. The runtime also keeps it as the running task's current scope, so that every other
/// write of the request marks the key applied in its own transaction without being told.
public final class IdempotencyScope: Sendable {
    @TaskLocal static var current: IdempotencyScope?

    let user: String
    let key: String
    let method: String
    let digest: [UInt8]
    /// The method's reply type: the only type a write may store as its reply.
    let replyType: Any.Type
    private let stored = Mutex<[UInt8]?>(nil)

    init(user: String, key: String, method: String, digest: [UInt8], replyType: Any.Type) {
        self.user = user
        self.key = key
        self.method = method
        self.digest = digest
        self.replyType = replyType
    }

    func record(reply: [UInt8]) -> IdempotencyRecord {
        IdempotencyRecord(user: user, key: key, method: method, digest: digest, reply: reply, createdAt: Date())
    }

    func recorded(_ reply: [UInt8]) { stored.withLock { $0 = reply } }

    /// Whether a committed transaction of this write left the applied mark (its value was not
    /// the method's reply): the key is taken, and the reply replaces the mark.
    private let marked = Atomic<Bool>(false)
    func markedApplied() { marked.store(true, ordering: .relaxed) }
    var isMarkedApplied: Bool { marked.load(ordering: .relaxed) }

    /// What a write transaction throws when its key was stored by another attempt meanwhile
    /// (another replica of the service, on a shared database); the write is rolled back and the
    /// guard answers with the other attempt's reply.
    static let takenConcurrently = ServiceError(
        .conflict, "idempotency key taken by a concurrent attempt of the same request", field: "header.idempotencyKey")
    var storedReply: [UInt8]? { stored.withLock { $0 } }
}

/// Applies each keyed write once: a retry with the same key replays the stored reply, even
/// after a restart; the same key with a different request is refused; a retry that arrives
/// while the first attempt runs waits for it. Only running keys are held in memory.
public final class IdempotencyGuard: Sendable {
    public typealias Outcome = Result<[UInt8], ServiceError>

    private struct Key: Hashable {
        let user: String
        let key: String
    }

    /// How long an applied mark without its reply counts as an attempt still answering: far
    /// longer than a handler takes from its commit to its reply, so an older mark is an attempt
    /// that died in between.
    static let markPatience: TimeInterval = 120

    private let ledger: any IdempotencyLedger
    private let running = Mutex<[Key: [CheckedContinuation<Bool, Never>]]>([:])

    public init(ledger: any IdempotencyLedger) {
        self.ledger = ledger
    }

    /// Runs `operation` for a keyed write of `method` with request `body`, or answers from the
    /// ledger. `operation` is handed the write's scope, which is also the task's current one;
    /// `reply` is the method's reply type. `keyCheck` says whether the ledger is read before
    /// `operation` or only when its write finds the key taken or it fails (``KeyCheck``).
    public func perform<Reply>(
        user: String, key: String, method: String, body: [UInt8], keyCheck: KeyCheck = .beforeHandler, reply: Reply.Type,
        _ operation: (IdempotencyScope) async -> Outcome
    ) async -> Outcome {
        let cacheKey = Key(user: user, key: key)
        await claim(cacheKey)
        defer { release(cacheKey) }
        let digest = Sodium.digest([Array(method.utf8), body])
        /// Set when a resumable write finds its key applied without a reply: the handler runs to
        /// finish what that attempt left.
        var resumes = false
        /// The stored reply (or the conflict of a reused key), nil when the key is new.
        func storedAnswer() throws -> Outcome? {
            guard let record = try ledger.record(user: user, key: key) else { return nil }
            guard record.method == method, record.digest == digest else {
                return .failure(
                    .conflict(
                        "idempotency key \"\(key)\" was already used for another request (\(record.method)); use a new key for a new request",
                        field: "header.idempotencyKey"
                    ))
            }
            if record.isAppliedWithoutReply, keyCheck == .resumable {
                resumes = true
                return nil
            }
            guard !record.isAppliedWithoutReply else {
                // Applied, its reply not stored (yet): never apply it again. A recent mark is
                // an attempt still answering (on another replica): retry and get its reply.
                // An old one is an attempt that died between its commit and its reply.
                if Date().timeIntervalSince(record.createdAt) < Self.markPatience {
                    return .failure(
                        ServiceError(
                            .unavailable,
                            "\(method) with idempotency key \"\(key)\" is applied and its first attempt is still answering; retry shortly",
                            field: "header.idempotencyKey"))
                }
                return .failure(
                    .conflict(
                        "\(method) with idempotency key \"\(key)\" was already applied, but its first attempt ended before it "
                            + "answered; read the current state instead of retrying", field: "header.idempotencyKey"))
            }
            return .success(record.reply)
        }
        func answerFromLedger() -> Outcome? {
            do {
                return try storedAnswer()
            } catch {
                return .failure(.internal("the idempotency record could not be read: \(error)"))
            }
        }
        if keyCheck != .atCommit, let answer = answerFromLedger() { return answer }
        let scope = IdempotencyScope(user: user, key: key, method: method, digest: digest, replyType: reply)
        // The mark is in the ledger already: this attempt's writes must not add it again.
        if resumes { scope.markedApplied() }
        let outcome = await IdempotencyScope.$current.withValue(scope) { await operation(scope) }
        if case .failure(let error) = outcome, error == IdempotencyScope.takenConcurrently {
            // Another attempt committed a write under this key (another replica's while this one
            // ran or, checked at commit, an earlier attempt): this one was rolled back. Answer
            // what that one stored (or, while it is still answering, ask for a retry).
            return answerFromLedger() ?? outcome
        }
        // A failed write is not remembered (a retry runs again), its applied mark included;
        // a resumed one keeps the mark its first attempt left, so a later retry resumes too.
        if case .failure = outcome {
            if scope.isMarkedApplied, !resumes { try? ledger.forgetMark(user: user, key: key) }
            // Checked at commit, a retry of a write that was applied may fail before its write
            // (the state it checks has changed since): it is answered as the first attempt was.
            // (A ledger that cannot be read leaves the attempt's own error.)
            if keyCheck == .atCommit, let answer = (try? storedAnswer()) ?? nil { return answer }
            return outcome
        }
        // A retry whose handler wrote nothing: the stored reply, never replaced by a new one.
        if keyCheck == .atCommit, scope.storedReply == nil, !scope.isMarkedApplied, let answer = answerFromLedger() { return answer }
        // A reply that no write transaction produced (or that differs from the one stored) is
        // recorded now, after the write; a transaction that committed before it left the
        // applied mark, so a crash in between makes a retry answer `conflict`, never apply twice.
        if case .success(let reply) = outcome, scope.storedReply != reply {
            do {
                try ledger.save(scope.record(reply: reply))
            } catch {
                return .failure(.internal("the write was applied but its idempotency record could not be saved: \(error)"))
            }
        }
        return outcome
    }

    /// Waits until no other attempt with this key is running, then marks this one as running.
    private func claim(_ key: Key) async {
        while true {
            // True: claimed. False: the running attempt finished; look again.
            let claimed = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let free = running.withLock { running -> Bool in
                    if var waiters = running[key] {
                        waiters.append(continuation)
                        running[key] = waiters
                        return false
                    }
                    running[key] = []
                    return true
                }
                if free { continuation.resume(returning: true) }
            }
            if claimed { return }
        }
    }

    private func release(_ key: Key) {
        let waiters = running.withLock { running in running.removeValue(forKey: key) ?? [] }
        for waiter in waiters { waiter.resume(returning: false) }
    }
}

/// A ledger in memory, for hosts without a database (tests of the runtime itself): bounded to
/// its newest ``capacity`` records.
public final class MemoryIdempotencyLedger: IdempotencyLedger {
    public let capacity: Int
    private let records = Mutex<(byKey: [String: IdempotencyRecord], order: [String])>(([:], []))

    public init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    public func record(user: String, key: String) throws -> IdempotencyRecord? {
        records.withLock { $0.byKey["\(user.utf8.count):\(user)\(key)"] }
    }

    public func forgetMark(user: String, key: String) throws {
        records.withLock { state in
            let id = "\(user.utf8.count):\(user)\(key)"
            if state.byKey[id]?.isAppliedWithoutReply == true { state.byKey[id] = nil }
        }
    }

    public func save(_ record: IdempotencyRecord) throws {
        let id = "\(record.user.utf8.count):\(record.user)\(record.key)"
        records.withLock { state in
            if state.byKey.updateValue(record, forKey: id) == nil { state.order.append(id) }
            while state.order.count > capacity { state.byKey[state.order.removeFirst()] = nil }
        }
    }
}
