import Foundation
import SousCharts
import SousSchema
import Testing

@Suite(.serialized)
struct GlutenMonthChartTests {
    /// March 2026 (it starts on a Sunday): two right predictions, two wrong, a prediction
    /// without a result, a result without a prediction, and entries the chart must leave out.
    func march() throws -> [GlutenMonthChart.Entry] {
        try [
            GlutenMonthChart.Entry(day: parseDay("2026-03-02"), expectsGluten: true, positive: true),
            GlutenMonthChart.Entry(day: parseDay("2026-03-03"), expectsGluten: false, positive: false),
            GlutenMonthChart.Entry(day: parseDay("2026-03-04"), expectsGluten: false, positive: true),
            GlutenMonthChart.Entry(day: parseDay("2026-03-05"), expectsGluten: true, positive: nil),
            GlutenMonthChart.Entry(day: parseDay("2026-03-06"), expectsGluten: nil, positive: false),
            GlutenMonthChart.Entry(day: parseDay("2026-03-31"), expectsGluten: true, positive: false),
            // Outside the month: left out.
            GlutenMonthChart.Entry(day: parseDay("2026-04-01"), expectsGluten: true, positive: true),
            GlutenMonthChart.Entry(day: parseDay("2026-02-28"), expectsGluten: true, positive: true),
            // A second entry for the 5th: the last one counts.
            GlutenMonthChart.Entry(day: parseDay("2026-03-05"), expectsGluten: false, positive: nil),
        ]
    }

    @Test func oneCellPerDayWithPredictionsResultsAndVerdicts() throws {
        let chart = try GlutenMonthChart(title: "Gluten tests, March 2026", year: 2026, month: 3, entries: march())
        let root = try SVGTree.parse(chart.render())

        let cells = root.elements(withClass: "day")
        #expect(cells.count == 31)
        #expect(root.elements(withClass: "day", "expects-gluten").count == 2)
        #expect(root.elements(withClass: "day", "expects-no-gluten").count == 3)
        #expect(root.elements(withClass: "day", "no-prediction").count == 26)
        #expect(root.elements(withClass: "result", "positive").count == 2)
        #expect(root.elements(withClass: "result", "negative").count == 3)
        #expect(root.elements(withClass: "verdict", "right").count == 2)
        #expect(root.elements(withClass: "verdict", "wrong").count == 2)

        #expect(cells.first?.children.first?.text == "2026-03-01, no prediction")
        #expect(cells.dropFirst().first?.children.first?.text == "2026-03-02, expected gluten, test positive, prediction right")
        #expect(
            root.elements(named: "desc").first?.text
                == "Gluten tests, March 2026: 5 predictions, 5 test results (2 positive), 2 of 4 scored predictions right."
        )
        #expect(root.elements(withClass: "summary").first?.text == "Predictions right: 2 of 4 · Tests: 5, 2 positive")
        #expect(root.elements(withClass: "legend-item").count == 7)
        #expect(numbers(in: root).allSatisfy(isPlainNumber))
    }

    @Test func weeksRunFromMonday() throws {
        let root = try SVGTree.parse(GlutenMonthChart(title: "March", year: 2026, month: 3, entries: []).render())
        let cells = root.elements(withClass: "day").compactMap { $0.elements(withClass: "cell").first }
        #expect(cells.count == 31)
        let first = try #require(cells.first)
        let second = try #require(cells.dropFirst().first)
        let sunday = try #require(first.number("x"))
        let monday = try #require(second.number("x"))
        let firstRow = try #require(first.number("y"))
        let secondRow = try #require(second.number("y"))
        // The 1st is a Sunday: last column of the first row; the 2nd starts the next row.
        #expect(sunday > monday)
        #expect(monday == 18)
        #expect(secondRow > firstRow)
        #expect(root.elements(withClass: "weekday").map(\.text) == ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"])
    }

    @Test func monthsHaveTheirOwnLengthAndOddMonthsAreClamped() throws {
        func cellCount(year: Int, month: Int) throws -> Int {
            try SVGTree.parse(GlutenMonthChart(title: "Month", year: year, month: month, entries: []).render()).elements(withClass: "day").count
        }
        #expect(try cellCount(year: 2024, month: 2) == 29)
        #expect(try cellCount(year: 2026, month: 2) == 28)
        #expect(try cellCount(year: 2026, month: 4) == 30)
        #expect(try cellCount(year: 2026, month: 0) == 31, "January")
        #expect(try cellCount(year: 2026, month: 13) == 31, "December")
        #expect(try cellCount(year: -5, month: Int.min) == 31, "January of year 1")
        #expect(try cellCount(year: Int.max, month: Int.max) == 31, "December 9999")
    }

    @Test func aHostileTitleIsEscapedAndTheOutputIsDeterministic() throws {
        let entries = try march()
        let svg = GlutenMonthChart(title: "<script>&", year: 2026, month: 3, entries: entries, width: .nan, height: -1).render()
        let again = GlutenMonthChart(title: "<script>&", year: 2026, month: 3, entries: entries, width: .nan, height: -1).render()
        #expect(!svg.contains("<script>"))
        #expect(!svg.lowercased().contains("nan"))
        let root = try SVGTree.parse(svg)
        #expect(root.children.first?.text == "<script>&")
        #expect(root.attributes["width"] == "720")
        #expect(root.attributes["height"] == "240")
        #expect(svg == again)
    }

    @Test func entriesSayWhetherThePredictionWasRight() throws {
        let day = try parseDay("2026-03-02")
        #expect(GlutenMonthChart.Entry(day: day, expectsGluten: true, positive: true).correct == true)
        #expect(GlutenMonthChart.Entry(day: day, expectsGluten: true, positive: false).correct == false)
        #expect(GlutenMonthChart.Entry(day: day, expectsGluten: nil, positive: false).correct == nil)
        #expect(GlutenMonthChart.Entry(day: day, expectsGluten: false, positive: nil).correct == nil)
    }
}

/// The schema's dates as the charts rely on them.
struct ChartDateTests {
    @Test func parsesOnlyValidDates() {
        #expect(LocalDate("2024-02-29")?.description == "2024-02-29")
        #expect(LocalDate("2023-02-29") == nil)
        #expect(LocalDate("2024-2-29") == nil)
        #expect(LocalDate("2024-02-290") == nil)
        #expect(LocalDate("abcd-ef-gh") == nil)
        #expect(LocalDate("2024+02-01") == nil)
        #expect(LocalDate("0000-01-01") == nil)
        #expect(LocalDate(year: 2026, month: 13, day: 1) == nil)
        #expect(LocalDate(year: 7, month: 3, day: 9)?.description == "0007-03-09")
    }

    @Test func weekdaysAndArithmetic() throws {
        #expect(try parseDay("2026-03-01").isoWeekday == 7)
        #expect(try parseDay("2026-03-02").isoWeekday == 1)
        #expect(try parseDay("1970-01-01").isoWeekday == 4)
        #expect(try parseDay("0001-01-01").isoWeekday == 1)
        #expect(try parseDay("1970-01-01").dayNumber == 0)
        #expect(try parseDay("2024-12-31").offset(by: 1)?.description == "2025-01-01")
        #expect(try parseDay("2024-01-01").offset(by: 366)?.description == "2025-01-01")
        #expect(try parseDay("2024-03-01").offset(by: -1)?.description == "2024-02-29")
        #expect(try parseDay("9999-12-31").offset(by: 1) == nil)
        #expect(try parseDay("0001-01-01").offset(by: -1) == nil)
        #expect(try parseDay("2024-01-01").offset(by: Int.max) == nil)
        #expect(try parseDay("2024-01-01").offset(by: Int.min) == nil)
        #expect(try parseDay("2024-01-01") < parseDay("2024-01-02"))
    }
}
