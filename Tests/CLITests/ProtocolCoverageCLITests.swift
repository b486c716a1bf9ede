import ArgumentParser
import CatalogService
import Foundation
import SousCLI
import SousInterchange
import SousRuntime
import SousSchema
import SousServiceTesting
import SousTestSupport
import SousWire
import Testing

/// `sous` covers the whole protocol: every method a person may call has a command, and the
/// commands added for the last nine work against the real services.
@Suite(.closesItsSockets)
struct ProtocolCoverageCLITests {
    /// Every method the five services serve, except those only services call, is in the CLI's
    /// index, and the command the index names exists.
    @Test func everyUserAndOperatorMethodHasACommand() throws {
        let stack = try StackFixture.make()
        var served: Set<String> = []
        for host in stack.hosts {
            for (name, access) in host.server.registeredAccess where access != .service { served.insert(name) }
        }
        #expect(served.count > 80)
        for name in served.sorted() {
            guard let path = CommandIndex.commands[name] else {
                Issue.record("\(name) has no `sous` command")
                continue
            }
            #expect(command(at: path.split(separator: " ").map(String.init)) != nil, "`sous \(path)` (for \(name)) does not exist")
        }
        #expect(Set(CommandIndex.commands.keys).subtracting(served).isEmpty, "the index names no method that is not served")
    }

    /// The subcommand at `path` under `sous`, by command names.
    func command(at path: [String]) -> (any ParsableCommand.Type)? {
        var current: any ParsableCommand.Type = SousCommand.self
        // Flags after the names (`plan clear --fill`) select a form of the last command.
        for name in path where !name.hasPrefix("-") {
            guard let next = current.configuration.subcommands.first(where: { $0._commandName == name }) else { return nil }
            current = next
        }
        return current
    }

    @Test func theNewCommandsReachTheirMethods() async throws {
        let clock = WallClock.manual(at: ISO8601DateFormatter().date(from: "2026-03-10T10:00:00Z")!)
        let stack = try StackFixture.make(clock: clock)
        try await withRunningServices(stack.hosts) { _ in
            var endpoints: [String] = []
            for host in stack.hosts { endpoints += ["--\(host.name)", host.boundEndpoints.requests] }
            let ada = endpoints + ["--user", "ada"]

            let ingredient = await sous(["ingredients", "show", "eggplant"] + ada)
            #expect(
                ingredient.code == 0 && ingredient.out.contains("Aubergine (eggplant)  (eggplant)")
                    && ingredient.out.contains("Also called: aubergine, brinjal"), "\(ingredient.out)\(ingredient.err)")
            #expect(await sous(["ingredients", "show", "unobtainium"] + ada).code == 3)

            let changes = await sous(["catalog", "changes"] + ada)
            #expect(changes.code == 0 && changes.out.contains("recipes changed") && changes.out.contains("Next time: sous catalog changes --since"))
            let version = try JSONDecoder().decode(CatalogChanges.self, from: Data(await sous(["catalog", "changes", "--json"] + ada).out.utf8))
                .version
            #expect(await sous(["catalog", "changes", "--since", "\(version)"] + ada).out.contains("0 recipes changed."))

            #expect(await sous(["plan", "put", "today", "dinner", "red-lentil-dal"] + ada).code == 0)
            #expect(await sous(["plan", "multiplier", "red-lentil-dal"] + ada).out == "red-lentil-dal: buy ×1 (planned in 1 slot this week).\n")
            #expect(await sous(["plan", "multiplier", "no-such-recipe"] + ada).code == 3)
            #expect(
                await sous(["plan", "household", "red-lentil-dal"] + ada).out == "Cooking for 2 people; red-lentil-dal fills 1 slot this week.\n")
            #expect(await sous(["plan", "household"] + ada).out == "Cooking for 2 people; this week: red-lentil-dal 1 slot.\n")

            // Suggestions for what is left of the day, and a week filled and undone.
            let suggested = await sous(["recipes", "suggest", "--dish-type", "main course", "--limit", "3"] + ada)
            #expect(
                suggested.code == 0 && suggested.out.contains("Left for 2026-03-10: 2000 kcal") && suggested.out.contains("  - €"),
                "\(suggested.out)\(suggested.err)")
            #expect(await sous(["recipes", "suggest", "--meals", "9"] + ada).code == 4)
            let filled = await sous(["plan", "fill", "--seed", "5", "--budget", "80", "--kcal", "400-2400"] + ada)
            #expect(
                filled.code == 0 && filled.out.contains("(seed 5)") && filled.out.contains("Undo: sous plan clear --fill 1")
                    && filled.out.contains("drawn with seed 5"), "\(filled.out)\(filled.err)")
            #expect(await sous(["plan", "fill", "--kcal", "lots"] + ada).code == 64)
            let undone = await sous(["plan", "clear", "--fill"] + ada)
            #expect(undone.code == 0 && undone.out.hasPrefix("Undid fill 1: cleared "), "\(undone.out)\(undone.err)")
            #expect(await sous(["plan", "clear", "--fill", "1"] + ada).code == 3, "already undone")
            #expect(await sous(["plan", "show"] + ada).out.contains("Red Lentil"), "the slot put by hand stays")

            let logged = await sous(["diary", "log-recipe", "crispy-homemade-fries", "--meal", "dinner"] + ada)
            #expect(logged.code == 0 && logged.out.contains("Crispy Homemade Fries") && logged.out.contains("503 kcal"), "\(logged.out)\(logged.err)")
            let status = await sous(["diary", "status"] + ada)
            #expect(status.out == "2026-03-10: logged: dinner; 503 of 2000 kcal.\n", "\(status.out)")

            let product = await sous(
                ["products", "add", "4006381333931", "--name", "Oat drink", "--kcal", "46", "--carbs", "6.7", "--protein", "1", "--fat", "1.5"] + ada)
            #expect(product.code == 0 && product.out.contains("Added 4006381333931 Oat drink"), "\(product.err)")
            #expect(await sous(["barcode", "4006381333931"] + ada).out.contains("Oat drink"))

            // Operators only: a user is refused, an operator is not.
            #expect(await sous(["operator", "reload-seed"] + ada).code == 8)
            let reloaded = await sous(["operator", "reload-seed"] + endpoints + ["--user", "operator"])
            #expect(reloaded.code == 0 && reloaded.out.contains("96 recipes"), "\(reloaded.err)")
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("ingredients-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: file) }
            var eggplant = try #require(
                try await stack.client(Catalog.self, session: TestSessions.token(for: "ada")).call(
                    CatalogAPI.getIngredients, IngredientIDs(ids: ["eggplant"])
                ).ingredients.first)
            eggplant.synonyms.append("melanzana")
            try JSONEncoder().encode([eggplant]).write(to: file)
            let imported = await sous(["operator", "import-ingredients", file.path] + endpoints + ["--user", "operator"])
            #expect(imported.code == 0 && imported.out.contains("Imported 1 ingredients"), "\(imported.err)")
            let searched = await sous(["recipes", "search", "melanzana", "--no-filters"] + ada)
            #expect(searched.code == 0 && !searched.out.contains("No recipes match"), "recipes with eggplant, by its new name")
            #expect(await sous(["ingredients", "search", "melanzana"] + ada).out.contains("eggplant"))
            try Data("[{\"id\": 1}]".utf8).write(to: file)
            let broken = await sous(["operator", "import-ingredients", file.path] + endpoints + ["--user", "operator"])
            #expect(broken.code == 4 && broken.err.contains("is not a list of ingredients"), "\(broken.err)")

            let clockShown = await sous(["operator", "clock", "show", "--service", "tracker"] + ada)
            #expect(clockShown.out.contains("2026-03-10T10:00:00Z  (manual)"), "\(clockShown.out)\(clockShown.err)")
            #expect(await sous(["operator", "clock", "set", "2026-03-11T08:00:00Z"] + ada).code == 8)
            let moved = await sous(["operator", "clock", "set", "2026-03-11T08:00:00Z"] + endpoints + ["--user", "operator"])
            #expect(moved.code == 0 && moved.out.contains("catalog, groceries, notifier, planner, tracker"), "\(moved.err)")
            #expect(await sous(["diary", "status"] + ada).out.hasPrefix("2026-03-11: nothing logged"))
        }
    }

    @Test func filterSwitchesAndGlutenCorrectionsFromTheCommandLine() async throws {
        let clock = WallClock.manual(at: ISO8601DateFormatter().date(from: "2026-03-10T10:00:00Z")!)
        let stack = try StackFixture.make(clock: clock)
        try await withRunningServices(stack.hosts) { _ in
            var ada = ["--user", "ada"]
            for host in stack.hosts { ada += ["--\(host.name)", host.boundEndpoints.requests] }

            #expect(await sous(["profile", "set", "--allergen", "gluten"] + ada).code == 0)
            let filtered = await sous(["recipes", "search", "--page-size", "100", "--json"] + ada)
            let withoutGluten = try JSONDecoder().decode(RecipePage.self, from: Data(filtered.out.utf8))
            #expect(withoutGluten.recipes.allSatisfy { !$0.allergens.contains(.gluten) })
            let ignoring = try JSONDecoder().decode(
                RecipePage.self,
                from: Data(await sous(["recipes", "search", "--ignore", "allergens", "--page-size", "100", "--json"] + ada).out.utf8))
            #expect(ignoring.recipes.contains { $0.allergens.contains(.gluten) })
            // The catalog keeps the profile it filtered by: the change reaches it as the planner's event.
            let applied = stack.catalog.profiles.applied.subscribe()
            let off = await sous(["profile", "set", "--filter-allergens", "off"] + ada)
            _ = try await firstElement(of: applied, within: .seconds(30)) { $0 == "ada" }
            #expect(off.code == 0 && off.out.contains("allergens off") && off.out.contains("Allergens  gluten"), "\(off.out)")
            let unfiltered = try JSONDecoder().decode(
                RecipePage.self, from: Data(await sous(["recipes", "search", "--page-size", "100", "--json"] + ada).out.utf8))
            #expect(unfiltered.recipes.count == ignoring.recipes.count)
            #expect(await sous(["recipes", "search", "--no-filters", "--ignore", "diets"] + ada).code == 64)

            // The profile's units decide how quantities show; a flag overrides them for one command.
            let metric = await sous(["recipes", "show", "tomato-lentil-soup"] + ada)
            #expect(metric.out.contains(" g ") && !metric.out.contains(" oz "), "\(metric.out)")
            let us = await sous(["profile", "set", "--units", "us"] + ada)
            #expect(us.code == 0 && us.out.contains("Units      US (oz, lb, cups)"), "\(us.out)\(us.err)")
            let inUS = await sous(["recipes", "show", "tomato-lentil-soup"] + ada)
            #expect(inUS.out.contains("7.1  oz     Red lentils") && inUS.out.contains(" 1  qt     Vegetable stock"), "\(inUS.out)")
            #expect(await sous(["recipes", "show", "tomato-lentil-soup", "--units", "metric"] + ada).out == metric.out)
            #expect(await sous(["groceries", "add-recipe", "tomato-lentil-soup"] + ada).code == 0)
            let list = await sous(["groceries", "show"] + ada)
            #expect(list.out.contains(" oz") && !list.out.contains(" g  "), "\(list.out)")
            #expect(await sous(["profile", "set", "--units", "imperial"] + ada).code == 64)
            #expect(await sous(["profile", "set", "--units", "metric"] + ada).code == 0)

            let byName = await sous(["recipes", "search", "--ingredient", "aubergine", "--no-filters"] + ada)
            #expect(byName.code == 0 && !byName.out.contains("No recipes match"), "\(byName.err)")
            let fried = await sous(["recipes", "show", "crispy-homemade-fries"] + ada)
            #expect(fried.out.contains("Sunflower oil (for frying; 10 % eaten)"), "\(fried.out)")
            // The same recipe as schema.org JSON-LD, read back by the interchange parser.
            let exported = await sous(["recipes", "export", "crispy-homemade-fries"] + ada)
            let recipes = try SchemaRecipeDocument.recipes(from: Data(exported.out.utf8))
            #expect(
                recipes.map(\.name) == ["Crispy Homemade Fries"] && recipes.first?.ingredients.contains("1.5 l sunflower oil, for frying") == true,
                "\(exported.out)")
            let neither = await sous(["recipes", "export"] + ada)
            #expect(neither.code == 64 && neither.err.contains("--mine"))
            #expect(await sous(["recipes", "export", "no-such-recipe"] + ada).code == 3)
            // Exported, then imported back as ada's own recipe: the same lines.
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("fries-\(UUID().uuidString).json").path
            defer { try? FileManager.default.removeItem(atPath: file) }
            #expect(await sous(["recipes", "export", "crispy-homemade-fries", "--output", file] + ada).code == 0)
            let imported = await sous(["recipes", "import", file] + ada)
            #expect(
                imported.code == 0 && imported.out.hasPrefix("Imported r-") && imported.out.contains("Crispy Homemade Fries, 4 ingredient lines"),
                "\(imported.out)\(imported.err)")
            try #"{"@type": "Recipe", "name": "Fruit", "recipeIngredient": ["1 dragonfruit"]}"#.write(toFile: file, atomically: true, encoding: .utf8)
            let unmatched = await sous(["recipes", "import", file] + ada)
            #expect(unmatched.code == 4 && unmatched.out.contains("Fruit: \"1 dragonfruit\": no catalog ingredient"), "\(unmatched.out)")
            // On a terminal the import asks what each line means, and runs again with the answers.
            let asked = await sous(["recipes", "import", file] + ada, console: Console(capturing: true, input: ["dragon fruit", "1 banana"]))
            #expect(
                asked.code == 0 && asked.out.contains("1 line needs a meaning")
                    && asked.out.contains("no catalog ingredient is called \"dragon fruit\"")
                    && asked.out.contains("Imported r-") && asked.out.contains("Your mappings are remembered"), "\(asked.out)\(asked.err)")
            // The answer is remembered: the same line is not asked again, until it is forgotten.
            let again = await sous(["recipes", "import", file, "--no-prompt"] + ada)
            #expect(again.code == 0 && again.out.contains(#""1 dragonfruit" is Banana, as you or your household said before"#), "\(again.out)")
            let remembered = await sous(["recipes", "mappings"] + ada)
            #expect(remembered.code == 0 && remembered.out.contains("1 dragonfruit") && remembered.out.contains("1 banana"), "\(remembered.out)")
            #expect(await sous(["recipes", "mappings", "--forget", "1 Dragonfruit"] + ada).code == 0)
            #expect(await sous(["recipes", "mappings", "--forget", "1 dragonfruit"] + ada).code == 3)
            let stopped = await sous(["recipes", "import", file] + ada, console: Console(capturing: true, input: [""]))
            #expect(stopped.code == 4 && stopped.out.hasSuffix("Nothing imported.\n"), "\(stopped.out)")
            #expect(await sous(["recipes", "import", file, "--no-prompt"] + ada, console: Console(capturing: true, input: ["1 banana"])).code == 4)
            #expect(await sous(["recipes", "import", file, "--map", "1 dragonfruit=1 banana"] + ada).code == 0)
            #expect(await sous(["recipes", "import", file, "--map", "nonsense"] + ada).code == 64)

            #expect(await sous(["gluten", "predict", "no", "--date", "2026-03-09"] + ada).code == 0)
            #expect(await sous(["gluten", "result", "positive", "--date", "2026-03-09"] + ada).code == 0)
            #expect(await sous(["gluten", "result", "negative", "--date", "2026-03-09"] + ada).code == 7)
            let corrected = await sous(["gluten", "result", "negative", "--date", "2026-03-09", "--replace"] + ada)
            #expect(corrected.out.contains("Recorded negative for 2026-03-09. Your prediction was right."), "\(corrected.out)\(corrected.err)")
            let withdrawn = await sous(["gluten", "withdraw", "--date", "2026-03-09"] + ada)
            #expect(withdrawn.out == "Withdrew the result of 2026-03-09. Its prediction (no gluten) stays.\n")
            let future = await sous(["gluten", "result", "negative", "--date", "2099-01-01"] + ada)
            #expect(future.code == 4 && future.err.contains("field: date"))
        }
    }
}

@Suite(.closesItsSockets)
struct DescribeCLITests {
    @Test func describeListsAServicesMethodsAndTheFieldsOfAType() async throws {
        let stack = try StackFixture.make()
        try await withRunningServices(stack.hosts) { _ in
            let catalog = stack.catalog.host.boundEndpoints.requests
            let described = await sous(["describe", "catalog", "--type", "RecipeIngredient", "--catalog", catalog])
            #expect(described.code == 0, "\(described.err)")
            #expect(described.out.contains("recipes.create") && described.out.contains("RecipeDraft"))
            #expect(
                described.out.contains(
                    "- **`RecipeIngredient`** `{ingredient: string, quantity: float, unit: MeasureUnit, use?: IngredientUse, eatenShare?: float}`"))
            #expect(await sous(["describe", "catalog", "--type", "Nothing", "--catalog", catalog]).code == 64)
        }
    }
}
