import Dispatch
import GRDB
import GRDBSQLite
import SousWire
import Synchronization

/// Gives every statement a time limit through SQLite's progress handler, which interrupts a
/// statement once its deadline has passed. The deadline is set as each statement starts (a
/// statement trace), so a transaction of many quick statements (loading a seed) is not cut
/// short. Only statements run inside ``timed(_:_:)`` are limited: a store's, never a
/// migration's, nor the `BEGIN` and `COMMIT` around them (ending a transaction must not be
/// interrupted half done).
enum QueryClock {
    /// Per connection: whether statements are limited now, and the running one's deadline in
    /// nanoseconds of the monotonic clock (0: none). Alive as long as the process.
    final class Box: Sendable {
        let armed = Atomic<Bool>(false)
        let deadline = Atomic<UInt64>(0)
    }

    private static let boxes = Mutex<[ObjectIdentifier: Box]>([:])
    static let limitNanoseconds = UInt64(SousDatabase.queryTimeLimit.components.seconds) * 1_000_000_000

    static func install(on db: Database) {
        let box = Box()
        boxes.withLock { $0[ObjectIdentifier(db)] = box }
        db.trace(options: .statement) { _ in
            if box.armed.load(ordering: .relaxed) {
                box.deadline.store(DispatchTime.now().uptimeNanoseconds + limitNanoseconds, ordering: .relaxed)
            }
        }
        let context = Unmanaged.passRetained(box).toOpaque()
        // Every 1000 virtual-machine steps: cheap, and fine-grained enough for a 2 s limit.
        sqlite3_progress_handler(
            db.sqliteConnection, 1000,
            { context in
                guard let context else { return 0 }
                let box = Unmanaged<Box>.fromOpaque(context).takeUnretainedValue()
                let deadline = box.deadline.load(ordering: .relaxed)
                return deadline != 0 && DispatchTime.now().uptimeNanoseconds > deadline ? 1 : 0
            }, context)
    }

    /// Runs `body` with no time limit on its statements (what begins or ends a transaction must
    /// not be interrupted half done); the limit applies again to the statements after it.
    static func unlimited<T>(_ db: Database, _ body: () throws -> T) rethrows -> T {
        guard let box = boxes.withLock({ $0[ObjectIdentifier(db)] }) else { return try body() }
        let armed = box.armed.exchange(false, ordering: .relaxed)
        box.deadline.store(0, ordering: .relaxed)
        defer { box.armed.store(armed, ordering: .relaxed) }
        return try body()
    }

    /// Runs `body` with its statements limited; an interrupted statement becomes `timeout`.
    static func timed<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        guard let box = boxes.withLock({ $0[ObjectIdentifier(db)] }) else { return try body() }
        let outer = box.armed.exchange(true, ordering: .relaxed)
        defer {
            if !outer {
                box.armed.store(false, ordering: .relaxed)
                box.deadline.store(0, ordering: .relaxed)
            }
        }
        do {
            return try body()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_INTERRUPT {
            throw ServiceError(
                .timeout, "a query ran longer than \(SousDatabase.queryTimeLimit.components.seconds) s and was stopped; narrow it down")
        }
    }
}
