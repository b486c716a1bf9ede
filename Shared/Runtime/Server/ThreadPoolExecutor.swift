import Foundation

/// A task executor backed by a fixed set of threads of its own.
///
/// Handlers do synchronous SQLite and CPU work. On Swift's cooperative pool (one thread per
/// core, two here) a few slow handlers would stall every other task in the process; running
/// them on threads of their own keeps that pool free and bounds the threads a service uses.
public final class ThreadPoolExecutor: TaskExecutor, @unchecked Sendable {
    public let name: String
    public let threadCount: Int
    private let condition = ThreadCondition()
    // Guarded by `condition`.
    private var jobs: [UnownedJob] = []
    private var head = 0
    private var stopping = false
    private var running = 0

    public init(name: String, threads: Int) {
        self.name = name
        threadCount = max(threads, 1)
        for _ in 0..<threadCount {
            running += 1
            startThread(named: name) { [self] in work() }
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        // A job that arrives after every thread stopped (a task outliving its server) still
        // runs, on a thread started for the queue's remainder.
        let orphaned = stopping && running == 0
        if orphaned { running += 1 }
        condition.unlock(waking: .one)
        if orphaned { startThread(named: name) { [self] in work() } }
    }

    /// Lets the threads finish the jobs already queued, then stop.
    public func shutdown() {
        condition.lock()
        stopping = true
        condition.unlock(waking: .all)
    }

    /// Whether the calling thread is one of an executor's: a thread that may wait a moment for
    /// a peer's reply itself (see `Peer`), where a thread of Swift's cooperative pool must not.
    public static var isCurrentThreadPooled: Bool { pthread_getspecific(poolThreadKey) != nil }

    private static let poolThreadKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    private func work() {
        pthread_setspecific(Self.poolThreadKey, UnsafeRawPointer(bitPattern: 1))
        let executor = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while head == jobs.count && !stopping { condition.wait() }
            guard head < jobs.count else {
                running -= 1
                condition.unlock()
                return
            }
            let job = jobs[head]
            head += 1
            if head > 1024 && head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            condition.unlock()
            job.runSynchronously(on: executor)
        }
    }
}
