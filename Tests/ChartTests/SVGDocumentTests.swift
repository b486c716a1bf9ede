import Foundation
import SousCharts
import Testing

/// The builder under the charts: numbers, escaping, structure, determinism.
@Suite(.serialized)
struct SVGDocumentTests {
    @Test func numbersHaveAtMostTwoDecimalsNoExponentAndNoMinusZero() {
        #expect(SVGNumber.format(0) == "0")
        #expect(SVGNumber.format(-0.0) == "0")
        #expect(SVGNumber.format(-0.004) == "0")
        #expect(SVGNumber.format(1.5) == "1.5")
        #expect(SVGNumber.format(2.25) == "2.25")
        #expect(SVGNumber.format(0.05) == "0.05")
        #expect(SVGNumber.format(0.1 + 0.2) == "0.3")
        #expect(SVGNumber.format(-3.1) == "-3.1")
        #expect(SVGNumber.format(100) == "100")
        #expect(SVGNumber.format(1_234_567.891) == "1234567.89")
        #expect(SVGNumber.format(1e-7) == "0")
        #expect(SVGNumber.format(1e20) == "1000000000000")
        #expect(SVGNumber.format(-1e20) == "-1000000000000")
        #expect(SVGNumber.format(.nan) == "0")
        #expect(SVGNumber.format(.infinity) == "0")
        #expect(SVGNumber.format(-.infinity) == "0")
        #expect(SVGNumber.format(.greatestFiniteMagnitude) == "1000000000000")
    }

    @Test func axisLabelsShareOneSuffixPerAxis() {
        #expect(SVGNumber.compact(0, scale: 1_000_000) == "0")
        #expect(SVGNumber.compact(200_000, scale: 1_000_000) == "0.2M")
        #expect(SVGNumber.compact(1_000_000, scale: 1_000_000) == "1M")
        #expect(SVGNumber.compact(2_000, scale: 12_000) == "2k")
        #expect(SVGNumber.compact(12_000, scale: 12_000) == "12k")
        #expect(SVGNumber.compact(2_000, scale: 2_500) == "2000")
        #expect(SVGNumber.compact(0.5, scale: 1) == "0.5")
        #expect(SVGNumber.compact(.nan, scale: 1) == "0")
    }

    @Test func hostileTextIsEscapedAndTheDocumentStillParses() throws {
        let hostile = "<script>&\"'\u{0}\u{1B}</script>"
        var document = SVGDocument(width: 100, height: 50, title: hostile, description: hostile)
        document.append(.text(hostile, x: 1, y: 2, style: SVGStyle(className: hostile, fill: hostile)))
        let svg = document.render()

        #expect(!svg.contains("<script>"))
        #expect(svg.contains("&lt;script&gt;&amp;&quot;&apos;&lt;/script&gt;"))
        #expect(SVGDocument.escape("a&b<c>d\"e'f") == "a&amp;b&lt;c&gt;d&quot;e&apos;f")
        let root = try SVGTree.parse(svg)
        #expect(root.children.first?.name == "title")
        #expect(root.children.first?.text == "<script>&\"'</script>")
        #expect(root.elements(named: "desc").first?.text == "<script>&\"'</script>")
        #expect(root.elements(named: "text").first?.text == "<script>&\"'</script>")
        #expect(root.elements(named: "text").first?.attributes["fill"] == "<script>&\"'</script>")
    }

    @Test func everyElementKindRendersAsParsableSVG() throws {
        var document = SVGDocument(width: 640, height: 320.5, title: "Shapes", description: "One of each element.")
        var path = SVGPath()
        path.move(to: 0, 0)
        path.horizontal(to: 10)
        path.vertical(to: 5)
        path.line(to: 2, 3)
        path.close()
        document.append(.rect(x: 1, y: 2, width: -3, height: 4, cornerRadius: 2, style: SVGStyle(className: "box", fill: "#ff0000")))
        document.append(.line(x1: 0, y1: 0, x2: 10, y2: 10.257, style: SVGStyle(stroke: "#000", strokeWidth: 1, dashes: [4, 2])))
        document.append(.polyline([SVGPoint(x: 0, y: 0), SVGPoint(x: 10, y: 5.5)], style: SVGStyle(stroke: "#000")))
        document.append(.path(path, style: SVGStyle(stroke: "#000")))
        document.append(.circle(cx: 5, cy: 5, r: 3, style: SVGStyle(fill: "#00f", opacity: 2)))
        document.append(.group(class: "labels", dy: 10, [.text("Middle", x: 50, y: 20, anchor: .middle), .text("End", x: 90, y: 20, anchor: .end)]))
        document.append(SVGElement.rect(x: 0, y: 0, width: 1, height: 1).tooltip("Hover"))

        let root = try SVGTree.parse(document.render())
        #expect(root.name == "svg")
        #expect(root.attributes["width"] == "640")
        #expect(root.attributes["height"] == "320.5")
        #expect(root.attributes["viewBox"] == "0 0 640 320.5")
        #expect(root.attributes["role"] == "img")
        #expect(root.attributes["aria-labelledby"] == "\(SVGDocument.titleID) \(SVGDocument.descriptionID)")
        #expect(root.attributes["font-family"]?.hasPrefix("system-ui, ") == true)
        #expect(root.attributes["font-family"]?.hasSuffix(", sans-serif") == true)
        #expect(root.children.map(\.name).prefix(3) == ["title", "desc", "rect"])
        #expect(root.children.first?.attributes["id"] == SVGDocument.titleID)

        let box = try #require(root.elements(withClass: "box").first)
        #expect(box.attributes["width"] == "0", "a negative width is drawn as 0")
        #expect(box.attributes["rx"] == "2")
        #expect(root.elements(named: "line").first?.attributes["y2"] == "10.26")
        #expect(root.elements(named: "line").first?.attributes["stroke-dasharray"] == "4 2")
        #expect(root.elements(named: "polyline").first?.attributes["points"] == "0,0 10,5.5")
        #expect(root.elements(named: "polyline").first?.attributes["fill"] == "none")
        #expect(root.elements(named: "path").first?.attributes["d"] == "M 0 0 H 10 V 5 L 2 3 Z")
        #expect(root.elements(named: "circle").first?.attributes["opacity"] == "1")
        let labels = try #require(root.elements(withClass: "labels").first)
        #expect(labels.attributes["transform"] == "translate(0 10)")
        #expect(labels.elements(named: "text").map { $0.attributes["text-anchor"] } == ["middle", "end"])
        #expect(root.children.last?.children.first?.name == "title")
        #expect(root.children.last?.children.first?.text == "Hover")
        #expect(numbers(in: root).allSatisfy(isPlainNumber))
    }

    @Test func theSameDocumentGivesTheSameBytes() {
        func make() -> SVGDocument {
            var document = SVGDocument(width: 200, height: 100, title: "Same", description: "Twice.")
            document.append(.group(class: "g", [.circle(cx: 1.234, cy: 2.345, r: 3), .text("ü & ß", x: 0.005, y: 1e-9)]))
            return document
        }
        #expect(make().render() == make().render())
        #expect(make() == make())
    }

    @Test func oddCanvasSizesStayDrawable() throws {
        let root = try SVGTree.parse(SVGDocument(width: .nan, height: -5, title: "", description: "").render())
        #expect(root.attributes["width"] == "1")
        #expect(root.attributes["height"] == "1")
    }
}
