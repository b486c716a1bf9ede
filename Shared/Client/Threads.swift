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
