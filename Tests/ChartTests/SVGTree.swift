import Foundation
import SousCharts
import SousSchema
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// An element of a parsed SVG: what the tests look for in a chart.
struct ParsedElement {
    var name: String
    var attributes: [String: String]
    var text = ""
    var children: [ParsedElement] = []

    /// This element and every one below it, depth first.
    var all: [ParsedElement] { [self] + children.flatMap { $0.all } }

    func elements(named name: String) -> [ParsedElement] {
        all.filter { $0.name == name }
    }

    /// The elements whose class list holds every one of `classes`.
    func elements(withClass classes: String...) -> [ParsedElement] {
        all.filter { element in
            let list = (element.attributes["class"] ?? "").split(separator: " ").map { String($0) }
            return classes.allSatisfy { list.contains($0) }
        }
    }

    func number(_ attribute: String) -> Double? {
        attributes[attribute].flatMap { Double($0) }
    }
}

enum SVGTree {
    /// Parses `svg` with Foundation's XMLParser; throws when it is not well-formed XML.
    static func parse(_ svg: String) throws -> ParsedElement {
        let builder = TreeBuilder()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = builder
        let parsed = parser.parse()
        // Foundation's parser on Linux runs libxml2 in recovery mode: an error may still end in
        // a tree, so the error itself counts too.
        guard parsed, parser.parserError == nil, let root = builder.root else {
            throw ChartTestError(description: "not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "no root element")")
        }
        return root
    }
}

struct ChartTestError: Error, CustomStringConvertible {
    let description: String
}

/// Builds the tree as XMLParser reports elements.
final class TreeBuilder: NSObject, XMLParserDelegate {
    private var stack: [ParsedElement] = []
    private(set) var root: ParsedElement?

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
        attributes attributeDict: [String: String] = [:]
    ) {
        stack.append(ParsedElement(name: elementName, attributes: attributeDict))
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        guard let element = stack.popLast() else { return }
        if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].children.append(element)
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += string
    }
}

/// The attributes that hold one number each.
let numericAttributes: Set<String> = [
    "x", "y", "width", "height", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "stroke-width", "font-size", "opacity",
]

/// Every number `element` and those below it carry: numeric attributes, polyline points, path
/// data, the view box and translations.
func numbers(in element: ParsedElement) -> [Substring] {
    var found: [Substring] = []
    for item in element.all {
        for (name, value) in item.attributes {
            if numericAttributes.contains(name) {
                found.append(Substring(value))
            } else if name == "points" || name == "viewBox" || name == "stroke-dasharray" {
                found += value.split(whereSeparator: { $0 == " " || $0 == "," })
            } else if name == "d" {
                found += value.split(separator: " ").filter { !["M", "L", "H", "V", "Z"].contains($0) }
            } else if name == "transform", value.hasPrefix("translate("), value.hasSuffix(")") {
                found += value.dropFirst("translate(".count).dropLast().split(separator: " ")
            }
        }
    }
    return found
}

/// Whether `text` is a number as the charts write them: an optional minus, digits, and at most
/// two decimals without a trailing zero (no exponent, no "nan", no "inf").
func isPlainNumber(_ text: Substring) -> Bool {
    let digits = text.hasPrefix("-") ? text.dropFirst() : text
    let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
    func allDigits(_ part: Substring) -> Bool { !part.isEmpty && part.allSatisfy { $0.isASCII && $0.isNumber } }
    guard let whole = parts.first, parts.count <= 2, allDigits(whole) else { return false }
    guard parts.count == 2 else { return true }
    let fraction = parts[1]
    return allDigits(fraction) && fraction.count <= 2 && fraction.last != "0"
}

/// `count` consecutive days from `start` ("YYYY-MM-DD").
func consecutiveDays(from start: String, count: Int) throws -> [LocalDate] {
    let first = try #require(LocalDate(start))
    return try (0..<count).map { offset in try #require(first.offset(by: offset)) }
}

func parseDay(_ text: String) throws -> LocalDate {
    try #require(LocalDate(text))
}
