import Foundation
import SousWire

/// Latency samples of one measured operation.
struct Samples {
    let name: String
    var nanoseconds: [UInt64] = []

    init(name: String) { self.name = name }

    mutating func record(_ body: () throws -> Void) rethrows {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        nanoseconds.append(DispatchTime.now().uptimeNanoseconds - start)
    }

    func percentile(_ p: Double) -> Double {
        let sorted = nanoseconds.sorted()
        guard !sorted.isEmpty else { return 0 }
        let index = min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)
        return Double(sorted[max(index, 0)]) / 1000
    }

    var p50: Double { percentile(0.50) }
    var p90: Double { percentile(0.90) }
    var p99: Double { percentile(0.99) }
    var perSecond: Double {
        let total = nanoseconds.reduce(0, +)
        return total == 0 ? 0 : Double(nanoseconds.count) / (Double(total) / 1e9)
    }
}

/// Operations timed in turn, in blocks of `block` calls each (every one warmed up first), so a
/// slow stretch of a shared VM falls on all of them, not on whichever ran during it: sequential
/// runs of 10 000 `health` calls after 10 000 echoes once gave 1.44× the echo in a run whose
/// other two gave 0.98× and 1.04× (2026-11-28, s23b). Each call is given its index, 0 to
/// `calls` - 1, in each operation's own order.
func measureInterleaved(
    _ operations: [(name: String, call: (Int) throws -> Void)], calls: Int, warmup: Int, block: Int = 100
) throws -> [Samples] {
    for index in 0..<warmup {
        for operation in operations { try operation.call(index % max(calls, 1)) }
    }
    var samples = operations.map { Samples(name: $0.name) }
    for done in stride(from: 0, to: calls, by: block) {
        for (position, operation) in operations.enumerated() {
            for index in done..<min(done + block, calls) { try samples[position].record { try operation.call(index) } }
        }
    }
    return samples
}

/// Prints samples as a Markdown table; `baseline` adds a ratio column against it (by p50).
func report(_ title: String, _ rows: [Samples], baseline: Samples? = nil) {
    print("\n### \(title)\n")
    print("| operation | n | p50 µs | p90 µs | p99 µs | ops/s |\(baseline == nil ? "" : " p50 ÷ baseline |")")
    print("|---|---:|---:|---:|---:|---:|\(baseline == nil ? "" : "---:|")")
    for row in rows {
        var line = "| \(row.name) | \(row.nanoseconds.count) | \(format(row.p50)) | \(format(row.p90)) | \(format(row.p99)) | \(Int(row.perSecond)) |"
        if let baseline { line += " \(String(format: "%.2f×", row.p50 / baseline.p50)) |" }
        print(line)
    }
}

func format(_ microseconds: Double) -> String {
    microseconds >= 100 ? String(format: "%.0f", microseconds) : String(format: "%.1f", microseconds)
}

/// Resident memory (kB) and threads of a process, from /proc: this one, or a child by its pid.
struct ProcessMemory {
    var rss: Int
    var hwm: Int
    var threads: Int
    /// The process's own pages (heap, stacks): what it costs beyond the library code that every
    /// Swift process on the machine maps from the same files.
    var anonymous: Int = 0
    /// Pages mapped from files (the binary and shared libraries), counted in every process's RSS.
    var fileBacked: Int = 0
    /// Proportional set size: every resident page divided by the number of processes mapping
    /// it, so the PSS of all processes adds up to the memory they use together.
    var proportional: Int = 0
    /// Pages no other process maps (USS): what stopping this process would give back.
    var unshared: Int = 0
    /// Resident pages used since ``forgetUse(pid:)`` (or since they were mapped): the working
    /// set, what must stay in memory for what the process did meanwhile. The rest of VmRSS is
    /// clean pages the kernel takes back when memory is short.
    var used: Int = 0

    static func read(_ process: String = "self") -> ProcessMemory {
        let status = Self.fields(of: "/proc/\(process)/status")
        let rollup = Self.fields(of: "/proc/\(process)/smaps_rollup")
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process)/task").count) ?? 0
        return ProcessMemory(
            rss: status("VmRSS:"), hwm: status("VmHWM:"), threads: threads, anonymous: status("RssAnon:"), fileBacked: status("RssFile:"),
            proportional: rollup("Pss:"), unshared: rollup("Private_Clean:") + rollup("Private_Dirty:"), used: rollup("Referenced:"))
    }

    /// Clears the accessed bits of the process's pages (`/proc/<pid>/clear_refs`), so that
    /// ``used`` then counts only pages used after this call. False when the kernel refused.
    @discardableResult
    static func forgetUse(pid: Int32) -> Bool {
        (try? "1".write(toFile: "/proc/\(pid)/clear_refs", atomically: false, encoding: .utf8)) != nil
    }

    /// The numbers of a `/proc` file of `Key:   value kB` lines, by key (0 for a key it lacks).
    private static func fields(of path: String) -> (String) -> Int {
        let lines = ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n")
        return { key in
            lines.first { $0.hasPrefix(key) }.flatMap { Int($0.split(separator: " ").dropFirst().first { !$0.isEmpty } ?? "") } ?? 0
        }
    }

    static func read(pid: Int32) -> ProcessMemory { read("\(pid)") }

    func describe(_ label: String) -> String {
        "\(label): VmRSS \(rss / 1024) MiB, VmHWM \(hwm / 1024) MiB, \(threads) threads"
    }
}

/// Calls per second and latency of `clients` each calling `call` back to back for `seconds`.
/// A `busy` refusal (the server's bound on heavy work in flight) is counted, not timed, and that
/// client tries again 2 ms later: what the refusal asks; retrying at once would spend the
/// server's cores on refusals.
func concurrentLoad<Client: Sendable>(
    _ name: String, clients: [Client], seconds: Double, _ call: @escaping @Sendable (Client, Int) async throws -> Void
) async throws -> (samples: Samples, rate: Double, busy: Int) {
    let start = DispatchTime.now().uptimeNanoseconds
    let deadline = start + UInt64(seconds * 1e9)
    let (times, busy) = try await withThrowingTaskGroup(of: ([UInt64], Int).self) { group in
        for (index, client) in clients.enumerated() {
            group.addTask {
                var times: [UInt64] = []
                var busy = 0
                while DispatchTime.now().uptimeNanoseconds < deadline {
                    let begin = DispatchTime.now().uptimeNanoseconds
                    do {
                        try await call(client, index)
                        times.append(DispatchTime.now().uptimeNanoseconds - begin)
                    } catch let error as ServiceError where error.code == .unavailable && error.message.contains("busy") {
                        busy += 1
                        try await Task.sleep(for: .milliseconds(2))
                    }
                }
                return (times, busy)
            }
        }
        return try await group.reduce(into: ([UInt64](), 0)) {
            $0.0 += $1.0
            $0.1 += $1.1
        }
    }
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    var samples = Samples(name: name)
    samples.nanoseconds = times
    return (samples, Double(times.count) / elapsed, busy)
}
