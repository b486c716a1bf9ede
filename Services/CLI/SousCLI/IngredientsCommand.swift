import ArgumentParser
import SousClient
import SousSchema
import SousWire

struct IngredientsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingredients",
        abstract: "Look up ingredients in the catalog.",
        subcommands: [Search.self, Show.self]
    )

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show ingredients by id: units, price, nutrition per 100 g, allergens and other names.")

        @Argument(help: "Ingredient ids, e.g. eggplant (see `sous ingredients search`).") var ids: [String]
        @OptionGroup var global: GlobalOptions

        func validate() throws {
            guard !ids.isEmpty else { throw ValidationError("name at least one ingredient id") }
        }

        func run() async throws {
            let list = try await global.client(Catalog.self).call(CatalogAPI.getIngredients, IngredientIDs(ids: ids), session: global.token)
            if global.json { return try printJSON(list) }
            Console.current.out(list.ingredients.map(renderIngredient).joined(separator: "\n\n"))
        }
    }

    struct Search: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Find ingredients by name (prefix or substring; case and accents ignored).")

        @Argument(help: "Part of a name, e.g. \"tom\" or \"creme\".") var text: String
        @Option(help: "Most results to show (1–50).") var limit = 10
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let list = try await global.client(Catalog.self).call(
                CatalogAPI.searchIngredients, .init(query: text, limit: limit), session: global.token)
            if global.json { return try printJSON(list) }
            guard !list.ingredients.isEmpty else { return Console.current.out("No ingredient matches \"\(text)\".") }
            var table = Table([("ID", .left), ("NAME", .left), ("CATEGORY", .left), ("KCAL/100G", .right), ("PRICE", .right), ("ALLERGENS", .left)])
            for ingredient in list.ingredients {
                table.add([
                    ingredient.id, ingredient.name.truncated(40), ingredient.category.rawValue, number(ingredient.nutrition.kcal),
                    money(ingredient.price),
                    ingredient.allergens.map(\.rawValue).joined(separator: ", "),
                ])
            }
            Console.current.out(table.render())
        }
    }
}

func renderIngredient(_ ingredient: Ingredient) -> String {
    func list(_ values: [String]) -> String { values.isEmpty ? "none" : values.joined(separator: ", ") }
    let n = ingredient.nutrition
    var measures = ["usually in \(ingredient.unit.rawValue)"]
    if let perMl = ingredient.gramsPerMl { measures.append("\(number(perMl, decimals: 2)) g per ml") }
    if let perPiece = ingredient.gramsPerPiece { measures.append("\(number(perPiece)) g per piece") }
    var lines = [
        "\(ingredient.name)  (\(ingredient.id))",
        "Also called: \(list(ingredient.synonyms))",
        "Measured: \(measures.joined(separator: " · "))",
        "Price: \(ingredient.price == nil ? "no price" : "\(money(ingredient.price)) (illustrative)") · \(ingredient.category.rawValue)"
            + (ingredient.factsDerived ? " (derived from the USDA food group)" : "") + (ingredient.bought ? "" : " · not bought (from the tap)"),
        "Per 100 g: \(number(n.kcal, decimals: 0)) kcal · carbs \(number(n.carbohydrates)) g · protein \(number(n.protein)) g · fat \(number(n.fat)) g"
            + " · fibre \(number(n.fibre)) g · sugar \(number(n.sugar)) g · salt \(number(n.salt, decimals: 2)) g",
        "Allergens: \(list(ingredient.allergens.map(\.rawValue))) · contains: \(list(ingredient.contains.map(\.rawValue)))",
    ]
    if !ingredient.portions.isEmpty {
        lines.append(
            "Portions: "
                + ingredient.portions.map { "\(number($0.amount)) \($0.name) = \(number($0.grams)) g" }.joined(separator: " · "))
    }
    if let ndb = ingredient.usdaNdb { lines.append("USDA SR28 #\(ndb)") }
    return lines.joined(separator: "\n")
}
