import Foundation
public import Logging
public import ServiceLifecycle

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

/// Delivers a service's outbox: every message due, up to ``concurrency`` at once (a slow
/// endpoint holds one of them, never the others), each attempt's outcome written back at once.
/// A failed attempt is retried after a growing pause (``Outbox/backoff(afterAttempt:)``) and
/// given up a day after the message was queued. A message being sent is leased to this loop,
/// so replicas sharing a database never send it twice; one whose process died mid-attempt is
/// sent again when its lease ends (a relay may then get it twice, under the same Message-ID).
public final class OutboxCourier: Service, Sendable {
    public let database: SousDatabase
    private let transports: [String: any OutboxTransport]
    private let clock: WallClock
    private let logger: Logger
    private let concurrency: Int
    private let wakeup = Wakeup()
    private let outcomes = Wakeup()

    public init(database: SousDatabase, transports: [String: any OutboxTransport], clock: WallClock, logger: Logger, concurrency: Int = 32) {
        self.database = database
        self.transports = transports
        self.clock = clock
        self.logger = logger
        self.concurrency = max(1, concurrency)
    }

    /// Called after a write that queued a message, so it leaves now rather than at the next look.
    public func wake() { wakeup.signal() }

    /// Returns once an attempt's outcome has been written since the last call (at once if one
    /// was meanwhile): for one waiter that rereads the outbox after each, as tests do.
    public func outcomeWritten() async { await outcomes.wait() }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var lastPrune = Date.distantPast
            while !Task.isCancelled {
                let now = self.clock.now
                if now.timeIntervalSince(lastPrune) > 3600 {
                    try? self.database.write { try Outbox.prune(now: now, $0) }
                    lastPrune = now
                }
                let delivered = await self.deliverDue(now: now)
                if delivered { continue }
                let next = (try? self.database.read { try Outbox.nextDue($0) }) ?? nil
                await self.sleep(until: next ?? now.addingTimeInterval(60))
            }
        }
    }

    /// Delivers what is due at `now` (one batch); whether there was anything.
    func deliverDue(now: Date) async -> Bool {
        let due: [Outbox.Item]
        do {
            due = try database.write { try Outbox.claimDue(now: now, limit: concurrency * 8, $0) }
        } catch {
            logger.warning("outbox unreadable", metadata: ["error": "\(error)"])
            return false
        }
        guard !due.isEmpty else { return false }
        await withTaskGroup(of: Void.self) { group in
            var running = 0
            for item in due {
                if running == concurrency {
                    await group.next()
                    running -= 1
                }
                group.addTask { await self.attempt(item) }
                running += 1
            }
        }
        return true
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
            try database.write { session in
                if let outcome {
                    try Outbox.failed(item, reason: outcome.reason, permanent: outcome.permanent, now: now, session)
                } else {
                    try Outbox.sent(item.id, now: now, session)
                }
            }
        } catch {
            // The lease ends and the message is tried again: sent twice at worst, never lost.
            logger.error("outbox outcome not written", metadata: ["id": "\(item.id)", "error": "\(error)"])
        }
        outcomes.signal()
        if let outcome {
            logger.notice(
                "delivery failed",
                metadata: [
                    "channel": "\(item.channel)", "id": "\(item.id)", "attempt": "\(item.attempts)", "permanent": "\(outcome.permanent)",
                    "reason": "\(outcome.reason)",
                ])
        } else {
            logger.info("delivered", metadata: ["channel": "\(item.channel)", "id": "\(item.id)", "attempt": "\(item.attempts)"])
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
