import Synchronization

/// A token bucket per client address: `burst` requests at once, refilled at `perMinute`.
/// Addresses not seen for a few minutes are forgotten, so the table holds only active clients.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private let perSecond: Double
    private let burst: Double
    private let buckets = Mutex<[String: Bucket]>([:])
    private let sweepEvery = 4096
    private let calls = Atomic<Int>(0)

    init(perMinute: Int, burst: Int) {
        perSecond = Double(max(perMinute, 1)) / 60
        self.burst = Double(max(burst, 1))
    }

    /// Takes one token for `address`; false when its bucket is empty.
    func allow(_ address: String, now: ContinuousClock.Instant = .now) -> Bool {
        let sweep = calls.add(1, ordering: .relaxed).newValue % sweepEvery == 0
        return buckets.withLock { buckets in
            if sweep {
                // Refilled long ago: as good as a new bucket, so forget it.
                buckets = buckets.filter { now - $0.value.updated < .seconds(300) }
            }
            var bucket = buckets[address] ?? Bucket(tokens: burst, updated: now)
            let elapsed = now - bucket.updated
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            bucket.tokens = min(burst, bucket.tokens + seconds * perSecond)
            bucket.updated = now
            guard bucket.tokens >= 1 else {
                buckets[address] = bucket
                return false
            }
            bucket.tokens -= 1
            buckets[address] = bucket
            return true
        }
    }
}
