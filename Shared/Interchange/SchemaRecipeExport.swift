public import Foundation

extension SchemaRecipe {
    /// This recipe as a schema.org Recipe JSON-LD object: "@context": "https://schema.org",
    /// durations in ISO 8601 ("PT20M"), instructions as HowToStep objects (in HowToSection
    /// objects for steps with a section), recipeYield as "N servings" (with ``yieldText`` next
    /// to it in a list when there is one), keywords as one comma-separated string, and the
    /// ``unmapped`` keys back as they were read. Keys are sorted and the text indented with two
    /// spaces, so the same recipe always gives the same bytes.
    public func jsonLD() -> Data {
        Data(jsonLDValue().text().utf8)
    }

    /// A JSON array of ``jsonLD()`` objects, which ``SchemaRecipeDocument/recipes(from:)`` reads
    /// back.
    public static func jsonLD(_ recipes: [SchemaRecipe]) -> Data {
        Data(JSONLDValue.array(recipes.map { $0.jsonLDValue() }).text().utf8)
    }

    private func jsonLDValue() -> JSONLDValue {
        var members: [String: JSONLDValue] = [
            "@context": .string("https://schema.org"),
            "@type": .string("Recipe"),
        ]
        if !name.isEmpty { members["name"] = .string(name) }
        if let description { members["description"] = .string(description) }
        if !imageURLs.isEmpty { members["image"] = .array(imageURLs.map(JSONLDValue.string)) }
        let servingsText = servings.map { $0 == 1 ? "1 serving" : "\($0) servings" }
        switch (servingsText, yieldText) {
        case (let servingsText?, let yieldText?): members["recipeYield"] = .array([.string(servingsText), .string(yieldText)])
        case (let servingsText?, nil): members["recipeYield"] = .string(servingsText)
        case (nil, let yieldText?): members["recipeYield"] = .string(yieldText)
        case (nil, nil): break
        }
        for (key, minutes) in [("prepTime", prepMinutes), ("cookTime", cookMinutes), ("totalTime", totalMinutes)] {
            if let minutes, let duration = ISODuration.string(minutes: minutes) { members[key] = .string(duration) }
        }
        if !ingredients.isEmpty { members["recipeIngredient"] = .array(ingredients.map(JSONLDValue.string)) }
        if !steps.isEmpty { members["recipeInstructions"] = .array(instructions()) }
        if !tools.isEmpty {
            members["tool"] = .array(tools.map { JSONLDValue.object(["@type": .string("HowToTool"), "name": .string($0)]) })
        }
        if !categories.isEmpty { members["recipeCategory"] = .array(categories.map(JSONLDValue.string)) }
        if !cuisines.isEmpty { members["recipeCuisine"] = .array(cuisines.map(JSONLDValue.string)) }
        if !keywords.isEmpty { members["keywords"] = .string(keywords.joined(separator: ", ")) }
        if !diets.isEmpty { members["suitableForDiet"] = .array(diets.map { JSONLDValue.string("https://schema.org/\($0)") }) }
        if !nutrition.isEmpty {
            var facts: [String: JSONLDValue] = ["@type": .string("NutritionInformation")]
            for (key, value) in nutrition {
                facts[key] = .string(value)
            }
            members["nutrition"] = .object(facts)
        }
        if let authorName { members["author"] = .object(["@type": .string("Person"), "name": .string(authorName)]) }
        if let url { members["url"] = .string(url) }
        if !comments.isEmpty {
            members["comment"] = .array(
                comments.map { comment in
                    var object: [String: JSONLDValue] = ["@type": .string("Comment"), "text": .string(comment.text)]
                    if let name = comment.name { object["name"] = .string(name) }
                    return .object(object)
                })
        }
        // What was read but not mapped goes back as it was, unless a mapped field took its key.
        for (key, json) in unmapped where members[key] == nil {
            members[key] = Self.isJSON(json) ? .raw(json) : .string(json)
        }
        return .object(members)
    }

    /// Steps as HowToStep objects; consecutive steps of one section inside a HowToSection.
    private func instructions() -> [JSONLDValue] {
        func howToStep(_ step: SchemaStep) -> JSONLDValue {
            .object(["@type": .string("HowToStep"), "text": .string(step.text)])
        }
        var instructions: [JSONLDValue] = []
        var index = 0
        while index < steps.count {
            guard let section = steps[index].section else {
                instructions.append(howToStep(steps[index]))
                index += 1
                continue
            }
            var sectionSteps: [JSONLDValue] = []
            while index < steps.count, steps[index].section == section {
                sectionSteps.append(howToStep(steps[index]))
                index += 1
            }
            instructions.append(.object(["@type": .string("HowToSection"), "name": .string(section), "itemListElement": .array(sectionSteps)]))
        }
        return instructions
    }

    /// Whether `text` is one JSON value (so it can be written as is).
    private static func isJSON(_ text: String) -> Bool {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) != nil
    }
}

/// JSON as the exporter writes it: sorted keys, two-space indentation, strings escaped only
/// where JSON requires (quotes, backslashes, control characters).
enum JSONLDValue {
    case string(String)
    /// Text that is already one valid JSON value, written as is.
    case raw(String)
    case array([JSONLDValue])
    case object([String: JSONLDValue])

    func text() -> String {
        var output = ""
        write(to: &output, indent: 0)
        return output
    }

    private func write(to output: inout String, indent: Int) {
        switch self {
        case .string(let text):
            output += Self.quoted(text)
        case .raw(let json):
            output += json
        case .array(let elements):
            guard !elements.isEmpty else {
                output += "[]"
                return
            }
            output += "[\n"
            for (index, element) in elements.enumerated() {
                output += String(repeating: " ", count: indent + 2)
                element.write(to: &output, indent: indent + 2)
                output += index + 1 < elements.count ? ",\n" : "\n"
            }
            output += String(repeating: " ", count: indent) + "]"
        case .object(let members):
            guard !members.isEmpty else {
                output += "{}"
                return
            }
            output += "{\n"
            let sorted = members.sorted { $0.key < $1.key }
            for (index, member) in sorted.enumerated() {
                output += String(repeating: " ", count: indent + 2) + Self.quoted(member.key) + ": "
                member.value.write(to: &output, indent: indent + 2)
                output += index + 1 < sorted.count ? ",\n" : "\n"
            }
            output += String(repeating: " ", count: indent) + "}"
        }
    }

    private static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
