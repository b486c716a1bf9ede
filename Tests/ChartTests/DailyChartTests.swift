import Foundation
import SousCharts
import SousSchema
import Testing

/// Inputs a diary chart must draw without trapping or writing a number SVG cannot read.
enum AwkwardInput: String, CaseIterable, Sendable {
    case noDays, oneDay, leapYear, allZeros, allMissing, goalFarAboveValues, hugeValues, nonFiniteAndNegative

    func entries() throws -> [DailyChart.Entry] {
        switch self {
        case .noDays:
            return []
        case .oneDay:
            return try [DailyChart.Entry(day: parseDay("2026-03-01"), value: 1800, goal: 2000)]
        case .leapYear:
            return try consecutiveDays(from: "2024-01-01", count: 366).enumerated().map { index, day in
                DailyChart.Entry(day: day, value: Double((index * 37) % 900 + 1_400), goal: index < 180 ? 2_000 : 1_800)
            }
        case .allZeros:
            return try consecutiveDays(from: "2026-03-01", count: 31).map { DailyChart.Entry(day: $0, value: 0, goal: 0) }
        case .allMissing:
            return try consecutiveDays(from: "2026-03-01", count: 31).map { DailyChart.Entry(day: $0, value: nil, goal: nil) }
        case .goalFarAboveValues:
            return try consecutiveDays(from: "2026-03-01", count: 14).map { DailyChart.Entry(day: $0, value: 5, goal: 100_000) }
        case .hugeValues:
            let values: [Double] = [1e6, 2.5e6, 1e12, 3]
            return try zip(consecutiveDays(from: "2026-03-01", count: values.count), values).map { DailyChart.Entry(day: $0, value: $1, goal: 1e6) }
        case .nonFiniteAndNegative:
            let values: [Double] = [
                .nan, .infinity, -.infinity, -50, 1_800, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude, -0.0,
            ]
            let goals: [Double] = [.nan, -1, .infinity, 2_000, -.infinity, .nan, 2_000, 2_000, .greatestFiniteMagnitude]
            let days = try consecutiveDays(from: "2026-03-01", count: values.count)
            return (0..<values.count).map { DailyChart.Entry(day: days[$0], value: values[$0], goal: goals[$0]) }
        }
    }
}

/// Maxima for the value axis, ordinary and not.
let axisMaxima: [Double] = [0, 0.004, 0.3, 1, 7, 99, 1_850, 2_000, 2_400, 12_345, 999_999, 1e6, 3.7e8, 1e9, 5e12, -5, .nan, .infinity]

@Suite(.serialized)
struct DailyChartTests {
    func chart(_ entries: [DailyChart.Entry], title: String = "Energy", width: Double = 800, height: Double = 320) -> DailyChart {
        DailyChart(title: title, seriesName: "Energy", unit: "kcal", entries: entries, width: width, height: height)
    }

    @Test func oneBarPerDayWithAValueColouredByItsGoal() throws {
        let days = try consecutiveDays(from: "2026-03-01", count: 31)
        // Every fourth day has no entries; values climb past the goal of 2000 from day 26 on.
        let entries = days.enumerated().map { index, day in
            DailyChart.Entry(day: day, value: index % 4 == 3 ? nil : Double(1_500 + index * 20), goal: 2_000)
        }
        let root = try SVGTree.parse(chart(entries).render())

        let bars = root.elements(withClass: "bar")
        #expect(bars.count == entries.filter { $0.value != nil }.count)
        #expect(bars.count == 24)
        let over = root.elements(withClass: "bar", "over")
        let under = root.elements(withClass: "bar", "under")
        #expect(over.count == 4)
        #expect(under.count == 20)
        let overFills = Set(over.compactMap { $0.attributes["fill"] })
        let underFills = Set(under.compactMap { $0.attributes["fill"] })
        #expect(overFills.count == 1 && underFills.count == 1 && overFills != underFills)

        // Bars stand on the baseline and fit the canvas.
        let baseline = try #require(root.elements(withClass: "baseline").first?.number("y1"))
        for bar in bars {
            let y = try #require(bar.number("y"))
            let height = try #require(bar.number("height"))
            #expect(height >= 0 && y >= 0)
            #expect(abs(y + height - baseline) <= 0.011)
        }
        // Each bar says what it is.
        #expect(bars.first?.children.first?.text == "2026-03-01: 1500 kcal, goal 2000 kcal")
    }

    @Test func theGoalLineStepsWhereTheGoalChangesAndBreaksWhereThereIsNone() throws {
        func repeated(_ goal: Double?, _ count: Int) -> [Double?] { Array(repeating: goal, count: count) }
        let goals = repeated(2_000, 10) + repeated(1_800, 5) + repeated(nil, 3) + repeated(1_800, 7) + repeated(2_200, 5)
        let days = try consecutiveDays(from: "2026-01-01", count: goals.count)
        let entries = (0..<goals.count).map { DailyChart.Entry(day: days[$0], value: 1_900, goal: goals[$0]) }
        let root = try SVGTree.parse(chart(entries).render())

        let goal = try #require(root.elements(withClass: "goal").first?.attributes["d"])
        let commands = goal.split(separator: " ").map { String($0) }.filter { $0.count == 1 && $0.first?.isLetter == true }
        #expect(commands.filter { $0 == "M" }.count == 2, "two runs of days with a goal")
        #expect(commands.filter { $0 == "V" }.count == 2, "2000 → 1800 and 1800 → 2200")
        #expect(commands.filter { $0 == "L" }.isEmpty, "steps, not slopes")

        #expect(root.elements(withClass: "bar", "over").count == 12)
        #expect(root.elements(withClass: "bar", "under").count == 15)
        #expect(root.elements(withClass: "bar", "no-goal").count == 3)
        let legend = root.elements(withClass: "legend-item").map { $0.elements(named: "text").first?.text ?? "" }
        #expect(legend == ["At or under goal", "Over goal", "Goal", "No goal set"])
    }

    @Test(arguments: axisMaxima)
    func ticksAreNiceNumbers(maximum: Double) {
        let scale = AxisScale(maximum: maximum)
        let ticks = scale.ticks
        let top = maximum.isFinite && maximum >= 0.01 ? min(maximum, AxisScale.largest) : 1
        #expect(ticks.first == 0)
        #expect((3...12).contains(ticks.count))
        var mantissa = scale.step
        while mantissa >= 10 { mantissa /= 10 }
        while mantissa < 1 { mantissa *= 10 }
        let leading = mantissa
        #expect([1.0, 2.0, 5.0].contains { abs(leading - $0) < 1e-9 }, "step \(scale.step)")
        for (index, tick) in ticks.enumerated() {
            #expect(abs(tick - Double(index) * scale.step) <= scale.step * 1e-9)
        }
        #expect(scale.upper >= top * (1 - 1e-12))
        #expect(scale.upper - scale.step < top)
        #expect(ticks.map(scale.label).allSatisfy { !$0.isEmpty && !$0.contains("e") })
    }

    @Test func theChartDrawsTheScalesTicks() throws {
        let days = try consecutiveDays(from: "2026-03-01", count: 7)
        let root = try SVGTree.parse(chart(days.map { DailyChart.Entry(day: $0, value: 2_150, goal: 2_000) }).render())
        let scale = AxisScale(maximum: 2_150)
        #expect(root.elements(withClass: "tick-label").map(\.text) == scale.ticks.map(scale.label))
        #expect(root.elements(withClass: "tick-label").map(\.text) == ["0", "500", "1000", "1500", "2000", "2500"])
        #expect(root.elements(withClass: "grid").count + root.elements(withClass: "baseline").count == scale.ticks.count)
        #expect(root.elements(withClass: "unit").first?.text == "kcal")
    }

    @Test(arguments: AwkwardInput.allCases)
    func awkwardInputDrawsWithoutNaNOrInfinity(input: AwkwardInput) throws {
        let entries = try input.entries()
        // A fixed title, so that only the drawing could put "nan" or "inf" into the SVG.
        let svg = chart(entries, title: "Awkward input").render()
        let lowered = svg.lowercased()
        #expect(!lowered.contains("nan"))
        #expect(!lowered.contains("inf"))
        let root = try SVGTree.parse(svg)
        let odd = numbers(in: root).filter { !isPlainNumber($0) }
        #expect(odd.isEmpty, "numbers SVG should not carry: \(odd.prefix(5))")

        let bars = root.elements(withClass: "bar")
        #expect(bars.count == entries.filter { $0.value?.isFinite == true }.count)
        for bar in bars {
            let y = try #require(bar.number("y"))
            let height = try #require(bar.number("height"))
            #expect(y >= 0 && height >= 0 && y + height <= 320)
        }
        if bars.isEmpty {
            #expect(root.elements(withClass: "empty").first?.text == "No entries")
        }
        #expect(svg == chart(entries, title: "Awkward input").render(), "deterministic")
    }

    @Test func dayLabelsAreThinnedSoTheyDoNotOverlap() throws {
        let cases: [(days: [LocalDate], width: Double)] = try [
            (consecutiveDays(from: "2024-01-01", count: 366), 800),
            (consecutiveDays(from: "2026-03-01", count: 31), 800),
            (consecutiveDays(from: "2026-03-01", count: 31), 320),
            (consecutiveDays(from: "2026-02-10", count: 90), 500),
            (consecutiveDays(from: "2026-03-01", count: 1), 240),
        ]
        for (days, width) in cases {
            let entries = days.map { DailyChart.Entry(day: $0, value: 1_000, goal: nil) }
            let root = try SVGTree.parse(chart(entries, width: width).render())
            let labels = root.elements(withClass: "day-label")
            #expect(!labels.isEmpty)
            #expect(labels.count == root.elements(withClass: "day-tick").count)
            let placed = try labels.map { label in (x: try #require(label.number("x")), width: Double(label.text.count) * 11 * 0.62) }
            for (left, right) in zip(placed, placed.dropFirst()) {
                #expect(right.x - left.x >= (left.width + right.width) / 2, "\(days.count) days at \(width) px")
            }
            for label in placed {
                #expect(label.x - label.width / 2 >= 0 && label.x + label.width / 2 <= width)
            }
        }

        let leapYear = try consecutiveDays(from: "2024-01-01", count: 366).map { DailyChart.Entry(day: $0, value: 1, goal: 1) }
        let year = try SVGTree.parse(chart(leapYear).render())
        let months = year.elements(withClass: "day-label").map(\.text)
        #expect(months.first == "2024", "January is labelled with its year")
        #expect((4...12).contains(months.count))
        #expect(months.allSatisfy { $0 == "2024" || $0.count == 3 })

        let marchDays = try consecutiveDays(from: "2026-03-01", count: 31).map { DailyChart.Entry(day: $0, value: 1, goal: 1) }
        let march = try SVGTree.parse(chart(marchDays).render())
        #expect(march.elements(withClass: "day-label").first?.text == "Mar 1")
    }

    @Test func aHostileTitleIsEscaped() throws {
        let days = try consecutiveDays(from: "2026-03-01", count: 3)
        let svg = chart(days.map { DailyChart.Entry(day: $0, value: 1, goal: 2) }, title: "<script>&").render()
        #expect(!svg.contains("<script>"))
        let root = try SVGTree.parse(svg)
        #expect(root.children.first?.text == "<script>&")
        #expect(root.elements(withClass: "title").first?.text == "<script>&")
    }

    @Test func theSameChartGivesTheSameBytes() throws {
        let days = try consecutiveDays(from: "2026-03-01", count: 60)
        func make() -> String {
            chart(days.enumerated().map { DailyChart.Entry(day: $1, value: Double($0 * 13 % 700) + 1_600, goal: $0 < 30 ? 2_000 : 1_900) }).render()
        }
        #expect(make() == make())
    }

    @Test func oddCanvasSizesAreKeptInRange() throws {
        let entries = try [DailyChart.Entry(day: parseDay("2026-03-01"), value: 1, goal: 1)]
        let defaulted = try SVGTree.parse(chart(entries, width: .nan, height: .infinity).render())
        #expect(defaulted.attributes["width"] == "800" && defaulted.attributes["height"] == "320")
        let small = try SVGTree.parse(chart(entries, width: 10, height: -1).render())
        #expect(small.attributes["width"] == "240" && small.attributes["height"] == "160")
        let large = try SVGTree.parse(chart(entries, width: 1e9, height: 1e9).render())
        #expect(large.attributes["width"] == "10000" && large.attributes["height"] == "10000")
    }

    @Test func macrosStackFourPanelsEachAgainstItsOwnGoal() throws {
        let days = try consecutiveDays(from: "2026-02-01", count: 28)
        let goals = Macros(kcal: 2_000, carbohydrates: 250, protein: 75, fat: 65)
        let macroDays = days.enumerated().map { index, day in
            MacroDay(
                day: day,
                totals: index % 5 == 4
                    ? nil : Macros(kcal: 1_800 + Double(index) * 10, carbohydrates: 200, protein: 80 + Double(index), fat: 70),
                goals: goals
            )
        }
        let document = DailyChart.macros(title: "February", days: macroDays)
        let svg = document.render()
        let root = try SVGTree.parse(svg)

        let panels = root.elements(withClass: "panel")
        #expect(panels.map { $0.attributes["class"] ?? "" } == ["panel kcal", "panel carbohydrates", "panel protein", "panel fat"])
        for panel in panels {
            #expect(panel.elements(withClass: "bar").count == 23)
            #expect(panel.elements(withClass: "goal").count == 1)
        }
        #expect(panels.count == 4)
        if panels.count == 4 {
            #expect(panels[1].elements(withClass: "bar", "under").count == 23, "200 g of carbohydrates is under 250")
            #expect(panels[2].elements(withClass: "bar", "over").count == 23, "80 g of protein and more is over 75")
            #expect(panels[3].elements(withClass: "bar", "over").count == 23, "70 g of fat is over 65")
            #expect(panels.map { $0.elements(withClass: "unit").first?.text } == ["kcal", "g", "g", "g"])
        }
        #expect(root.elements(withClass: "legend").count == 1)
        #expect(numbers(in: root).allSatisfy(isPlainNumber))
        #expect(svg == DailyChart.macros(title: "February", days: macroDays).render())
    }

    @Test func macrosWithoutDaysStillDraw() throws {
        let svg = DailyChart.macros(title: "Nothing", days: [], width: .nan, panelHeight: -1).render()
        let root = try SVGTree.parse(svg)
        #expect(root.elements(withClass: "panel").count == 4)
        #expect(root.elements(withClass: "empty").count == 4)
        #expect(!svg.lowercased().contains("nan"))
    }
}
