import Foundation

/// Runs `work` on a thread of its own and waits for it without holding one of Swift's
/// cooperative threads: for a test's slow synchronous setup (seeding a catalog file takes
/// seconds in a debug build), which on a 2-core machine would otherwise stall the services
/// other tests are waiting on.
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try work() }) }
        thread.stackSize = 8 << 20
        thread.start()
    }
}
