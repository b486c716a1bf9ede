public import Foundation

/// Why a JSON-LD document could not be read.
public struct SchemaRecipeError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The data is not JSON.
        case invalidJSON
        /// The JSON holds no schema.org Recipe.
        case noRecipe
        /// A value has a type that cannot be read as what its key means (an ingredient that is
        /// a number).
        case invalidValue
    }

    public var code: Code
    /// Where in the document, as a JSON path: "$" for the whole, "$[2].recipeIngredient[4]",
    /// `$["@graph"][3].recipeInstructions[0]`.
    public var path: String
    public var message: String

    public init(code: Code, path: String, message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}

/// Reads schema.org Recipe JSON-LD as recipe sites, Mealie and Tandoor write it.
///
/// Recipe nodes are found in a single object, an array, `@graph` (nested too) and the
/// `mainEntity` of another node. A node is a Recipe when its `@type` (a string or an array)
/// names Recipe, with or without a "schema:" or "http(s)://schema.org/" prefix, or when it has
/// no `@type` but has `recipeIngredient` or `recipeInstructions` (Mealie's own export). Other
/// nodes are skipped.
///
/// Reading is lenient about shapes recipe sites vary on (strings or arrays, numbers or text,
/// ImageObject or URL) and strict about values that cannot mean what their key says: an
/// ingredient or an instruction that is a number, a boolean or an object without text is an
/// ``SchemaRecipeError/Code/invalidValue`` error naming its path.
public enum SchemaRecipeDocument {
    /// The recipes in a JSON-LD document, in document order.
    public static func recipes(from data: Data) throws(SchemaRecipeError) -> [SchemaRecipe] {
        // Checked here: some Foundation versions read past the end of an empty buffer.
        guard data.contains(where: { !Self.jsonWhitespace.contains($0) }) else {
            throw SchemaRecipeError(code: .invalidJSON, path: "$", message: "not valid JSON (the document is empty)")
        }
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw SchemaRecipeError(code: .invalidJSON, path: "$", message: "not valid JSON (\(String(describing: error)))")
        }
        var found = FoundNodes()
        collect(root, at: JSONPath.root, into: &found)
        guard !found.recipes.isEmpty else {
            let seen = found.otherTypes.isEmpty ? "" : " (found \(found.otherTypes.joined(separator: ", ")))"
            throw SchemaRecipeError(code: .noRecipe, path: "$", message: "no schema.org Recipe in the document\(seen)")
        }
        var recipes: [SchemaRecipe] = []
        for (node, path) in found.recipes {
            let parsed = try recipe(node, at: path)
            recipes.append(parsed)
        }
        return recipes
    }

    /// Space, tab, line feed, carriage return.
    private static let jsonWhitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]

    // MARK: Finding the Recipe nodes

    private struct FoundNodes {
        var recipes: [(node: [String: Any], path: JSONPath)] = []
        /// The types of the other nodes, for the error when there is no Recipe.
        var otherTypes: [String] = []
    }

    private static func collect(_ value: Any, at path: JSONPath, into found: inout FoundNodes) {
        if let array = value as? [Any] {
            for (index, element) in array.enumerated() {
                collect(element, at: path.index(index), into: &found)
            }
            return
        }
        guard let object = value as? [String: Any] else { return }
        let types = typeNames(object["@type"])
        let looksLikeRecipe = types.isEmpty && (object["recipeIngredient"] != nil || object["recipeInstructions"] != nil)
        if hasType(types, "Recipe") || looksLikeRecipe {
            found.recipes.append((object, path))
            return
        }
        for typeName in types where !found.otherTypes.contains(typeName) {
            found.otherTypes.append(typeName)
        }
        for key in ["@graph", "mainEntity"] {
            if let inner = object[key] { collect(inner, at: path.key(key), into: &found) }
        }
    }

    /// `@type` names without prefixes: "http://schema.org/Recipe" and "schema:Recipe" are
    /// "Recipe".
    static func typeNames(_ value: Any?) -> [String] {
        let names: [String]
        if let name = value as? String {
            names = [name]
        } else if let list = value as? [Any] {
            names = list.compactMap { $0 as? String }
        } else {
            names = []
        }
        return names.compactMap { name in
            name.split(whereSeparator: { $0 == "/" || $0 == ":" }).last.map(String.init)
        }
    }

    /// Whether `types` holds `name`, ignoring case.
    static func hasType(_ types: [String], _ name: String) -> Bool {
        types.contains { $0.lowercased() == name.lowercased() }
    }

    // MARK: Reading one Recipe

    private static func recipe(_ node: [String: Any], at path: JSONPath) throws(SchemaRecipeError) -> SchemaRecipe {
        var recipe = SchemaRecipe(name: "")
        for key in node.keys.sorted() {
            guard let value = node[key] else { continue }
            let keyPath = path.key(key)
            var mapped = true
            switch key {
            case "@context", "@type":
                continue
            case "name":
                recipe.name = textValue(value) ?? ""
                mapped = !recipe.name.isEmpty
            case "description":
                recipe.description = textValue(value)
                mapped = recipe.description != nil
            case "image":
                recipe.imageURLs = imageURLs(value)
                mapped = !recipe.imageURLs.isEmpty
            case "recipeYield", "yield":
                // "yield" (HowTo's name for it) only when there is no recipeYield.
                if key == "yield", node["recipeYield"] != nil {
                    mapped = false
                } else {
                    let recipeYield = servingsAndYieldText(value)
                    recipe.servings = recipeYield.servings
                    recipe.yieldText = recipeYield.text
                    mapped = recipeYield.servings != nil || recipeYield.text != nil
                }
            case "prepTime":
                recipe.prepMinutes = minutes(value)
                mapped = recipe.prepMinutes != nil
            case "cookTime":
                recipe.cookMinutes = minutes(value)
                mapped = recipe.cookMinutes != nil
            case "totalTime":
                recipe.totalMinutes = minutes(value)
                mapped = recipe.totalMinutes != nil
            case "recipeIngredient", "ingredients":
                // The legacy "ingredients" only when there is no recipeIngredient.
                if key == "ingredients", node["recipeIngredient"] != nil {
                    mapped = false
                } else {
                    recipe.ingredients = try ingredientLines(value, at: keyPath)
                    mapped = !recipe.ingredients.isEmpty
                }
            case "recipeInstructions":
                recipe.steps = try steps(value, at: keyPath, section: nil)
                mapped = !recipe.steps.isEmpty
            case "tool":
                recipe.tools = textList(value, splittingCommas: false)
                mapped = !recipe.tools.isEmpty
            case "recipeCategory":
                recipe.categories = textList(value, splittingCommas: true)
                mapped = !recipe.categories.isEmpty
            case "recipeCuisine":
                recipe.cuisines = textList(value, splittingCommas: true)
                mapped = !recipe.cuisines.isEmpty
            case "keywords":
                recipe.keywords = textList(value, splittingCommas: true)
                mapped = !recipe.keywords.isEmpty
            case "suitableForDiet":
                recipe.diets = diets(value)
                mapped = !recipe.diets.isEmpty
            case "nutrition":
                recipe.nutrition = nutrition(value)
                mapped = !recipe.nutrition.isEmpty
            case "author":
                let names = textList(value, splittingCommas: false)
                recipe.authorName = names.isEmpty ? nil : names.joined(separator: ", ")
                mapped = recipe.authorName != nil
            case "url":
                recipe.url = textValue(value)
                mapped = recipe.url != nil
            case "comment":
                recipe.comments = comments(value)
                mapped = !recipe.comments.isEmpty
            default:
                mapped = false
            }
            if !mapped, !isEmpty(value) {
                recipe.unmapped[key] = compactJSON(value)
            }
        }
        return recipe
    }

    /// Ingredient lines: strings, or objects carrying one (Mealie's `originalText`, `display`,
    /// `note`; `text`, `name`).
    private static func ingredientLines(_ value: Any, at path: JSONPath) throws(SchemaRecipeError) -> [String] {
        if value is NSNull { return [] }
        if let line = value as? String {
            return HTMLText.lines(line)
        }
        guard let list = value as? [Any] else {
            throw invalidValue(at: path, expected: "a list of ingredient lines", found: value)
        }
        var lines: [String] = []
        for (index, element) in list.enumerated() {
            if element is NSNull { continue }
            if let line = element as? String {
                let cleaned = HTMLText.plainText(line)
                if !cleaned.isEmpty { lines.append(cleaned) }
                continue
            }
            guard let object = element as? [String: Any], let text = firstText(in: object, keys: ["originalText", "display", "note", "text", "name"])
            else {
                throw invalidValue(at: path.index(index), expected: "an ingredient line (text)", found: element)
            }
            lines.append(text)
        }
        return lines
    }

    /// Steps from a string (one per line), a list, a HowToStep (`text`, else `name`), a
    /// HowToSection or ItemList (`itemListElement`, the section's `name` given to its steps), or
    /// Mealie's untyped steps, whose non-empty `title` starts a section.
    private static func steps(_ value: Any, at path: JSONPath, section: String?) throws(SchemaRecipeError) -> [SchemaStep] {
        if value is NSNull { return [] }
        if let written = value as? String {
            return HTMLText.lines(written).map { SchemaStep(text: $0, section: section) }
        }
        if let list = value as? [Any] {
            var collected: [SchemaStep] = []
            var currentSection = section
            for (index, element) in list.enumerated() {
                if let object = element as? [String: Any], typeNames(object["@type"]).isEmpty, let title = object["title"].flatMap(textValue) {
                    currentSection = title
                }
                let inner = try steps(element, at: path.index(index), section: currentSection)
                collected.append(contentsOf: inner)
            }
            return collected
        }
        guard let object = value as? [String: Any] else {
            throw invalidValue(at: path, expected: "an instruction (text or a HowToStep)", found: value)
        }
        let types = typeNames(object["@type"])
        let isStep = hasType(types, "HowToStep") || hasType(types, "HowToDirection") || hasType(types, "HowToTip")
        let name = object["name"].flatMap(textValue)
        let text = object["text"].flatMap(textValue)
        if let items = object["itemListElement"], !isStep || text == nil {
            // A section names its steps; a step's own directions stay in the enclosing section.
            return try steps(items, at: path.key("itemListElement"), section: isStep ? section : (name ?? section))
        }
        if let stepText = text ?? name {
            return [SchemaStep(text: stepText, section: section)]
        }
        // A step that only holds an image or a URL: nothing to cook from.
        return []
    }

    /// The first text in a value: a string (cleaned), a number's JSON text, the first text of
    /// a list, an object's `@value`, `name` or `text`. Nil when empty.
    static func textValue(_ value: Any) -> String? {
        switch value {
        case let string as String:
            let cleaned = HTMLText.plainText(string)
            return cleaned.isEmpty ? nil : cleaned
        case is NSNumber:
            return compactJSON(value)
        case let list as [Any]:
            for element in list {
                if let text = textValue(element) { return text }
            }
            return nil
        case let object as [String: Any]:
            return firstText(in: object, keys: ["@value", "name", "text"])
        default:
            return nil
        }
    }

    /// The text of the first of `keys` that has one.
    private static func firstText(in object: [String: Any], keys: [String]) -> String? {
        for key in keys {
            if let value = object[key], let text = textValue(value) { return text }
        }
        return nil
    }

    /// Texts from a string (split at commas when asked), a list, or objects' `name`; cleaned,
    /// without empty ones or duplicates.
    private static func textList(_ value: Any, splittingCommas: Bool) -> [String] {
        var texts: [String] = []
        var candidates: [String] = []
        switch value {
        case let string as String:
            let text = HTMLText.plainText(string)
            candidates = splittingCommas ? text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } : [text]
        case let list as [Any]:
            for element in list {
                candidates.append(contentsOf: textList(element, splittingCommas: false))
            }
        case let object as [String: Any]:
            candidates = object["name"].flatMap(textValue).map { [$0] } ?? []
        default:
            candidates = textValue(value).map { [$0] } ?? []
        }
        for candidate in candidates where !candidate.isEmpty && !texts.contains(candidate) {
            texts.append(candidate)
        }
        return texts
    }

    /// Comments from Comment objects (`name`, and `text` or `description`), plain strings, or a
    /// list of them; empty ones dropped. A text without HTML keeps its line breaks as written.
    private static func comments(_ value: Any) -> [SchemaComment] {
        func commentText(_ value: Any?) -> String? {
            guard let string = value as? String else { return value.flatMap(textValue) }
            let text =
                string.contains("<")
                ? HTMLText.lines(string).joined(separator: "\n") : HTMLText.decodingEntities(string).trimmingCharacters(in: .whitespacesAndNewlines)
            return text.isEmpty ? nil : text
        }
        var comments: [SchemaComment] = []
        for element in value as? [Any] ?? [value] {
            if let object = element as? [String: Any] {
                guard let text = commentText(object["text"] ?? object["description"]) else { continue }
                comments.append(SchemaComment(name: object["name"].flatMap(textValue), text: text))
            } else if let text = commentText(element) {
                comments.append(SchemaComment(text: text))
            }
        }
        return comments
    }

    /// The text of each element of `value` (one value or a list): a string's own, or an
    /// object's under the first of `keys` it has; elements without one are left out.
    private static func elementTexts(_ value: Any, objectKeys keys: [String]) -> [String] {
        (value as? [Any] ?? [value]).compactMap { element in
            guard let object = element as? [String: Any] else { return textValue(element) }
            return keys.lazy.compactMap { object[$0] }.first.flatMap(textValue)
        }
    }

    /// Image URLs from a string, an ImageObject (`url`, else `contentUrl`) or a list of them.
    private static func imageURLs(_ value: Any) -> [String] {
        var urls: [String] = []
        for url in elementTexts(value, objectKeys: ["url", "contentUrl"]) where !urls.contains(url) { urls.append(url) }
        return urls
    }

    /// Diet names without the schema.org prefix, from strings or objects' `@id` or `name`.
    private static func diets(_ value: Any) -> [String] {
        var diets: [String] = []
        for written in elementTexts(value, objectKeys: ["@id", "name"]) {
            for part in written.split(separator: ",") {
                let trimmed = part.trimmingCharacters(in: .whitespaces)
                let name = trimmed.split(whereSeparator: { $0 == "/" || $0 == ":" }).last.map(String.init) ?? trimmed
                if !name.isEmpty, !diets.contains(name) { diets.append(name) }
            }
        }
        return diets
    }

    /// NutritionInformation's properties (other than `@type` and the like) as text.
    private static func nutrition(_ value: Any) -> [String: String] {
        guard let object = value as? [String: Any] else { return [:] }
        var nutrition: [String: String] = [:]
        for (key, entry) in object where !key.hasPrefix("@") {
            if let text = textValue(entry) { nutrition[key] = text }
        }
        return nutrition
    }

    /// Servings (the first number, 1–10,000) and the yield text when it says more than that.
    private static func servingsAndYieldText(_ value: Any) -> (servings: Int?, text: String?) {
        var servings: Int?
        var text: String?
        let elements = value as? [Any] ?? [value]
        for element in elements {
            if let number = element as? NSNumber {
                servings = servings ?? servingsCount(number.doubleValue)
                continue
            }
            guard let written = element as? String else { continue }
            let cleaned = HTMLText.plainText(written)
            guard !cleaned.isEmpty else { continue }
            if servings == nil, let first = firstInteger(in: cleaned) {
                servings = servingsCount(Double(first))
            }
            if text == nil, !isPlainServings(cleaned) { text = cleaned }
        }
        return (servings, text)
    }

    private static func servingsCount(_ value: Double) -> Int? {
        let rounded = value.rounded()
        guard rounded.isFinite, rounded >= 1, rounded <= 10_000 else { return nil }
        return Int(rounded)
    }

    /// The first run of ASCII digits, when it fits an Int.
    private static func firstInteger(in text: String) -> Int? {
        let digits = text.drop(while: { !$0.isASCIIDigit }).prefix(while: { $0.isASCIIDigit })
        return Int(digits)
    }

    /// Words that say "this many servings" in a yield.
    private static let servingWords: Set<String> = [
        "serving", "servings", "serves", "serve", "portion", "portions", "people", "persons", "person", "pers", "pax", "makes", "for", "to",
        "about",
    ]

    /// "4", "4 servings", "Serves 4-6": nothing but a number of servings.
    private static func isPlainServings(_ text: String) -> Bool {
        text.lowercased().split(whereSeparator: { !$0.isLetter }).allSatisfy { servingWords.contains(String($0)) }
    }

    /// Minutes from an ISO 8601 or plain-text duration, or a number of minutes.
    private static func minutes(_ value: Any) -> Int? {
        if let number = value as? NSNumber { return ISODuration.wholeMinutes(number.doubleValue * 60) }
        if let text = value as? String { return ISODuration.minutes(text) }
        return nil
    }

    // MARK: JSON helpers

    private static func isEmpty(_ value: Any) -> Bool {
        switch value {
        case is NSNull: true
        case let string as String: string.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        case let list as [Any]: list.isEmpty
        case let object as [String: Any]: object.isEmpty
        default: false
        }
    }

    /// Compact JSON text of a value read by JSONSerialization, keys sorted, slashes unescaped.
    static func compactJSON(_ value: Any) -> String {
        let options: JSONSerialization.WritingOptions = [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: options) else { return String(describing: value) }
        return String(decoding: data, as: UTF8.self)
    }

    private static func invalidValue(at path: JSONPath, expected: String, found value: Any) -> SchemaRecipeError {
        SchemaRecipeError(code: .invalidValue, path: path.description, message: "expected \(expected), found \(kind(of: value))")
    }

    /// "a number", "an object"… for error messages.
    private static func kind(of value: Any) -> String {
        switch value {
        case is String: "text"
        case is NSNumber: "a number or a boolean"
        case is [Any]: "a list"
        case is [String: Any]: "an object"
        case is NSNull: "null"
        default: "an unknown value"
        }
    }
}

/// A position in a JSON document: `$`, `$[2].recipeIngredient[4]`, `$["@graph"][0]`.
struct JSONPath: CustomStringConvertible {
    let description: String

    static let root = JSONPath("$")

    private init(_ description: String) {
        self.description = description
    }

    func key(_ key: String) -> JSONPath {
        let isIdentifier = !key.isEmpty && key.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        return JSONPath(isIdentifier ? "\(description).\(key)" : "\(description)[\"\(key)\"]")
    }

    func index(_ index: Int) -> JSONPath {
        JSONPath("\(description)[\(index)]")
    }
}
