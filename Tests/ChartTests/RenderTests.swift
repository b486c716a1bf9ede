import Foundation
import SousCharts
import SousSchema
import Testing

/// rsvg-convert (Debian's librsvg2-bin, which deploy/install-deps.sh installs), where present.
let rsvgConvert: String? = ["/usr/bin/rsvg-convert", "/usr/local/bin/rsvg-convert", "/opt/homebrew/bin/rsvg-convert"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

/// The charts draw with a real SVG renderer: a PNG of the size asked for, with more in it than a
/// blank canvas of that size.
@Suite(.serialized)
struct RenderTests {
    @Test(.enabled(if: rsvgConvert != nil, "rsvg-convert is not installed (apt-get install librsvg2-bin)"))
    func chartsRenderToPNGsOfTheRequestedSizeThatAreNotBlank() throws {
        let converter = try #require(rsvgConvert)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sous-charts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let days = try consecutiveDays(from: "2026-03-01", count: 31)
        let entries = days.enumerated().map { index, day in
            DailyChart.Entry(day: day, value: index % 6 == 5 ? nil : Double(1_500 + (index * 53) % 900), goal: index < 15 ? 2_000 : 1_800)
        }
        let daily = DailyChart(title: "Energy, March 2026", seriesName: "Energy", unit: "kcal", entries: entries, width: 640, height: 320)
        let gluten = try GlutenMonthChart(
            title: "Gluten tests, March 2026", year: 2026, month: 3,
            entries: [
                GlutenMonthChart.Entry(day: parseDay("2026-03-02"), expectsGluten: true, positive: true),
                GlutenMonthChart.Entry(day: parseDay("2026-03-09"), expectsGluten: false, positive: true),
                GlutenMonthChart.Entry(day: parseDay("2026-03-16"), expectsGluten: false, positive: false),
            ],
            width: 560, height: 420
        )

        for (name, svg, width, height) in [("daily", daily.render(), 640, 320), ("gluten", gluten.render(), 560, 420)] {
            let blank = SVGDocument(width: Double(width), height: Double(height), title: "Blank", description: "Nothing drawn.").render()
            let chartPNG = try rasterize(svg, with: converter, in: folder, name: name)
            let blankPNG = try rasterize(blank, with: converter, in: folder, name: "\(name)-blank")
            #expect(try pngSize(chartPNG) == PNGSize(width: width, height: height), "\(name)")
            #expect(try pngSize(blankPNG) == PNGSize(width: width, height: height), "\(name) blank")
            // A drawing compresses worse than a white canvas.
            #expect(chartPNG.count > blankPNG.count + 2_000, "\(name): \(chartPNG.count) bytes against \(blankPNG.count) blank")
        }
    }

    struct PNGSize: Equatable {
        let width: Int
        let height: Int
    }

    /// The width and height in a PNG's IHDR chunk (bytes 16–23, big-endian), after checking the
    /// signature and the chunk's name.
    func pngSize(_ data: Data) throws -> PNGSize {
        let bytes = [UInt8](data)
        try #require(bytes.count >= 24, "too short for a PNG: \(bytes.count) bytes")
        try #require(Array(bytes[0..<8]) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "not a PNG signature")
        try #require(String(decoding: bytes[12..<16], as: UTF8.self) == "IHDR", "IHDR is not the first chunk")
        func bigEndian(_ range: Range<Int>) -> Int {
            bytes[range].reduce(0) { ($0 << 8) | Int($1) }
        }
        return PNGSize(width: bigEndian(16..<20), height: bigEndian(20..<24))
    }

    /// `svg` written to `folder` and converted by rsvg-convert on a white background.
    func rasterize(_ svg: String, with converter: String, in folder: URL, name: String) throws -> Data {
        let input = folder.appendingPathComponent("\(name).svg").path
        let output = folder.appendingPathComponent("\(name).png").path
        let log = folder.appendingPathComponent("\(name).log").path
        try svg.write(toFile: input, atomically: true, encoding: .utf8)
        let status = try run([converter, "--background-color=white", "--format=png", "-o", output, input], log: log)
        let printed = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        try #require(status == 0, "rsvg-convert exited with status \(status): \(printed)")
        return try Data(contentsOf: URL(fileURLWithPath: output))
    }

    /// Runs `arguments` (the first an absolute path) with posix_spawn and waitpid (Foundation's
    /// `Process` on Linux can miss the child's exit and wait forever), stdin from /dev/null,
    /// stdout and stderr into `log`; returns the wait status (0 for a clean exit).
    func run(_ arguments: [String], log: String) throws -> Int32 {
        guard let program = arguments.first else { throw ChartTestError(description: "nothing to run") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, program, &actions, nil, argv, environ)
        guard spawned == 0 else { throw ChartTestError(description: "cannot start \(program) (\(spawned))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return status
    }
}
