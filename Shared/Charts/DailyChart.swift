public import SousSchema

/// The diary chart: one bar per day for a total (kcal, or grams of a macro), a stepped line for
/// the goal in force each day, a value axis with round ticks, day labels thinned to fit, a
/// legend and a title.
///
/// Each entry gets one slot, in the order given: pass every day of the period, days without
/// entries included (as the tracker's `DiaryHistory` does), so that gaps show as gaps.
///
/// Input is taken as it comes and never traps:
/// - a value or goal that is NaN or infinite counts as missing (no bar, no goal that day);
/// - a negative value or goal counts as 0;
/// - one above ``AxisScale/largest`` (10⁹) counts as that;
/// - a width or height that is not finite is the default; others are kept within the minimum
///   and ``maximumSide``.
///
/// A bar is orange when the value is above the day's goal, blue when at or under it, grey when
/// the day has no goal.
public struct DailyChart: Sendable, Equatable {
    /// One day of the chart.
    public struct Entry: Sendable, Equatable {
        public var day: LocalDate
        /// The day's total; nil when nothing was logged.
        public var value: Double?
        /// The goal in force that day; nil when none was.
        public var goal: Double?

        public init(day: LocalDate, value: Double?, goal: Double?) {
            self.day = day
            self.value = value
            self.goal = goal
        }
    }

    public static let minimumWidth = 240.0
    public static let minimumHeight = 160.0
    public static let maximumSide = 10_000.0

    /// The visible title and the SVG's accessible name.
    public var title: String
    /// What the values are, for the description ("Energy", "Protein").
    public var seriesName: String
    /// "kcal" or "g": shown above the value axis.
    public var unit: String
    public var entries: [Entry]
    public var width: Double
    public var height: Double

    public init(title: String, seriesName: String, unit: String, entries: [Entry], width: Double = 800, height: Double = 320) {
        self.title = title
        self.seriesName = seriesName
        self.unit = unit
        self.entries = entries
        self.width = width
        self.height = height
    }

    /// The chart as a document.
    public func document() -> SVGDocument {
        let canvasWidth = canvasSide(width, minimum: Self.minimumWidth, maximum: Self.maximumSide, fallback: 800)
        let canvasHeight = canvasSide(height, minimum: Self.minimumHeight, maximum: Self.maximumSide, fallback: 320)
        let plot = DailyPlot(entries: entries, unit: unit)
        var svg = SVGDocument(width: canvasWidth, height: canvasHeight, title: title, description: plot.summary(seriesName: seriesName))
        svg.append(Heading.title(title, width: canvasWidth))
        let legend = Legend.layout(DailyPlot.legendItems(showsNoGoal: plot.hasValueWithoutGoal), x: 16, top: 38, maxX: canvasWidth - 16)
        svg.append(legend.element)
        let frame = Frame(left: 16, top: legend.bottom + 6, right: canvasWidth - 16, bottom: canvasHeight - 8)
        svg.append(plot.element(in: frame, canvasWidth: canvasWidth))
        return svg
    }

    /// The chart as SVG text.
    public func render() -> String {
        document().render()
    }

    /// Four small multiples stacked in one document, one per ``MacroSeries`` (energy,
    /// carbohydrates, protein, fat), each against its own goal, under one title and one legend.
    /// A day's `totals` nil means nothing was logged; its `goals` nil, that no goal was in force.
    /// The same rules for odd input as a single chart; `panelHeight` is kept within 120 … 2 500.
    public static func macros(title: String, days: [MacroDay], width: Double = 800, panelHeight: Double = 180) -> SVGDocument {
        let canvasWidth = canvasSide(width, minimum: minimumWidth, maximum: maximumSide, fallback: 800)
        let panelSide = canvasSide(panelHeight, minimum: 120, maximum: 2_500, fallback: 180)
        let plots = MacroSeries.allCases.map { series in
            DailyPlot(entries: days.map { Entry(day: $0.day, value: $0.totals?[series], goal: $0.goals?[series]) }, unit: series.unit)
        }
        let legend = Legend.layout(
            DailyPlot.legendItems(showsNoGoal: plots.contains { $0.hasValueWithoutGoal }), x: 16, top: 38, maxX: canvasWidth - 16
        )
        let headerHeight = legend.bottom + 4

        var description = "\(title): energy (kcal), carbohydrates, protein and fat (g) per day"
        if let first = days.first, let last = days.last {
            let logged = days.filter { $0.totals != nil }.count
            description += days.count == 1 ? " on \(first.day)" : " from \(first.day) to \(last.day)"
            description += ", \(logged) of \(days.count) days with entries."
        } else {
            description += ": no days."
        }

        var svg = SVGDocument(width: canvasWidth, height: headerHeight + panelSide * 4, title: title, description: description)
        svg.append(Heading.title(title, width: canvasWidth))
        svg.append(legend.element)
        for (index, series) in MacroSeries.allCases.enumerated() {
            let heading = SVGElement.text(
                "\(series.name) (\(series.unit))", x: 16, y: 16,
                style: SVGStyle(className: "panel-title", fill: Palette.ink, fontSize: 13, fontWeight: "bold")
            )
            let body = plots[index].element(in: Frame(left: 16, top: 24, right: canvasWidth - 16, bottom: panelSide - 4), canvasWidth: canvasWidth)
            svg.append(.group(class: "panel \(series.rawValue)", dy: headerHeight + Double(index) * panelSide, [heading, body]))
        }
        return svg
    }
}

/// The four series of the diary: energy and the three macros, named as the schema's `Macros`.
public enum MacroSeries: String, Sendable, CaseIterable {
    case kcal, carbohydrates, protein, fat

    /// "Energy", "Carbohydrates", "Protein", "Fat".
    public var name: String {
        switch self {
        case .kcal: "Energy"
        case .carbohydrates: "Carbohydrates"
        case .protein: "Protein"
        case .fat: "Fat"
        }
    }

    /// "kcal" for energy, "g" for the macros.
    public var unit: String { self == .kcal ? "kcal" : "g" }
}

/// One day of ``DailyChart/macros(title:days:width:panelHeight:)``.
public struct MacroDay: Sendable, Equatable {
    public var day: LocalDate
    /// Nil when nothing was logged that day.
    public var totals: Macros?
    /// Nil when no goal was in force that day.
    public var goals: Macros?

    public init(day: LocalDate, totals: Macros?, goals: Macros?) {
        self.day = day
        self.totals = totals
        self.goals = goals
    }
}

/// The plotting area of a daily chart: value axis, bars, goal line and day labels.
struct DailyPlot {
    struct Sample {
        let day: LocalDate
        let value: Double?
        let goal: Double?

        var status: Status? {
            guard let value else { return nil }
            guard let goal else { return .noGoal }
            return value > goal ? .over : .under
        }
    }

    enum Status {
        case under, over, noGoal

        var className: String {
            switch self {
            case .under: "under"
            case .over: "over"
            case .noGoal: "no-goal"
            }
        }

        var fill: String {
            switch self {
            case .under: Palette.underGoal
            case .over: Palette.overGoal
            case .noGoal: Palette.noGoal
            }
        }
    }

    /// A day label under the axis, at the slot of entry `index`.
    struct DayLabel {
        let index: Int
        let text: String
    }

    static let labelSize = 11.0

    let samples: [Sample]
    let unit: String

    init(entries: [DailyChart.Entry], unit: String) {
        samples = entries.map { Sample(day: $0.day, value: Self.clean($0.value), goal: Self.clean($0.goal)) }
        self.unit = unit
    }

    /// Nil for NaN and infinities, else the value within 0 … ``AxisScale/largest``.
    static func clean(_ value: Double?) -> Double? {
        guard let value, value.isFinite else { return nil }
        return min(max(value, 0), AxisScale.largest)
    }

    var hasValueWithoutGoal: Bool {
        samples.contains { $0.value != nil && $0.goal == nil }
    }

    static func legendItems(showsNoGoal: Bool) -> [LegendItem] {
        var items = [
            LegendItem(swatch: .box(fill: Palette.underGoal, stroke: nil), label: "At or under goal"),
            LegendItem(swatch: .box(fill: Palette.overGoal, stroke: nil), label: "Over goal"),
            LegendItem(swatch: .line(stroke: Palette.goalLine), label: "Goal"),
        ]
        if showsNoGoal { items.append(LegendItem(swatch: .box(fill: Palette.noGoal, stroke: nil), label: "No goal set")) }
        return items
    }

    /// The chart in words, for `<desc>`.
    func summary(seriesName: String) -> String {
        guard let first = samples.first, let last = samples.last else { return "\(seriesName) per day in \(unit): no days." }
        let logged = samples.filter { $0.value != nil }.count
        let over = samples.filter { $0.status == .over }.count
        let period = samples.count == 1 ? "on \(first.day)" : "from \(first.day) to \(last.day)"
        return "\(seriesName) per day in \(unit) \(period): \(logged) of \(samples.count) days with entries, \(over) over goal."
    }

    /// The plot within `frame`: the value labels take the frame's left, the unit the 18 pixels
    /// at its top, the day labels the 22 at its bottom.
    func element(in frame: Frame, canvasWidth: Double) -> SVGElement {
        let labelSize = Self.labelSize
        let plotTop = frame.top + 18
        let plotBottom = max(frame.bottom - 22, plotTop + 1)
        let plotHeight = plotBottom - plotTop
        // About one tick per 28 pixels of height, 5 intervals at most, so that labels never crowd.
        let tickCount = min(max(Int(plotHeight / 28), 1), 5)
        let scale = AxisScale(maximum: samples.reduce(0.0) { max($0, $1.value ?? 0, $1.goal ?? 0) }, tickCount: tickCount)
        let ticks = scale.ticks
        let tickLabels = ticks.map { scale.label($0) }
        let columnWidth = max(tickLabels.map { TextMetrics.width($0, size: labelSize) }.max() ?? 0, TextMetrics.width(unit, size: labelSize))
        let plotLeft = frame.left + columnWidth + 8
        let plotRight = max(frame.right, plotLeft + 1)
        let slot = (plotRight - plotLeft) / Double(max(samples.count, 1))
        func y(_ value: Double) -> Double { plotBottom - scale.fraction(of: value) * plotHeight }
        func slotLeft(_ index: Int) -> Double { plotLeft + Double(index) * slot }

        var axis: [SVGElement] = []
        for (tick, label) in zip(ticks, tickLabels) {
            let isBase = tick == 0
            let lineStyle = SVGStyle(className: isBase ? "baseline" : "grid", stroke: isBase ? Palette.axis : Palette.grid, strokeWidth: 1)
            axis.append(.line(x1: plotLeft, y1: y(tick), x2: plotRight, y2: y(tick), style: lineStyle))
            axis.append(
                .text(
                    label, x: plotLeft - 6, y: y(tick) + 4, anchor: .end,
                    style: SVGStyle(className: "tick-label", fill: Palette.muted, fontSize: labelSize))
            )
        }
        axis.append(
            .text(unit, x: plotLeft - 6, y: plotTop - 10, anchor: .end, style: SVGStyle(className: "unit", fill: Palette.muted, fontSize: labelSize)))

        let barWidth = min(slot * 0.72, 40)
        var bars: [SVGElement] = []
        for (index, sample) in samples.enumerated() {
            guard let value = sample.value, let status = sample.status else { continue }
            let top = y(value)
            var tooltip = "\(sample.day): \(SVGNumber.format(value)) \(unit)"
            if let goal = sample.goal { tooltip += ", goal \(SVGNumber.format(goal)) \(unit)" }
            let bar = SVGElement.rect(
                x: slotLeft(index) + (slot - barWidth) / 2, y: top, width: barWidth, height: plotBottom - top,
                style: SVGStyle(className: "bar \(status.className)", fill: status.fill)
            )
            bars.append(bar.tooltip(tooltip))
        }

        // One run per stretch of days with a goal: across each day's slot at its goal's height,
        // a vertical step where the goal changes, a break where a day has none.
        var goalPath = SVGPath()
        var previousGoal: Double?
        for (index, sample) in samples.enumerated() {
            if let goal = sample.goal {
                if let previousGoal {
                    if goal != previousGoal {
                        goalPath.horizontal(to: slotLeft(index))
                        goalPath.vertical(to: y(goal))
                    }
                } else {
                    goalPath.move(to: slotLeft(index), y(goal))
                }
            } else if previousGoal != nil {
                goalPath.horizontal(to: slotLeft(index))
            }
            previousGoal = sample.goal
        }
        if previousGoal != nil { goalPath.horizontal(to: slotLeft(samples.count)) }

        var days: [SVGElement] = []
        let spacing = TextMetrics.width("Sep 30", size: labelSize) + 10
        for label in Self.dayLabels(samples.map(\.day), slot: slot, spacing: spacing) {
            let centre = slotLeft(label.index) + slot / 2
            let half = TextMetrics.width(label.text, size: labelSize) / 2
            let x = min(max(centre, half + 2), canvasWidth - half - 2)
            days.append(
                .line(
                    x1: centre, y1: plotBottom, x2: centre, y2: plotBottom + 4,
                    style: SVGStyle(className: "day-tick", stroke: Palette.axis, strokeWidth: 1)))
            days.append(
                .text(
                    label.text, x: x, y: plotBottom + 16, anchor: .middle,
                    style: SVGStyle(className: "day-label", fill: Palette.muted, fontSize: labelSize))
            )
        }

        var parts: [SVGElement] = [.group(class: "axis", axis), .group(class: "bars", bars)]
        if !goalPath.isEmpty {
            parts.append(.path(goalPath, style: SVGStyle(className: "goal", stroke: Palette.goalLine, strokeWidth: 2)))
        }
        parts.append(.group(class: "days", days))
        if bars.isEmpty {
            parts.append(
                .text(
                    "No entries", x: (plotLeft + plotRight) / 2, y: plotTop + plotHeight / 2, anchor: .middle,
                    style: SVGStyle(className: "empty", fill: Palette.muted, fontSize: 13)
                )
            )
        }
        return .group(class: "plot", parts)
    }

    /// Which days get a label, at least `spacing` apart: every day, or every 2nd, 3rd, 7th or
    /// 14th; beyond that the first days of months ("Mar", or the year for January), every month
    /// or every few.
    static func dayLabels(_ days: [LocalDate], slot: Double, spacing: Double) -> [DayLabel] {
        guard !days.isEmpty, slot > 0, spacing > 0 else { return [] }
        let fit = max(1, Int(min(Double(days.count) * slot / spacing, Double(days.count))))
        let needed = (days.count + fit - 1) / fit
        if let step = [1, 2, 3, 7, 14].first(where: { $0 >= needed }) {
            return stride(from: 0, to: days.count, by: step).map { DayLabel(index: $0, text: days[$0].shortLabel) }
        }
        let starts = days.indices.filter { days[$0].day == 1 }
        guard !starts.isEmpty else { return [DayLabel(index: 0, text: days[0].shortLabel)] }
        var every = max(1, (starts.count + fit - 1) / fit)
        while every < starts.count {
            let picked = stride(from: 0, to: starts.count, by: every).map { starts[$0] }
            if zip(picked, picked.dropFirst()).allSatisfy({ pair in Double(pair.1 - pair.0) * slot >= spacing }) { break }
            every += 1
        }
        return stride(from: 0, to: starts.count, by: every).map { position in
            let day = days[starts[position]]
            return DayLabel(index: starts[position], text: day.month == 1 ? String(day.year) : LocalDate.monthAbbreviation(day.month))
        }
    }
}

/// The diary's history as chart input: a day with nothing logged has no bar.
public enum DiaryChart {
    public static func svg(_ history: DiaryHistory, range: DateRange, only: MacroSeries?, width: Double = 800) -> String {
        let title = "Diary \(range.from) to \(range.to)"
        let days = history.days.map { day in
            MacroDay(
                day: day.date, totals: day.entries > 0 ? day.totals : nil,
                goals: day.goals?.macros
                    ?? Macros(kcal: day.kcalGoal, carbohydrates: .nan, protein: .nan, fat: .nan))
        }
        guard let only else { return DailyChart.macros(title: title, days: days, width: width).render() }
        let entries = days.map { DailyChart.Entry(day: $0.day, value: $0.totals?[only], goal: $0.goals?[only]) }
        return DailyChart(title: "\(only.name), \(title)", seriesName: only.name, unit: only.unit, entries: entries, width: width).render()
    }
}
