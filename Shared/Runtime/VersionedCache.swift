import Synchronization

/// Values kept in memory and served only at the version they were built at: a read asks the
/// database for the current version (one cheap query), and gets the cached value if it matches,
/// else builds it again. Because the version comes from the database on every read, a change
/// made by anyone (another request, another process on the same database) is never hidden by the
/// cache.
///
/// Store a value only after the transaction that read or wrote its version has committed, so a
/// rolled-back version never names a cached value.
///
/// On the I/O thread of a service on a SQLite file, a value can skip even that query: an entry
/// remembers the ``DataStamp`` of the snapshot its version was last read in, and while the
/// database's stamp is still that one nothing has been committed since, so the value is current
/// (``value(for:confirmedAt:where:)``).
public final class VersionedCache<Key: Hashable & Sendable, Version: Equatable & Sendable, Value: Sendable>: Sendable {
    private struct Entry {
        var version: Version
        var value: Value
        var lastUse: UInt64
        /// The stamp of the latest snapshot that read `version` as current, if one gave stamps.
        var confirmed: DataStamp?
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

    /// The value built at `version`, if it is the one kept for `key`. `stamp` is the stamp of
    /// the snapshot `version` was read in (``SQLSession/dataStamp``), if it gives one: the
    /// entry is then known current at it.
    public func value(for key: Key, at version: Version, confirmedAt stamp: DataStamp? = nil) -> Value? {
        state.withLock { state in
            // One hash of the key: the entry is changed where it is.
            guard let index = state.entries.index(forKey: key), state.entries.values[index].version == version else { return nil }
            state.clock += 1
            state.entries.values[index].lastUse = state.clock
            if let stamp { state.entries.values[index].confirmed = stamp }
            return state.entries.values[index].value
        }
    }

    /// The value kept for `key` if its version was read as current in a snapshot of stamp
    /// `stamp`, the database's stamp now (``SousDatabase/currentStamp``), and `isCurrent` holds
    /// for the parts of its version that are not in the database (an in-memory book's version):
    /// nothing was committed since, so the version is still current, unread.
    public func value(for key: Key, confirmedAt stamp: DataStamp, where isCurrent: (Version) -> Bool = { _ in true }) -> Value? {
        state.withLock { state in
            guard let index = state.entries.index(forKey: key) else { return nil }
            let entry = state.entries.values[index]
            guard entry.confirmed == stamp, isCurrent(entry.version) else { return nil }
            state.clock += 1
            state.entries.values[index].lastUse = state.clock
            return entry.value
        }
    }

    /// On the I/O thread of a service on a SQLite file, the value kept for `key` if nothing has
    /// been committed since its version was last read as current (the database's stamp now is
    /// the one it was confirmed at) and `isCurrent` holds for the parts of its version not in
    /// the database; nil anywhere else (the caller then reads the version as usual).
    public func currentValue(for key: Key, in database: SousDatabase, where isCurrent: (Version) -> Bool = { _ in true }) -> Value? {
        guard let stamp = database.currentStamp else { return nil }
        return value(for: key, confirmedAt: stamp, where: isCurrent)
    }

    /// Keeps `value` as built at `version`, replacing what `key` had; `stamp` as in
    /// ``value(for:at:confirmedAt:)``.
    public func store(_ value: Value, for key: Key, at version: Version, confirmedAt stamp: DataStamp? = nil) {
        state.withLock { state in
            state.clock += 1
            state.entries[key] = Entry(version: version, value: value, lastUse: state.clock, confirmed: stamp)
            guard state.entries.count > capacity else { return }
            let oldest = state.entries.sorted { $0.value.lastUse < $1.value.lastUse }.prefix(capacity / 4)
            for (key, _) in oldest { state.entries[key] = nil }
        }
    }

    public var count: Int { state.withLock { $0.entries.count } }
}
