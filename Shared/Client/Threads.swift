import Foundation

/// Starts a thread of the runtime's own, named so `top -H`, `perf` and `/proc/<pid>/task` show
/// what it is. (Foundation's `Thread.name` does not reach the kernel on Linux; writing the
/// thread's own `comm` does. Linux keeps the first 15 bytes.)
public func startThread(named name: String, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread {
        let short = String(decoding: name.utf8.prefix(15), as: UTF8.self)
        if let comm = FileHandle(forWritingAtPath: "/proc/thread-self/comm") {
            comm.write(Data(short.utf8))
            try? comm.close()
        }
        body()
    }
    thread.start()
}

/// A lock with a condition, for threads of the runtime's own.
///
/// It stands in for `NSCondition`, which on Linux is glibc's `pthread_cond_t`: in the glibc of
/// Debian 12 (2.36) a `pthread_cond_signal` can fail to wake any of several waiters
/// (sourceware bug 25847, fixed in 2.41). A request queued that way waited, unserved, until
/// the next one arrived, and a client gave up after its 30 s. Here every waiter parks on a
/// semaphore of its own, taken from the list under the lock, so a wakeup has one owner and is
/// never lost.
public final class ThreadCondition: @unchecked Sendable {
    public enum Wake { case none, one, all }

    private let mutex = NSLock()
    // Guarded by `mutex`, oldest first.
    private var waiters: [DispatchSemaphore] = []

    public init() {}

    public func lock() { mutex.lock() }

    /// Unlocks, then wakes waiters: once the lock is free, so a woken thread does not block on
    /// it at once (two more context switches per wakeup on a busy core).
    public func unlock(waking wake: Wake = .none) {
        let woken: ArraySlice<DispatchSemaphore>
        switch wake {
        case .none: woken = []
        case .one: woken = waiters.isEmpty ? [] : [waiters.removeFirst()]
        case .all:
            woken = waiters[...]
            waiters.removeAll()
        }
        mutex.unlock()
        for waiter in woken { waiter.signal() }
    }

    /// Waits, called with the lock held, until woken or until `deadline`; returns with the lock
    /// held, and `false` if the deadline passed unwoken. Callers recheck their condition.
    @discardableResult
    public func wait(until deadline: ContinuousClock.Instant? = nil) -> Bool {
        let parked = DispatchSemaphore(value: 0)
        waiters.append(parked)
        mutex.unlock()
        let timeout = deadline.map { DispatchTime.now() + .nanoseconds(Int(ContinuousClock.now.duration(to: $0).clampedNanoseconds)) }
        let timedOut = parked.wait(timeout: timeout ?? .distantFuture) == .timedOut
        mutex.lock()
        guard timedOut, let index = waiters.firstIndex(where: { $0 === parked }) else { return true }
        waiters.remove(at: index)
        return false
    }

}
