public import Foundation
public import Logging
public import ServiceLifecycle
import Synchronization

/// Sends what a channel's messages carry (mail through the relay, say). A failure says whether
/// another attempt could pass.
public protocol OutboxTransport: Sendable {
    func deliver(_ item: Outbox.Item) async throws(DeliveryFailure)
}

public struct DeliveryFailure: Error, Sendable, CustomStringConvertible {
    /// Never worth another attempt: a refused address, a channel that is gone.
    public var permanent: Bool
    public var reason: String

    public init(permanent: Bool, reason: String) {
        self.permanent = permanent
        self.reason = reason
    }

    public var description: String { reason }
}

/// Delivers a service's outbox: up to ``concurrency`` attempts in flight at once, a new one
/// started as soon as any ends, each attempt's outcome written back at once. An attempt still
/// running after ``patience`` gives its slot back and goes on among at most ``capacity``
/// attempts in all: endpoints that never answer wait out their own timeouts without holding
/// back anyone else's delivery. A failed attempt is retried after a growing pause
/// (``Outbox/backoff(afterAttempt:)``) and given up a day after the message was queued. A
/// message being sent is leased to this loop, so replicas sharing a database never send it
/// twice; one whose process died mid-attempt is sent again when its lease ends (a relay may
/// then get it twice, under the same Message-ID).
public final class OutboxCourier: Service, Sendable {
    /// Runs in the transaction that marks a message failed for good, so what the service does
    /// about it (switching a channel off, telling the user elsewhere) is written with it.
    public typealias FinalFailure = @Sendable (_ item: Outbox.Item, _ failure: DeliveryFailure, _ now: Date, _ session: any SQLSession) throws -> Void

    public let database: SousDatabase
    private let transports: [String: any OutboxTransport]
    private let clock: WallClock
    private let logger: Logger
    private let concurrency: Int
    private let capacity: Int
    private let patience: Duration
    private let onFinalFailure: FinalFailure?
    private let wakeup = Wakeup()
    private let slotFreed = Wakeup()
    private let outcomes = Wakeup()
    private let waiters = Mutex<[String: [CheckedContinuation<Void, Never>]]>([:])
    /// Attempts younger than the patience, and all attempts still running.
    private let inFlight = Atomic<Int>(0)
    private let running = Atomic<Int>(0)

    /// - Parameters:
    ///   - concurrency: attempts started and not yet past `patience`.
    ///   - capacity: attempts running in all (each holds a connection until its own timeout).
    public init(
        database: SousDatabase, transports: [String: any OutboxTransport], clock: WallClock, logger: Logger, concurrency: Int = 32,
        capacity: Int? = nil, patience: Duration = .seconds(2), onFinalFailure: FinalFailure? = nil
    ) {
        self.database = database
        self.transports = transports
        self.clock = clock
        self.logger = logger
        self.concurrency = max(1, concurrency)
        self.capacity = max(self.concurrency, capacity ?? concurrency)
        self.patience = patience
        self.onFinalFailure = onFinalFailure
    }

    /// Called after a write that queued a message, so it leaves now rather than at the next look.
    public func wake() { wakeup.signal() }

    /// Returns once an attempt's outcome has been written since the last call (at once if one
    /// was meanwhile): for one waiter that rereads the outbox after each, as tests do.
    public func outcomeWritten() async { await outcomes.wait() }

    /// Returns once an attempt at message `id` has written its outcome, at once if `done`
    /// (read after the wait is registered, so an outcome written meanwhile is not missed), or
    /// after `limit`.
    public func waitForAttempt(on id: String, within limit: Duration, done: @escaping @Sendable () -> Bool) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    self.waiters.withLock { $0[id, default: []].append(continuation) }
                    if done() { self.resumeWaiters(of: id) }
                }
            }
            group.addTask { try? await Task.sleep(for: limit) }
            await group.next()
            resumeWaiters(of: id)
            group.cancelAll()
        }
    }

    private func resumeWaiters(of id: String) {
        for waiter in waiters.withLock({ $0.removeValue(forKey: id) }) ?? [] { waiter.resume() }
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                var lastPrune = Date.distantPast
                while !Task.isCancelled {
                    let now = self.clock.now
                    if now.timeIntervalSince(lastPrune) > 3600 {
                        try? self.database.write { try Outbox.prune(now: now, $0) }
                        lastPrune = now
                    }
                    let free = min(
                        self.concurrency - self.inFlight.load(ordering: .acquiring), self.capacity - self.running.load(ordering: .acquiring))
                    let due = free > 0 ? self.claim(now: now, limit: free) : []
                    for item in due {
                        self.inFlight.add(1, ordering: .releasing)
                        self.running.add(1, ordering: .releasing)
                        let slot = Slot()
                        group.addTask {
                            // Past the patience the attempt gives its slot back and goes on.
                            let timer = Task {
                                try await Task.sleep(for: self.patience)
                                if slot.giveBack() {
                                    self.inFlight.subtract(1, ordering: .releasing)
                                    self.slotFreed.signal()
                                }
                            }
                            await self.attempt(item)
                            timer.cancel()
                            if slot.giveBack() { self.inFlight.subtract(1, ordering: .releasing) }
                            self.running.subtract(1, ordering: .releasing)
                            self.slotFreed.signal()
                        }
                    }
                    if free <= 0 || due.count == free {
                        // Every slot is taken and more may be due: go on when one frees.
                        await self.slotFreed.wait()
                        continue
                    }
                    let next = (try? self.database.read { try Outbox.nextDue($0) }) ?? nil
                    await self.sleep(until: next ?? now.addingTimeInterval(60))
                }
            }
        }
    }

    private func claim(now: Date, limit: Int) -> [Outbox.Item] {
        do {
            return try database.write { try Outbox.claimDue(now: now, limit: limit, $0) }
        } catch {
            logger.warning("outbox unreadable", metadata: ["error": "\(error)"])
            return []
        }
    }

    private func attempt(_ item: Outbox.Item) async {
        var outcome: DeliveryFailure?
        if let transport = transports[item.channel] {
            do throws(DeliveryFailure) { try await transport.deliver(item) } catch { outcome = error }
        } else {
            outcome = DeliveryFailure(permanent: true, reason: "this service has no \(item.channel) channel configured")
        }
        let now = clock.now
        do {
            let handedOver = try database.write { session in
                if let outcome {
                    let final = try Outbox.failed(item, reason: outcome.reason, permanent: outcome.permanent, now: now, session)
                    if final, let onFinalFailure {
                        try onFinalFailure(item, outcome, now, session)
                        return true
                    }
                } else {
                    try Outbox.sent(item.id, now: now, session)
                }
                return false
            }
            // What the service did about a failure may have queued messages (a notice elsewhere).
            if handedOver { wakeup.signal() }
        } catch {
            // The lease ends and the message is tried again: sent twice at worst, never lost.
            logger.error("outbox outcome not written", metadata: ["id": "\(item.id)", "error": "\(error)"])
        }
        resumeWaiters(of: item.id)
        outcomes.signal()
        if let outcome {
            logger.notice(
                "delivery failed",
                metadata: [
                    "channel": "\(item.channel)", "id": "\(item.id)", "attempt": "\(item.attempts)", "permanent": "\(outcome.permanent)",
                    "reason": "\(outcome.reason)",
                ])
        } else {
            logger.debug("delivered", metadata: ["channel": "\(item.channel)", "id": "\(item.id)", "attempt": "\(item.attempts)"])
        }
    }

    private func sleep(until instant: Date) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.clock.sleep(until: instant, atMost: .seconds(60)) }
            group.addTask { await self.wakeup.wait() }
            await group.next()
            group.cancelAll()
        }
    }
}

/// An attempt's slot, given back once: when the attempt ends or its patience runs out.
private final class Slot: Sendable {
    private let held = Atomic<Bool>(true)

    func giveBack() -> Bool { held.exchange(false, ordering: .acquiringAndReleasing) }
}
