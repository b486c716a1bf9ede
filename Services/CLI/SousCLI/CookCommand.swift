import ArgumentParser
import Foundation
import SousClient
import SousSchema
import SousWire

struct CookCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cook",
        abstract: "Cook a recipe one step at a time.",
        discussion: """
            In a terminal: Enter or n for the next step, p for the previous one, q to stop. Not in a terminal \
            (or with --json): --step N prints one step, without it every step is printed in order.
            """
    )

    @Argument(help: "Recipe id.") var recipe: String
    @Option(help: "Print only this step (1 is the first).") var step: Int?
    @Option(help: "Scale ingredient quantities for this many people (default: your profile's household, as the groceries were bought).") var people:
        Int?
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let token = try global.token
        var people = self.people
        if people == nil { people = await household(token: token) }
        let detail = try await global.client(Catalog.self).call(CatalogAPI.getRecipe, RecipeLookup(id: recipe, people: people), session: token)
        guard !detail.steps.isEmpty else { throw ValidationError("\(detail.name) has no steps to follow") }
        let steps = detail.steps.indices.map { CookingStep(recipe: detail, index: $0) }
        if let step {
            guard steps.indices.contains(step - 1) else {
                throw ServiceError.badRequest("\(detail.name) has steps 1 to \(steps.count), not \(step)", field: "step")
            }
            return global.json ? try printJSON(steps[step - 1]) : Console.current.out(steps[step - 1].rendered)
        }
        if global.json { return try printJSON(steps) }
        if isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 {
            interactive(detail, steps)
        } else {
            Console.current.out(detail.name + "\n")
            Console.current.out(steps.map(\.rendered).joined(separator: "\n\n"))
        }
    }

    /// The household the profile cooks for; nil (the recipe's own servings) when the planner
    /// cannot say, with a note on stderr.
    private func household(token: String) async -> Int? {
        do {
            return try await global.client(Planner.self).call(PlannerAPI.getProfile, Empty(), session: token).people
        } catch {
            Console.current.err("sous: cooking for the recipe's servings: your profile could not be read (\(error.message))")
            return nil
        }
    }

    private func interactive(_ detail: RecipeDetail, _ steps: [CookingStep]) {
        var index = 0
        Console.current.out("\(detail.name) — \(steps.count) steps. Enter/n next · p previous · q quit\n")
        while true {
            Console.current.out(steps[index].rendered)
            Console.current.out("\n[n/p/q] ", terminator: "")
            guard let key = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() else { return }
            switch key {
            case "", "n":
                if index == steps.count - 1 { return Console.current.out("\nDone. Enjoy your meal!") }
                index += 1
            case "p": index = max(index - 1, 0)
            case "q": return
            default: Console.current.out("Keys: Enter or n next, p previous, q quit")
            }
            Console.current.out("")
        }
    }
}

/// One step as `sous cook` shows it (and prints with --json).
struct CookingStep: Encodable {
    struct Item: Encodable {
        var ingredient: String
        var name: String
        var quantity: Double
        var unit: String
    }

    var recipe: String
    var number: Int
    var of: Int
    var type: StepType
    var description: String
    var minutes: Int?
    var ingredients: [Item]

    init(recipe: RecipeDetail, index: Int) {
        let step = recipe.steps[index]
        self.recipe = recipe.id
        number = index + 1
        of = recipe.steps.count
        type = step.type
        description = step.description
        minutes = step.minutes
        ingredients = step.ingredients.compactMap { id in
            recipe.ingredients.first { $0.ingredient == id }.map {
                Item(ingredient: id, name: $0.name, quantity: $0.quantity, unit: $0.unit.rawValue)
            }
        }
    }

    var rendered: String {
        var lines = ["Step \(number) · \(type.rawValue)\(minutes.map { " · \($0) min" } ?? "")", description]
        if !ingredients.isEmpty {
            lines.append("Ingredients: " + ingredients.map { "\($0.name) \(number(for: $0.quantity)) \($0.unit)" }.joined(separator: ", "))
        }
        lines.append("\(number) / \(of)")
        return lines.joined(separator: "\n")
    }

    private func number(for quantity: Double) -> String {
        SousCLI.number(quantity, decimals: quantity < 10 ? 2 : 0)
    }
}
