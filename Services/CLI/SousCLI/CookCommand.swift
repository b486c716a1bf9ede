import ArgumentParser
import Foundation
import SousClient
import SousSchema
import SousUnits
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
    @Option(help: "Show quantities in metric or us units (default: your profile's).") var units: UnitSystem?
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let token = try global.token
        // One read of the profile gives both defaults: the household to scale for, the units to show.
        var profile: CookingProfile?
        if self.people == nil || (self.units == nil && !global.json) { profile = await readProfile() }
        let units = GlobalOptions.displayUnits(self.units, profile: profile)
        // US amounts need the ingredients' densities: a little of a spice is measured in spoons.
        let lookup = RecipeLookup(
            id: recipe, people: self.people ?? profile?.people, withIngredients: units == .us && !global.json ? true : nil)
        let detail = try await global.client(Catalog.self).call(CatalogAPI.getRecipe, lookup, session: token)
        guard !detail.steps.isEmpty else { throw ValidationError("\(detail.name) has no steps to follow") }
        let steps = detail.steps.indices.map { CookingStep(recipe: detail, index: $0) }
        let gramsPerMl = densities(of: detail.ingredientFacts ?? [])
        if let step {
            guard steps.indices.contains(step - 1) else {
                throw ServiceError.badRequest("\(detail.name) has steps 1 to \(steps.count), not \(step)", field: "step")
            }
            return global.json ? try printJSON(steps[step - 1]) : Console.current.out(steps[step - 1].rendered(in: units, densities: gramsPerMl))
        }
        if global.json { return try printJSON(steps) }
        if isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 {
            interactive(detail, steps.map { $0.rendered(in: units, densities: gramsPerMl) })
        } else {
            Console.current.out(detail.name + "\n")
            Console.current.out(steps.map { $0.rendered(in: units, densities: gramsPerMl) }.joined(separator: "\n\n"))
        }
    }

    /// The profile: the household it cooks for and the units it reads. Nil when the planner
    /// cannot say, with a note on stderr when the household was wanted (the recipe's own
    /// servings are cooked instead); the units are then metric.
    private func readProfile() async -> CookingProfile? {
        do {
            return try await global.profile()
        } catch {
            if people == nil {
                Console.current.err(
                    "sous: cooking for the recipe's servings: your profile could not be read (\((error as? ServiceError)?.message ?? "\(error)"))")
            }
            return nil
        }
    }

    /// Steps one at a time, `steps` as they are printed.
    private func interactive(_ detail: RecipeDetail, _ steps: [String]) {
        var index = 0
        Console.current.out("\(detail.name) — \(steps.count) steps. Enter/n next · p previous · q quit\n")
        while true {
            Console.current.out(steps[index])
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
        var unit: MeasureUnit
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
                Item(ingredient: id, name: $0.name, quantity: $0.quantity, unit: $0.unit)
            }
        }
    }

    /// The step as printed, quantities in `units` (as `recipes show` writes them), with the
    /// ingredients' grams per ml by id (`densities`).
    func rendered(in units: UnitSystem, densities: [String: Double]) -> String {
        var lines = ["Step \(number) · \(type.rawValue)\(minutes.map { " · \($0) min" } ?? "")", description]
        if !ingredients.isEmpty {
            let items = ingredients.map { item in
                "\(item.name) \(recipeQuantity(item.quantity, item.unit, units: units, gramsPerMl: densities[item.ingredient]))"
            }
            lines.append("Ingredients: " + items.joined(separator: ", "))
        }
        lines.append("\(number) / \(of)")
        return lines.joined(separator: "\n")
    }
}
