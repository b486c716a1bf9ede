import ArgumentParser
import Foundation
import SousWire

/// What every `watch` command takes: return after `--count` changes or `--timeout` seconds (for
/// scripts), or run until Ctrl-C.
struct WatchOptions: ParsableArguments {
    @Option(help: "Return once this many have come.") var count: Int?
    @Option(help: "Return after this many seconds.") var timeout: Double?

    static let maxTimeout: Double = 365 * 86_400

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        if let timeout, !(timeout > 0 && timeout <= Self.maxTimeout) {
            throw ValidationError("--timeout must be a number of seconds above 0 and at most \(Int(Self.maxTimeout)) (one year)")
        }
    }

    /// Long-polls until `--count` things came or `--timeout` passed. `poll` waits up to the
    /// seconds it is given, shows at most `wanted` things (nil: any number) and answers how many
    /// it showed; throws `timeout` (exit 5) when fewer than `--count` came ("fewer than 2
    /// changes came within 5 s": `one` and `many` name them, `verb` says how they came).
    func run(
        one: String, many: String, verb: String = "came", poll: (_ seconds: Double, _ wanted: Int?) async throws -> Int
    ) async throws {
        let stopAt = timeout.map { ContinuousClock.now + .milliseconds(Int($0 * 1000)) }
        var seen = 0
        while count.map({ seen < $0 }) ?? true {
            var wait = 20.0
            if let stopAt {
                let left = stopAt - .now
                if left <= .zero { break }
                wait = min(wait, Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18)
            }
            seen += try await poll(wait, count.map { $0 - seen })
        }
        if let count, seen < count {
            throw ServiceError(.timeout, "fewer than \(count) \(count == 1 ? one : many) \(verb) within \(number(timeout ?? 0)) s")
        }
    }
}

/// One JSON object on one line (a `watch` command's `--json` output).
func printJSONLine<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    Console.current.out(String(decoding: try encoder.encode(value), as: UTF8.self))
}
