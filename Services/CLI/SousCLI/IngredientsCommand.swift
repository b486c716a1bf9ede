import ArgumentParser
import SousRuntime
import SousSchema

struct IngredientsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingredients",
        abstract: "Look up ingredients in the catalog.",
        subcommands: [Search.self]
    )

    struct Search: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Find ingredients by name (prefix or substring; case and accents ignored).")

        @Argument(help: "Part of a name, e.g. \"tom\" or \"creme\".") var text: String
        @Option(help: "Most results to show (1–50).") var limit = 10
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let list = try await global.client(.catalog).call(CatalogAPI.searchIngredients, .init(query: text, limit: limit), session: global.token)
            if global.json { return try printJSON(list) }
            guard !list.ingredients.isEmpty else { return Console.current.out("No ingredient matches \"\(text)\".") }
            var table = Table([("ID", .left), ("NAME", .left), ("CATEGORY", .left), ("KCAL/100G", .right), ("PRICE", .right), ("ALLERGENS", .left)])
            for ingredient in list.ingredients {
                table.add([
                    ingredient.id, ingredient.name.truncated(40), ingredient.category.rawValue, number(ingredient.nutrition.kcal),
                    "\(money(ingredient.price.amount))/\(ingredient.price.per.rawValue)", ingredient.allergens.map(\.rawValue).joined(separator: ", "),
                ])
            }
            Console.current.out(table.render())
        }
    }
}
