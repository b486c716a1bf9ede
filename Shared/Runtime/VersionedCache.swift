import Synchronization

/// Values kept in memory and served only at the version they were built at: a read asks the
/// database for the current version (one cheap query), and gets the cached value if it matches,
/// else builds it again. Because the version comes from the database on every read, a change
/// made by anyone (another request, another process on the same database) is never hidden by the
/// cache.
///
/// Store a value only after the transaction that read or wrote its version has committed, so a
/// rolled-back version never names a cached value.
public final class VersionedCache<Key: Hashable & Sendable, Version: Equatable & Sendable, Value: Sendable>: Sendable {
    private struct Entry {
        var version: Version
        var value: Value
        var lastUse: UInt64
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var clock: UInt64 = 0
    }

    private let state = Mutex(State())
    /// Past this many keys the least recently used quarter is dropped.
    public let capacity: Int

    public init(capacity: Int) {
        precondition(capacity >= 4, "a cache of fewer than 4 values")
        self.capacity = capacity
    }

    /// The value built at `version`, if it is the one kept for `key`.
    public func value(for key: Key, at version: Version) -> Value? {
        state.withLock { state in
            guard var entry = state.entries[key], entry.version == version else { return nil }
            state.clock += 1
            entry.lastUse = state.clock
            state.entries[key] = entry
            return entry.value
        }
    }

    /// Keeps `value` as built at `version`, replacing what `key` had.
    public func store(_ value: Value, for key: Key, at version: Version) {
        state.withLock { state in
            state.clock += 1
            state.entries[key] = Entry(version: version, value: value, lastUse: state.clock)
            guard state.entries.count > capacity else { return }
            let oldest = state.entries.sorted { $0.value.lastUse < $1.value.lastUse }.prefix(capacity / 4)
            for (key, _) in oldest { state.entries[key] = nil }
        }
    }

    public var count: Int { state.withLock { $0.entries.count } }
}
