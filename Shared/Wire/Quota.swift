/// A limit on how much one user may store of one kind, checked inside the transaction that
/// would go past it, so a flood of writes from one account cannot fill a service's disk.
/// Every service declares its quotas in one place; docs/PROTOCOL.md lists them.
public struct Quota: Sendable, CustomStringConvertible {
    /// What is counted, as a user reads it: "diary entries on one day".
    public let what: String
    public let limit: Int
    /// The request field the refusal names.
    public let field: String

    public init(_ what: String, limit: Int, field: String) {
        self.what = what
        self.limit = limit
        self.field = field
    }

    /// Refuses with `quotaExceeded` when `current` plus `adding` would pass the limit.
    public func check(current: Int, adding: Int = 1) throws(ServiceError) {
        guard current + adding <= limit else {
            throw ServiceError(.quotaExceeded, "at most \(limit) \(what) per user; remove some first", field: field)
        }
    }

    public var description: String { "\(limit) \(what)" }
}
