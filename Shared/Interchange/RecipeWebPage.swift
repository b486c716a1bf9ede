import Foundation

/// The schema.org recipes of a web page: its JSON-LD (`<script type="application/ld+json">`
/// blocks), or, when no block holds a Recipe, its microdata (`itemscope
/// itemtype="…schema.org/Recipe"` and the `itemprop`s inside it).
///
/// A page with no recipe is ``SchemaRecipeError/Code/noRecipe``; a page whose only JSON-LD
/// blocks are broken and that has no microdata recipe is ``SchemaRecipeError/Code/invalidJSON``
/// naming the block.
public enum RecipeWebPage {
    public static func recipes(inHTML html: String) throws(SchemaRecipeError) -> [SchemaRecipe] {
        var recipes: [SchemaRecipe] = []
        var broken: SchemaRecipeError?
        for (number, block) in jsonLDBlocks(html).enumerated() {
            do {
                recipes += try SchemaRecipeDocument.recipes(from: Data(HTMLText.decodingEntitiesInScript(block).utf8))
            } catch  where error.code == .noRecipe {
                continue
            } catch {
                broken = broken ?? SchemaRecipeError(code: error.code, path: "script[\(number)]\(error.path.dropFirst())", message: error.message)
            }
        }
        if !recipes.isEmpty { return recipes }
        let microdata = HTMLTree(html).microdataRecipes()
        if !microdata.isEmpty {
            let data = (try? JSONSerialization.data(withJSONObject: microdata)) ?? Data("[]".utf8)
            return try SchemaRecipeDocument.recipes(from: data)
        }
        throw broken ?? SchemaRecipeError(code: .noRecipe, path: "$", message: "the page has no schema.org Recipe (neither JSON-LD nor microdata)")
    }

    /// The text of every `<script>` whose type is JSON-LD, in page order.
    static func jsonLDBlocks(_ html: String) -> [String] {
        var blocks: [String] = []
        var rest = html[...]
        while let open = rest.range(of: "<script", options: .caseInsensitive) {
            guard let tagEnd = rest[open.upperBound...].firstIndex(of: ">") else { break }
            let attributes = rest[open.upperBound..<tagEnd].lowercased()
            let bodyStart = rest.index(after: tagEnd)
            guard let close = rest[bodyStart...].range(of: "</script", options: .caseInsensitive) else { break }
            if attributes.contains("ld+json") { blocks.append(String(rest[bodyStart..<close.lowerBound])) }
            rest = rest[close.upperBound...]
        }
        return blocks
    }
}

extension HTMLText {
    /// A script's text as the browser reads it: only a CDATA wrapper or HTML comment markers
    /// around it are taken off (entities in a script are not decoded by browsers either).
    static func decodingEntitiesInScript(_ text: String) -> String {
        var body = text.trimmingCharacters(in: .whitespacesAndNewlines)
        for (open, close) in [("<![CDATA[", "]]>"), ("<!--", "-->"), ("//<![CDATA[", "//]]>")] where body.hasPrefix(open) && body.hasSuffix(close) {
            body = String(body.dropFirst(open.count).dropLast(close.count))
        }
        return body
    }
}

/// A forgiving HTML element tree, enough to read microdata: void elements have no children, an
/// end tag closes the nearest open element of its name (or is ignored), script and style
/// content is skipped, comments dropped.
struct HTMLTree {
    final class Element {
        let name: String
        let attributes: [String: String]
        var children: [Node] = []

        init(name: String, attributes: [String: String]) {
            self.name = name
            self.attributes = attributes
        }

        /// The text inside, tags removed, entities decoded, whitespace collapsed.
        var text: String { HTMLText.plainText(rawText(blockSeparator: " ")) }

        /// The text inside with a line break where a block (a paragraph, an item) ends: what
        /// ``HTMLText/lines(_:)`` splits into steps.
        var blockText: String { rawText(blockSeparator: "\n") }

        private func rawText(blockSeparator: String) -> String {
            var parts: [String] = []
            func walk(_ element: Element) {
                for child in element.children {
                    switch child {
                    case .text(let text): parts.append(text)
                    case .element(let inner):
                        let block = ["br", "p", "li", "div"].contains(inner.name)
                        if block { parts.append(blockSeparator) }
                        walk(inner)
                        if block { parts.append(blockSeparator) }
                    }
                }
            }
            walk(self)
            return parts.joined()
        }
    }

    enum Node {
        case text(String)
        case element(Element)
    }

    static let voidElements: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr",
    ]

    let root = Element(name: "#root", attributes: [:])

    init(_ html: String) {
        var stack = [root]
        let characters = Array(html.unicodeScalars)
        var index = 0
        var text = ""
        func flushText() {
            if !text.isEmpty { stack.last!.children.append(.text(text)) }
            text = ""
        }
        while index < characters.count {
            let character = characters[index]
            guard character == "<", index + 1 < characters.count else {
                text.unicodeScalars.append(character)
                index += 1
                continue
            }
            let next = characters[index + 1]
            if next == "!" {
                // A comment or a doctype: skipped whole.
                let isComment = index + 3 < characters.count && characters[index + 2] == "-" && characters[index + 3] == "-"
                flushText()
                if isComment {
                    var end = index + 4
                    while end + 2 < characters.count, !(characters[end] == "-" && characters[end + 1] == "-" && characters[end + 2] == ">") {
                        end += 1
                    }
                    index = end + 3
                } else {
                    while index < characters.count, characters[index] != ">" { index += 1 }
                    index += 1
                }
                continue
            }
            guard next == "/" || next.properties.isAlphabetic else {
                text.unicodeScalars.append(character)
                index += 1
                continue
            }
            flushText()
            var end = index + 1
            var quote: Unicode.Scalar?
            while end < characters.count {
                let scalar = characters[end]
                if let open = quote {
                    if scalar == open { quote = nil }
                } else if scalar == "\"" || scalar == "'" {
                    quote = scalar
                } else if scalar == ">" {
                    break
                }
                end += 1
            }
            let tag = String(String.UnicodeScalarView(characters[(index + 1)..<min(end, characters.count)]))
            index = end + 1
            if tag.hasPrefix("/") {
                let name = tag.dropFirst().split(whereSeparator: { $0.isWhitespace }).first.map { $0.lowercased() } ?? ""
                if let open = stack.lastIndex(where: { $0.name == name }), open > 0 { stack.removeSubrange(open...) }
                continue
            }
            let (name, attributes) = Self.parseTag(tag)
            let element = Element(name: name, attributes: attributes)
            stack.last!.children.append(.element(element))
            if name == "script" || name == "style" {
                // Their text is not the page's: skipped to the end tag.
                let rest = String(String.UnicodeScalarView(characters[min(index, characters.count)...]))
                if let close = rest.range(of: "</\(name)", options: .caseInsensitive) {
                    index += rest.unicodeScalars.distance(from: rest.unicodeScalars.startIndex, to: close.lowerBound)
                } else {
                    index = characters.count
                }
                continue
            }
            if !Self.voidElements.contains(name), !tag.hasSuffix("/") { stack.append(element) }
        }
        flushText()
    }

    static func parseTag(_ tag: String) -> (name: String, attributes: [String: String]) {
        let scalars = Array(tag.unicodeScalars)
        var index = 0
        func skipSpace() { while index < scalars.count, scalars[index].properties.isWhitespace || scalars[index] == "/" { index += 1 } }
        func word() -> String {
            var word = ""
            while index < scalars.count, !scalars[index].properties.isWhitespace, !["=", "/", ">"].contains(scalars[index]) {
                word.unicodeScalars.append(scalars[index])
                index += 1
            }
            return word
        }
        let name = word().lowercased()
        var attributes: [String: String] = [:]
        while index < scalars.count {
            skipSpace()
            let key = word().lowercased()
            guard !key.isEmpty else {
                index += 1
                continue
            }
            skipSpace()
            var value = ""
            if index < scalars.count, scalars[index] == "=" {
                index += 1
                while index < scalars.count, scalars[index].properties.isWhitespace { index += 1 }
                if index < scalars.count, scalars[index] == "\"" || scalars[index] == "'" {
                    let quote = scalars[index]
                    index += 1
                    while index < scalars.count, scalars[index] != quote {
                        value.unicodeScalars.append(scalars[index])
                        index += 1
                    }
                    index += 1
                } else {
                    value = word()
                }
            }
            if attributes[key] == nil { attributes[key] = HTMLText.decodingEntities(value) }
        }
        return (name, attributes)
    }

    /// Every microdata Recipe as a JSON-LD-shaped dictionary (properties that occur more than
    /// once become arrays), for ``SchemaRecipeDocument``.
    func microdataRecipes() -> [[String: Any]] {
        var recipes: [[String: Any]] = []
        func find(_ element: Element) {
            if element.attributes["itemscope"] != nil, (element.attributes["itemtype"] ?? "").lowercased().hasSuffix("schema.org/recipe") {
                recipes.append(Self.item(element, type: "Recipe"))
                return
            }
            for case .element(let child) in element.children { find(child) }
        }
        find(root)
        return recipes
    }

    /// An item's properties: the `itemprop`s below it that no inner item claims.
    static func item(_ element: Element, type: String) -> [String: Any] {
        var properties: [String: [Any]] = [:]
        func collect(_ element: Element) {
            for case .element(let child) in element.children {
                if let names = child.attributes["itemprop"] {
                    let value = Self.value(of: child)
                    for name in names.split(separator: " ") { properties[String(name), default: []].append(value) }
                    if child.attributes["itemscope"] != nil { continue }
                }
                if child.attributes["itemscope"] == nil { collect(child) }
            }
        }
        collect(element)
        var item: [String: Any] = ["@type": type]
        for (name, values) in properties { item[name] = values.count == 1 ? values[0] : values }
        return item
    }

    /// A property's value: an inner item, or the attribute HTML gives the element's value in,
    /// or its text.
    static func value(of element: Element) -> Any {
        if element.attributes["itemscope"] != nil {
            let type = (element.attributes["itemtype"] ?? "").split(separator: "/").last.map(String.init) ?? "Thing"
            var item = item(element, type: type)
            if item["text"] == nil, item.count == 1 { item["text"] = element.text }
            return item
        }
        if let content = element.attributes["content"] { return content }
        switch element.name {
        case "img", "audio", "embed", "iframe", "source", "track", "video": return element.attributes["src"] ?? ""
        case "a", "area", "link": return element.attributes["href"] ?? ""
        case "object": return element.attributes["data"] ?? ""
        case "data", "meter": return element.attributes["value"] ?? element.text
        case "time": return element.attributes["datetime"] ?? element.text
        default:
            // Instructions keep their steps apart (one per item or paragraph).
            let names = (element.attributes["itemprop"] ?? "").split(separator: " ")
            return names.contains("recipeInstructions") ? element.blockText : element.text
        }
    }
}
