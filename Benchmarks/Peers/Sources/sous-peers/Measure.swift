import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Latency samples and CPU time of one measured row (copied in spirit from Benchmarks/SousBench/Measure.swift,
/// which this package cannot import: it is an executable target of the main package).
struct Samples {
    let name: String
    var nanoseconds: [UInt64] = []
    /// Process CPU time (user + system, every thread) spent over the timed calls, in microseconds.
    var cpuMicroseconds: Double = 0

    init(name: String) { self.name = name }

    func percentile(_ p: Double) -> Double {
        let sorted = nanoseconds.sorted()
        guard !sorted.isEmpty else { return 0 }
        let index = min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)
        return Double(sorted[max(index, 0)]) / 1000
    }

    var p50: Double { percentile(0.50) }
    var p90: Double { percentile(0.90) }
    var p99: Double { percentile(0.99) }
    /// CPU time of the whole process per timed call: client, server and everything else in it.
    var cpuPerCall: Double { nanoseconds.isEmpty ? 0 : cpuMicroseconds / Double(nanoseconds.count) }
}

/// This process's CPU time so far (user + system, all threads), in microseconds.
func processCPUMicroseconds() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)  // Glibc imports the enum case, the function takes its Int32
    #else
        getrusage(RUSAGE_SELF, &usage)
    #endif
    func microseconds(_ time: timeval) -> Double { Double(time.tv_sec) * 1_000_000 + Double(time.tv_usec) }
    return microseconds(usage.ru_utime) + microseconds(usage.ru_stime)
}

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func format(_ microseconds: Double) -> String {
    microseconds >= 100 ? String(format: "%.0f", microseconds) : String(format: "%.1f", microseconds)
}

func ratio(_ value: Double, _ baseline: Double) -> String {
    baseline == 0 ? "—" : String(format: "%.2f×", value / baseline)
}

/// Resident memory of this process from /proc (kB).
func memoryKilobytes() -> (rss: Int, hwm: Int) {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
    func value(_ key: String) -> Int {
        status.split(separator: "\n").first { $0.hasPrefix(key) }.flatMap { Int($0.split(separator: " ").dropFirst().first { !$0.isEmpty } ?? "") }
            ?? 0
    }
    return (value("VmRSS:"), value("VmHWM:"))
}
