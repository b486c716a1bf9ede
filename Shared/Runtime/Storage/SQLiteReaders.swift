import GRDB
import Synchronization

/// Read-only connections to a SQLite file for the lanes' reads, each used by one thread at a
/// time and opened when first needed (up to `limit`; an idle service opens none).
///
/// GRDB's pool read takes a reader through a semaphore and a barrier queue, and prepares
/// `BEGIN`, `COMMIT` and `PRAGMA schema_version` anew on every read: two thirds of a one-row
/// read (`sous-bench planner`). In the households benchmark the two measured alike (total
/// services' CPU 5.83 s with GRDB's pool, 5.88 s with these): to be kept only if a figure
/// shows it. A reader here keeps them prepared
/// (``SousDatabase/read(_:)`` runs the transaction).
final class SQLiteReaders: Sendable {
    private let path: String
    private let configuration: Configuration
    private let limit: Int
    private struct State {
        var idle: [DatabaseQueue] = []
        var opened = 0
    }
    private let state = Mutex(State())

    /// - Parameter configuration: the writer's; its readers are opened read-only. Open them
    ///   only after the migrations: a connection keeps the schema it first reads.
    init(path: String, configuration: Configuration, limit: Int) {
        var configuration = configuration
        configuration.readonly = true
        self.path = path
        self.configuration = configuration
        self.limit = limit
    }

    /// A new read-only connection.
    func open() throws -> DatabaseQueue {
        try DatabaseQueue(path: path, configuration: configuration)
    }

    private enum Take {
        case idle(DatabaseQueue)
        case open
        case none
    }

    /// Runs `body` on an idle reader, or nil without running it when all `limit` are busy.
    func withReader<T>(_ body: (DatabaseQueue) throws -> T) throws -> T? {
        let take = state.withLock { state -> Take in
            if let reader = state.idle.popLast() { return .idle(reader) }
            guard state.opened < limit else { return .none }
            state.opened += 1
            return .open
        }
        let reader: DatabaseQueue
        switch take {
        case .idle(let idle): reader = idle
        case .none: return nil
        case .open:
            do {
                reader = try open()
            } catch {
                state.withLock { $0.opened -= 1 }
                throw error
            }
        }
        // The most recently used reader is taken first: its page cache is the warmest.
        defer { state.withLock { $0.idle.append(reader) } }
        return try body(reader)
    }
}
