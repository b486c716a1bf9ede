public import SousSchema

/// A month of gluten tests as a calendar (weeks from Monday): each day's cell is tinted by its
/// prediction, a filled red dot marks a positive test and a green ring a negative one, and a
/// tick or a cross says whether the prediction matched the result. A legend, and a line
/// counting right predictions and tests, go with it.
///
/// The days mirror the tracker's `GlutenDay`: a prediction is "expects gluten" yes or no (the
/// schema has no probabilities or levels), a result is positive or negative.
///
/// Input is taken as it comes and never traps: entries outside the month are left out, and of
/// two for one day the last counts; a year outside 1–9999 or a month outside 1–12 is taken as
/// the nearest valid one; a width or height that is not finite is the default, others are kept
/// within the minimum and ``maximumSide``.
public struct GlutenMonthChart: Sendable, Equatable {
    /// What a day holds, as the schema's `GlutenDay`.
    public struct Entry: Sendable, Equatable {
        public var day: LocalDate
        /// The prediction; nil if none was made.
        public var expectsGluten: Bool?
        /// The test result (true = gluten found); nil until recorded.
        public var positive: Bool?

        /// Whether the prediction matched the result; nil unless the day has both.
        public var correct: Bool? {
            guard let expectsGluten, let positive else { return nil }
            return expectsGluten == positive
        }

        public init(day: LocalDate, expectsGluten: Bool?, positive: Bool?) {
            self.day = day
            self.expectsGluten = expectsGluten
            self.positive = positive
        }
    }

    public static let minimumWidth = 280.0
    public static let minimumHeight = 240.0
    public static let maximumSide = 10_000.0

    /// The visible title and the SVG's accessible name.
    public var title: String
    public var year: Int
    /// 1–12.
    public var month: Int
    public var entries: [Entry]
    public var width: Double
    public var height: Double

    public init(title: String, year: Int, month: Int, entries: [Entry], width: Double = 720, height: Double = 480) {
        self.title = title
        self.year = year
        self.month = month
        self.entries = entries
        self.width = width
        self.height = height
    }

    /// The chart as a document.
    public func document() -> SVGDocument {
        let canvasWidth = canvasSide(width, minimum: Self.minimumWidth, maximum: Self.maximumSide, fallback: 720)
        let canvasHeight = canvasSide(height, minimum: Self.minimumHeight, maximum: Self.maximumSide, fallback: 480)
        let shownYear = min(max(year, 1), 9999)
        let shownMonth = min(max(month, 1), 12)
        let first = LocalDate(year: shownYear, month: shownMonth, day: 1) ?? .earliest
        let dayCount = first.lastOfMonth.day
        var byDay = [Entry?](repeating: nil, count: dayCount)
        for entry in entries where entry.day.year == shownYear && entry.day.month == shownMonth {
            byDay[entry.day.day - 1] = entry
        }

        let predictions = byDay.filter { $0?.expectsGluten != nil }.count
        let results = byDay.compactMap { $0?.positive }
        let positives = results.filter { $0 }.count
        let scored = byDay.compactMap { $0?.correct }
        let right = scored.filter { $0 }.count
        let description =
            "Gluten tests, \(LocalDate.monthName(shownMonth)) \(shownYear): \(Self.counted(predictions, "prediction")), "
            + "\(Self.counted(results.count, "test result")) (\(positives) positive), \(right) of \(scored.count) scored predictions right."

        var svg = SVGDocument(width: canvasWidth, height: canvasHeight, title: title, description: description)
        svg.append(Heading.title(title, width: canvasWidth))
        let legend = Legend.layout(Self.legendItems, x: 16, top: 38, maxX: canvasWidth - 16)
        svg.append(legend.element)

        let offset = first.isoWeekday - 1
        let rows = (offset + dayCount + 6) / 7
        let gridLeft = 16.0
        let gridTop = legend.bottom + 24
        let gridBottom = max(canvasHeight - 30, gridTop + Double(rows) * 12)
        let cellWidth = (canvasWidth - 32) / 7
        let cellHeight = (gridBottom - gridTop) / Double(rows)

        let names = cellWidth >= 36 ? ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] : ["M", "T", "W", "T", "F", "S", "S"]
        var header: [SVGElement] = []
        for (column, name) in names.enumerated() {
            header.append(
                .text(
                    name, x: gridLeft + (Double(column) + 0.5) * cellWidth, y: gridTop - 8, anchor: .middle,
                    style: SVGStyle(className: "weekday", fill: Palette.muted, fontSize: 11)
                )
            )
        }
        svg.append(.group(class: "weekdays", header))

        var cells: [SVGElement] = []
        for (index, entry) in byDay.enumerated() {
            let position = offset + index
            let day = first.adding(days: index)
            cells.append(
                Self.cell(
                    day: day, entry: entry, x: gridLeft + Double(position % 7) * cellWidth, y: gridTop + Double(position / 7) * cellHeight,
                    width: cellWidth, height: cellHeight
                )
            )
        }
        svg.append(.group(class: "calendar", cells))

        let footer = "Predictions right: \(right) of \(scored.count) · Tests: \(results.count), \(positives) positive"
        svg.append(
            .text(
                TextMetrics.fitted(footer, size: 11, width: canvasWidth - 32), x: 16, y: canvasHeight - 10,
                style: SVGStyle(className: "summary", fill: Palette.muted, fontSize: 11)
            )
        )
        return svg
    }

    /// The chart as SVG text.
    public func render() -> String {
        document().render()
    }

    static var legendItems: [LegendItem] {
        [
            LegendItem(swatch: .box(fill: Palette.expectsGluten, stroke: Palette.cellBorder), label: "Expected gluten"),
            LegendItem(swatch: .box(fill: Palette.expectsNoGluten, stroke: Palette.cellBorder), label: "Expected no gluten"),
            LegendItem(swatch: .box(fill: Palette.noPrediction, stroke: Palette.cellBorder), label: "No prediction"),
            LegendItem(swatch: .dot(fill: Palette.positive), label: "Test positive"),
            LegendItem(swatch: .ring(stroke: Palette.negative), label: "Test negative"),
            LegendItem(swatch: .check, label: "Prediction right"),
            LegendItem(swatch: .cross, label: "Prediction wrong"),
        ]
    }

    /// One day's cell at (`x`, `y`): its number top left, the result's marker on the right, the
    /// verdict bottom left, and a tooltip saying all of it.
    static func cell(day: LocalDate, entry: Entry?, x: Double, y: Double, width: Double, height: Double) -> SVGElement {
        let expects = entry?.expectsGluten
        let kind = expects == nil ? "no-prediction" : expects == true ? "expects-gluten" : "expects-no-gluten"
        let fill = expects == nil ? Palette.noPrediction : expects == true ? Palette.expectsGluten : Palette.expectsNoGluten
        var words = ["\(day)", expects == nil ? "no prediction" : expects == true ? "expected gluten" : "expected no gluten"]
        var parts: [SVGElement] = [
            .rect(
                x: x + 2, y: y + 2, width: width - 4, height: height - 4, cornerRadius: 4,
                style: SVGStyle(className: "cell", fill: fill, stroke: Palette.cellBorder, strokeWidth: 1)
            ),
            .text(String(day.day), x: x + 8, y: y + 16, style: SVGStyle(className: "day-number", fill: Palette.ink, fontSize: 11)),
        ]
        let radius = max(3, min(9, height * 0.2, width * 0.15))
        let markerX = x + width - radius - 8
        let markerY = y + height / 2 + 2
        if let positive = entry?.positive {
            words.append(positive ? "test positive" : "test negative")
            if positive {
                parts.append(.circle(cx: markerX, cy: markerY, r: radius, style: SVGStyle(className: "result positive", fill: Palette.positive)))
            } else {
                parts.append(
                    .circle(
                        cx: markerX, cy: markerY, r: radius - 1,
                        style: SVGStyle(className: "result negative", fill: "#ffffff", stroke: Palette.negative, strokeWidth: 2.5)
                    )
                )
            }
        }
        if let correct = entry?.correct {
            words.append(correct ? "prediction right" : "prediction wrong")
            let size = max(6, min(12, height * 0.25))
            let markY = y + height - size - 6
            parts.append(
                correct
                    ? Marks.check(x: x + 6, y: markY, size: size, className: "verdict right")
                    : Marks.cross(x: x + 6, y: markY, size: size, className: "verdict wrong")
            )
        }
        return SVGElement.group(class: "day \(kind)", parts).tooltip(words.joined(separator: ", "))
    }

    static func counted(_ count: Int, _ noun: String) -> String {
        count == 1 ? "1 \(noun)" : "\(count) \(noun)s"
    }
}

extension GlutenMonthChart {
    /// The month of the coeliac diary's calendar: each day's prediction and test result.
    public init(_ calendar: GlutenCalendar, title: String, width: Double = 720, height: Double = 480) {
        let entries = calendar.days.map { day -> Entry in
            let positive: Bool? =
                switch day.status {
                case .positive: true
                case .negative: false
                case .predicted, .nothing: nil
                }
            return Entry(day: day.date, expectsGluten: day.expectsGluten, positive: positive)
        }
        self.init(title: title, year: calendar.year, month: calendar.month, entries: entries, width: width, height: height)
    }
}
