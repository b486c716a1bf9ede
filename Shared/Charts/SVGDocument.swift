/// A small SVG builder: a canvas of `width` × `height` with a title and a description for
/// screen readers, and elements drawn in the order appended.
///
/// ``render()`` is deterministic: the same document gives the same bytes, on any machine and in
/// any locale. Text and attribute values are escaped there, so any string may go in.
public struct SVGDocument: Sendable, Equatable {
    /// Tried in order; the last is the generic family every renderer has.
    public static let defaultFontFamilies = [
        "system-ui", "-apple-system", "Segoe UI", "Roboto", "Helvetica Neue", "Arial", "DejaVu Sans", "sans-serif",
    ]
    /// The `id`s of the `<title>` and `<desc>` elements, which the root's `aria-labelledby` names.
    public static let titleID = "sous-chart-title"
    public static let descriptionID = "sous-chart-desc"

    /// In pixels; a value that is not a positive finite number is drawn as 1, and anything above
    /// 100 000 as 100 000.
    public var width: Double
    public var height: Double
    /// The accessible name (`<title>`).
    public var title: String
    /// The accessible description (`<desc>`): what the chart shows, in words.
    public var description: String
    public var fontFamilies: [String]
    /// A fill for the whole canvas, or nil for a transparent one.
    public var background: String?
    public private(set) var elements: [SVGElement]

    public init(
        width: Double, height: Double, title: String, description: String, fontFamilies: [String] = SVGDocument.defaultFontFamilies,
        background: String? = "#ffffff"
    ) {
        self.width = width
        self.height = height
        self.title = title
        self.description = description
        self.fontFamilies = fontFamilies
        self.background = background
        self.elements = []
    }

    public mutating func append(_ element: SVGElement) {
        elements.append(element)
    }

    public mutating func append(contentsOf newElements: [SVGElement]) {
        elements.append(contentsOf: newElements)
    }

    /// The document as SVG 1.1 text, UTF-8 XML with a declaration, one element per line.
    public func render() -> String {
        let widthText = SVGNumber.format(Self.side(width))
        let heightText = SVGNumber.format(Self.side(height))
        var root: [SVGAttribute] = [
            SVGAttribute("xmlns", "http://www.w3.org/2000/svg"),
            SVGAttribute("width", widthText),
            SVGAttribute("height", heightText),
            SVGAttribute("viewBox", "0 0 \(widthText) \(heightText)"),
            SVGAttribute("role", "img"),
            SVGAttribute("aria-labelledby", "\(Self.titleID) \(Self.descriptionID)"),
        ]
        if !fontFamilies.isEmpty { root.append(SVGAttribute("font-family", fontFamilies.joined(separator: ", "))) }
        root.append(SVGAttribute("font-size", "12"))

        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        var body: [SVGElement] = [
            SVGElement("title", [SVGAttribute("id", Self.titleID)], content: title),
            SVGElement("desc", [SVGAttribute("id", Self.descriptionID)], content: description),
        ]
        if let background {
            body.append(
                .rect(x: 0, y: 0, width: Self.side(width), height: Self.side(height), style: SVGStyle(className: "background", fill: background)))
        }
        body.append(contentsOf: elements)
        SVGElement("svg", root, children: body).write(into: &out, indent: 0, groupsChildren: true)
        return out
    }

    static func side(_ value: Double) -> Double {
        value.isFinite && value > 0 ? min(value, 100_000) : 1
    }

    /// `text` safe inside XML content and double- or single-quoted attributes: `& < > " '`
    /// become entities, and the control characters XML 1.0 forbids (all below U+0020 but tab,
    /// line feed and carriage return, and U+FFFE, U+FFFF) are dropped.
    public static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\t", "\n", "\r": result.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF { continue }
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

/// One attribute; its value is escaped when the document renders.
public struct SVGAttribute: Sendable, Equatable {
    public let name: String
    public let value: String

    init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    init(_ name: String, _ number: Double) {
        self.init(name, SVGNumber.format(number))
    }
}

/// Where text stands relative to its x: the SVG `text-anchor`.
public enum SVGTextAnchor: String, Sendable {
    case start, middle, end
}

/// A point of a polyline.
public struct SVGPoint: Sendable, Equatable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// Presentation attributes, written in a fixed order; nil ones are left out.
public struct SVGStyle: Sendable, Equatable {
    /// Space-separated class names, for styling and for finding elements again (tests do).
    public var className: String?
    public var fill: String?
    public var stroke: String?
    public var strokeWidth: Double?
    /// Dash and gap lengths (`stroke-dasharray`); empty for a solid line.
    public var dashes: [Double]
    /// "butt", "round" or "square".
    public var lineCap: String?
    public var opacity: Double?
    public var fontSize: Double?
    /// "normal", "bold" or a weight such as "600".
    public var fontWeight: String?

    public init(
        className: String? = nil, fill: String? = nil, stroke: String? = nil, strokeWidth: Double? = nil, dashes: [Double] = [],
        lineCap: String? = nil, opacity: Double? = nil, fontSize: Double? = nil, fontWeight: String? = nil
    ) {
        self.className = className
        self.fill = fill
        self.stroke = stroke
        self.strokeWidth = strokeWidth
        self.dashes = dashes
        self.lineCap = lineCap
        self.opacity = opacity
        self.fontSize = fontSize
        self.fontWeight = fontWeight
    }

    var attributes: [SVGAttribute] {
        var result: [SVGAttribute] = []
        if let className { result.append(SVGAttribute("class", className)) }
        if let fill { result.append(SVGAttribute("fill", fill)) }
        if let stroke { result.append(SVGAttribute("stroke", stroke)) }
        if let strokeWidth { result.append(SVGAttribute("stroke-width", strokeWidth)) }
        if !dashes.isEmpty { result.append(SVGAttribute("stroke-dasharray", dashes.map { SVGNumber.format(max($0, 0)) }.joined(separator: " "))) }
        if let lineCap { result.append(SVGAttribute("stroke-linecap", lineCap)) }
        if let opacity { result.append(SVGAttribute("opacity", min(max(opacity, 0), 1))) }
        if let fontSize { result.append(SVGAttribute("font-size", fontSize)) }
        if let fontWeight { result.append(SVGAttribute("font-weight", fontWeight)) }
        return result
    }
}

/// Path data built command by command (absolute coordinates).
public struct SVGPath: Sendable, Equatable {
    public private(set) var commands: [String]

    public init() { commands = [] }

    public var isEmpty: Bool { commands.isEmpty }

    /// The `d` attribute: the commands separated by spaces.
    public var data: String { commands.joined(separator: " ") }

    public mutating func move(to x: Double, _ y: Double) {
        commands.append("M \(SVGNumber.format(x)) \(SVGNumber.format(y))")
    }

    public mutating func line(to x: Double, _ y: Double) {
        commands.append("L \(SVGNumber.format(x)) \(SVGNumber.format(y))")
    }

    public mutating func horizontal(to x: Double) {
        commands.append("H \(SVGNumber.format(x))")
    }

    public mutating func vertical(to y: Double) {
        commands.append("V \(SVGNumber.format(y))")
    }

    public mutating func close() {
        commands.append("Z")
    }
}

/// One element: made by the factories below, so names and attribute names are always valid.
public struct SVGElement: Sendable, Equatable {
    public let name: String
    public let attributes: [SVGAttribute]
    /// Character content (of `<text>` and `<title>`), unescaped.
    public let content: String?
    public let children: [SVGElement]

    init(_ name: String, _ attributes: [SVGAttribute], content: String? = nil, children: [SVGElement] = []) {
        self.name = name
        self.attributes = attributes
        self.content = content
        self.children = children
    }

    /// The value of attribute `name`, if set.
    public func attribute(_ name: String) -> String? {
        attributes.first { $0.name == name }?.value
    }

    /// A rectangle; a negative width or height is drawn as 0.
    public static func rect(x: Double, y: Double, width: Double, height: Double, cornerRadius: Double = 0, style: SVGStyle = SVGStyle()) -> SVGElement
    {
        var attributes = [
            SVGAttribute("x", x), SVGAttribute("y", y), SVGAttribute("width", nonNegative(width)), SVGAttribute("height", nonNegative(height)),
        ]
        if cornerRadius > 0 { attributes.append(SVGAttribute("rx", cornerRadius)) }
        return SVGElement("rect", attributes + style.attributes)
    }

    public static func line(x1: Double, y1: Double, x2: Double, y2: Double, style: SVGStyle = SVGStyle()) -> SVGElement {
        SVGElement("line", [SVGAttribute("x1", x1), SVGAttribute("y1", y1), SVGAttribute("x2", x2), SVGAttribute("y2", y2)] + style.attributes)
    }

    /// A polyline; unfilled unless `style` gives a fill.
    public static func polyline(_ points: [SVGPoint], style: SVGStyle = SVGStyle()) -> SVGElement {
        let list = points.map { "\(SVGNumber.format($0.x)),\(SVGNumber.format($0.y))" }.joined(separator: " ")
        var style = style
        if style.fill == nil { style.fill = "none" }
        return SVGElement("polyline", [SVGAttribute("points", list)] + style.attributes)
    }

    /// A path; unfilled unless `style` gives a fill.
    public static func path(_ path: SVGPath, style: SVGStyle = SVGStyle()) -> SVGElement {
        var style = style
        if style.fill == nil { style.fill = "none" }
        return SVGElement("path", [SVGAttribute("d", path.data)] + style.attributes)
    }

    /// A circle; a negative radius is drawn as 0.
    public static func circle(cx: Double, cy: Double, r: Double, style: SVGStyle = SVGStyle()) -> SVGElement {
        SVGElement("circle", [SVGAttribute("cx", cx), SVGAttribute("cy", cy), SVGAttribute("r", nonNegative(r))] + style.attributes)
    }

    /// Text whose baseline starts (or is centred, or ends, per `anchor`) at `x`, `y`.
    public static func text(_ content: String, x: Double, y: Double, anchor: SVGTextAnchor = .start, style: SVGStyle = SVGStyle()) -> SVGElement {
        var attributes = [SVGAttribute("x", x), SVGAttribute("y", y)]
        if anchor != .start { attributes.append(SVGAttribute("text-anchor", anchor.rawValue)) }
        return SVGElement("text", attributes + style.attributes, content: content)
    }

    /// A group (`<g>`), optionally with a class and moved by (`dx`, `dy`).
    public static func group(class className: String? = nil, dx: Double = 0, dy: Double = 0, _ children: [SVGElement]) -> SVGElement {
        var attributes: [SVGAttribute] = []
        if let className { attributes.append(SVGAttribute("class", className)) }
        if dx != 0 || dy != 0 { attributes.append(SVGAttribute("transform", "translate(\(SVGNumber.format(dx)) \(SVGNumber.format(dy)))")) }
        return SVGElement("g", attributes, children: children)
    }

    /// This element with a `<title>` first inside it: the tooltip viewers show on hover.
    public func tooltip(_ text: String) -> SVGElement {
        SVGElement(name, attributes, content: content, children: [SVGElement("title", [], content: text)] + children)
    }

    private static func nonNegative(_ value: Double) -> Double {
        value.isFinite && value > 0 ? value : 0
    }

    /// Writes the element; groups (and the root) put each child on a line of its own, indented,
    /// other elements keep theirs (a tooltip) on their line.
    func write(into out: inout String, indent: Int, groupsChildren: Bool) {
        out += String(repeating: "  ", count: indent)
        writeTag(into: &out, childrenIndent: groupsChildren || name == "g" ? indent + 1 : nil)
        out += "\n"
    }

    private func writeTag(into out: inout String, childrenIndent: Int?) {
        out += "<"
        out += name
        for attribute in attributes {
            out += " "
            out += attribute.name
            out += "=\""
            out += SVGDocument.escape(attribute.value)
            out += "\""
        }
        guard content != nil || !children.isEmpty else {
            out += "/>"
            return
        }
        out += ">"
        if let content { out += SVGDocument.escape(content) }
        if let childrenIndent, !children.isEmpty {
            out += "\n"
            for child in children { child.write(into: &out, indent: childrenIndent, groupsChildren: false) }
            out += String(repeating: "  ", count: childrenIndent - 1)
        } else {
            for child in children { child.writeTag(into: &out, childrenIndent: nil) }
        }
        out += "</"
        out += name
        out += ">"
    }
}
