// What the charts share: colours, text measuring, the legend and the small marks.

/// The charts' colours. Under and over goal are blue and orange, a pair that stays apart for
/// the common colour-vision deficiencies.
enum Palette {
    static let ink = "#1f2937"
    static let muted = "#4b5563"
    static let grid = "#e5e7eb"
    static let axis = "#9ca3af"
    static let underGoal = "#4c78a8"
    static let overGoal = "#f58518"
    static let noGoal = "#b8c0cc"
    static let goalLine = "#111827"
    static let expectsGluten = "#fcd34d"
    static let expectsNoGluten = "#bbf7d0"
    static let noPrediction = "#f9fafb"
    static let cellBorder = "#d1d5db"
    static let positive = "#b91c1c"
    static let negative = "#15803d"
    static let right = "#15803d"
    static let wrong = "#b91c1c"
}

/// Text sizes estimated without fonts: an average glyph is about 0.62 em wide in the sans-serif
/// faces of ``SVGDocument/defaultFontFamilies`` (a little generous, so labels keep apart).
enum TextMetrics {
    static func width(_ text: String, size: Double) -> Double {
        Double(text.count) * size * 0.62
    }

    /// `text`, cut short with "…" when it would be wider than `width`.
    static func fitted(_ text: String, size: Double, width: Double) -> String {
        let room = Int(max(width, 0) / (size * 0.62))
        guard text.count > room else { return text }
        guard room > 1 else { return "…" }
        return String(text.prefix(room - 1)) + "…"
    }
}

/// The x and y ranges a chart part draws in.
struct Frame {
    var left: Double
    var top: Double
    var right: Double
    var bottom: Double
}

/// A legend entry: a 12 × 12 swatch and its label.
struct LegendItem: Equatable, Sendable {
    enum Swatch: Equatable, Sendable {
        case box(fill: String, stroke: String?)
        case line(stroke: String)
        case dot(fill: String)
        case ring(stroke: String)
        case check
        case cross
    }

    var swatch: Swatch
    var label: String
}

enum Legend {
    static let rowHeight = 18.0
    static let fontSize = 11.0

    /// The items left to right from (`x`, `top`), starting a new row before one would pass
    /// `maxX`; also returns the y below the last row.
    static func layout(_ items: [LegendItem], x: Double, top: Double, maxX: Double) -> (element: SVGElement, bottom: Double) {
        var elements: [SVGElement] = []
        var cursor = x
        var rowTop = top
        for item in items {
            let itemWidth = 16 + TextMetrics.width(item.label, size: fontSize) + 14
            if cursor > x, cursor + itemWidth - 14 > maxX {
                cursor = x
                rowTop += rowHeight
            }
            let label = SVGElement.text(item.label, x: cursor + 16, y: rowTop + 10, style: SVGStyle(fill: Palette.ink, fontSize: fontSize))
            elements.append(.group(class: "legend-item", [swatch(item.swatch, x: cursor, y: rowTop), label]))
            cursor += itemWidth
        }
        let bottom = items.isEmpty ? top : rowTop + rowHeight
        return (SVGElement.group(class: "legend", elements), bottom)
    }

    private static func swatch(_ swatch: LegendItem.Swatch, x: Double, y: Double) -> SVGElement {
        switch swatch {
        case .box(let fill, let stroke):
            .rect(
                x: x, y: y, width: 12, height: 12, cornerRadius: 2, style: SVGStyle(fill: fill, stroke: stroke, strokeWidth: stroke == nil ? nil : 1))
        case .line(let stroke):
            .line(x1: x, y1: y + 6, x2: x + 12, y2: y + 6, style: SVGStyle(stroke: stroke, strokeWidth: 2))
        case .dot(let fill):
            .circle(cx: x + 6, cy: y + 6, r: 5, style: SVGStyle(fill: fill))
        case .ring(let stroke):
            .circle(cx: x + 6, cy: y + 6, r: 4.5, style: SVGStyle(fill: "#ffffff", stroke: stroke, strokeWidth: 2))
        case .check:
            Marks.check(x: x, y: y, size: 12)
        case .cross:
            Marks.cross(x: x, y: y, size: 12)
        }
    }
}

/// A tick and a cross drawn as strokes (no glyph a font might lack), in a `size` square at
/// (`x`, `y`).
enum Marks {
    static func check(x: Double, y: Double, size: Double, className: String? = nil) -> SVGElement {
        var path = SVGPath()
        path.move(to: x + size * 0.1, y + size * 0.55)
        path.line(to: x + size * 0.4, y + size * 0.85)
        path.line(to: x + size * 0.92, y + size * 0.2)
        return .path(path, style: SVGStyle(className: className, stroke: Palette.right, strokeWidth: max(size / 6, 1.5), lineCap: "round"))
    }

    static func cross(x: Double, y: Double, size: Double, className: String? = nil) -> SVGElement {
        var path = SVGPath()
        path.move(to: x + size * 0.18, y + size * 0.18)
        path.line(to: x + size * 0.82, y + size * 0.82)
        path.move(to: x + size * 0.82, y + size * 0.18)
        path.line(to: x + size * 0.18, y + size * 0.82)
        return .path(path, style: SVGStyle(className: className, stroke: Palette.wrong, strokeWidth: max(size / 6, 1.5), lineCap: "round"))
    }
}

enum Heading {
    /// A chart's visible title, top left, cut short to fit `width`.
    static func title(_ text: String, width: Double) -> SVGElement {
        .text(
            TextMetrics.fitted(text, size: 16, width: width - 32), x: 16, y: 26,
            style: SVGStyle(className: "title", fill: Palette.ink, fontSize: 16, fontWeight: "bold")
        )
    }
}

/// A canvas side: `fallback` when not finite, else kept within `minimum` … `maximum`.
func canvasSide(_ value: Double, minimum: Double, maximum: Double, fallback: Double) -> Double {
    guard value.isFinite else { return fallback }
    return min(max(value, minimum), maximum)
}
