extension Duration {
    /// The duration in whole nanoseconds, between zero and a year: what timers that take an
    /// integer (Dispatch, NIO's scheduled tasks, AsyncHTTPClient's deadlines) are given.
    public var clampedNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return max(0, min(seconds, 86_400 * 365) * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
