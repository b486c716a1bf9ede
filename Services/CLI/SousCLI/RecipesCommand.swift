public import ArgumentParser
import Foundation
import SousClient
import SousInterchange
public import SousSchema
import SousUnits
import SousWire

extension Diet: ExpressibleByArgument {}
extension Allergen: ExpressibleByArgument {}
extension Appliance: ExpressibleByArgument {}
extension DishType: ExpressibleByArgument {}
extension UnitSystem: ExpressibleByArgument {}

struct RecipesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recipes",
        abstract: "Find, read, write, favorite and share recipes.",
        subcommands: [
            Search.self, Suggest.self, Show.self, Photo.self, Create.self, Edit.self, Delete.self, Mine.self, Favorite.self, Unfavorite.self,
            Favorites.self,
            Share.self, Community.self, Save.self, Export.self, Import.self, Mappings.self,
        ]
    )

    // MARK: search

    struct Search: AsyncParsableCommand, FlagsForFields {
        static let configuration = CommandConfiguration(
            abstract: "Search recipes; by default filtered by your saved cooking profile.",
            discussion: """
                Without filter flags the search uses your cooking profile from the planner (diets, allergens, \
                dislikes, equipment, patience, and its own filter switches; `sous profile set --filter-allergens off` \
                and the like switch a layer off for good). --ignore LAYER switches a layer off for one search. \
                In a household, everyone's diets, allergens and dislikes apply (the output says whose); --just-me \
                searches by your own alone. Passing any of --diet, --allergen, --dislike, --equipment or --patience \
                filters by exactly those instead; --no-filters shows everything. --uses-pantry lists the recipes that \
                use what your pantry holds, the most of what goes off soonest first.
                """
        )

        @Argument(help: "Words to look for in names, descriptions and ingredients (\"aubergine\" finds eggplant).") var text: [String] = []
        @Option(name: .customLong("ingredient"), help: "Only recipes using this ingredient: an id, name or synonym (repeatable).") var ingredients:
            [String] = []
        @Option(name: .customLong("energy"), help: "Only this energy level, 1–5 (repeatable).") var energyLevels: [Int] = []
        @Option(help: "The dish type (default: main course), e.g. \"dessert\".") var dishType: DishType?
        @Option(name: .customLong("tag"), help: "Only recipes with this tag (repeatable: all of them).") var tags: [String] = []
        @OptionGroup var filters: FilterOptions
        @Flag(help: "Your own diets, allergens and dislikes alone, not your household's.") var justMe = false
        @Flag(help: "Recipes that use what your pantry holds, ranked by how much of it, what goes off soonest first.") var usesPantry = false
        @Option(help: "Page number, from 1.") var page = 1
        @Option(help: "Recipes per page (1–100).") var pageSize = 20
        @OptionGroup var global: GlobalOptions

        static let flagsForFields = FilterOptions.flagsForFields.merging([
            "ingredients": "--ingredient", "energyLevels": "--energy", "dishType": "--dish-type", "tags": "--tag", "pageSize": "--page-size",
            "forHousehold": "--just-me", "onHand": "--uses-pantry",
        ]) { filter, _ in filter }

        var request: RecipeSearch {
            var request = RecipeSearch(
                query: text.isEmpty ? nil : text.joined(separator: " "), ingredients: ingredients.isEmpty ? nil : ingredients,
                energyLevels: energyLevels.isEmpty ? nil : energyLevels, dishType: dishType, page: page, pageSize: pageSize,
                tags: tags.isEmpty ? nil : tags
            )
            if !filters.noFilters {
                request.profile = filters.explicitProfile
                request.useSavedProfile = request.profile == nil ? true : nil
                if justMe, request.useSavedProfile == true { request.forHousehold = false }
            }
            request.switches = filters.ignoredLayers
            return request
        }

        func run() async throws {
            var request = self.request
            let result: RecipePage
            let token = try global.token
            if usesPantry {
                let pantry = try await global.client(Groceries.self).call(PantryAPI.get, Empty(), session: token)
                guard !pantry.items.isEmpty else { return Console.current.out("Your pantry is empty (sous pantry add …).") }
                request.onHand = pantry.items.map(OnHand.init)
            }
            do {
                result = try await global.client(Catalog.self).call(CatalogAPI.searchRecipes, request, session: token)
            } catch {
                // The hint helps only when the saved profile could not be read (the planner).
                guard error.code == .unavailable, request.useSavedProfile == true, error.message.contains("needs the planner") else { throw error }
                throw ServiceError(.unavailable, "\(error.message); use --no-filters (or explicit filter flags) to search without your profile")
            }
            if global.json { return try printJSON(result) }
            if let restrictions = result.household, !restrictions.isEmpty {
                Console.current.out("For your household: \(restrictions.map(\.summary).joined(separator: ", ")) (--just-me for yours alone)\n")
            }
            guard !result.recipes.isEmpty else {
                return Console.current.out(usesPantry ? "No recipe that fits uses what your pantry holds." : "No recipes match.")
            }
            Console.current.out(recipeTable(result.recipes))
            if usesPantry {
                Console.current.out("\nFrom your pantry, as each recipe is written:")
                for recipe in result.recipes {
                    Console.current.out("  \(recipe.id): \((recipe.onHand ?? []).map(\.summary).joined(separator: ", "))")
                }
            }
            let first = (result.page - 1) * result.pageSize + 1
            let last = first + result.recipes.count - 1
            let total = result.totalIsExact ? "\(result.total)" : "more than \(result.total)"
            Console.current.out("\n\(first)–\(last) of \(total)\(last < result.total ? " (next: --page \(result.page + 1))" : "")")
        }
    }

    // MARK: suggest

    struct Suggest: AsyncParsableCommand, FlagsForFields {
        static let configuration = CommandConfiguration(
            abstract: "Recipes that fit what is left of today's goals, filtered by your profile, and why each was picked.",
            discussion: """
                What is left comes from your diary (goals minus what you logged); with --meals N it is shared by the N \
                meals still to eat. Recipes within 5 points of fit come cheapest first, then those whose ingredients \
                are already on your grocery list. The filter flags work as in `sous recipes search`.
                  sous recipes suggest --dish-type "main course"
                  sous recipes suggest --meals 2 --limit 3
                """
        )
        @Option(help: "The diary day (YYYY-MM-DD); default today.") var date: String?
        @Option(help: "Meals still to eat that day (1–6).") var meals: Int?
        @Option(help: "The dish type (default: main course), e.g. \"dessert\".") var dishType: DishType?
        @Option(help: "How many suggestions (1–20).") var limit: Int?
        @OptionGroup var filters: FilterOptions
        @OptionGroup var global: GlobalOptions

        static let flagsForFields = FilterOptions.flagsForFields.merging(["dishType": "--dish-type"]) { filter, _ in filter }

        var request: RecipeSuggestionRequest {
            var switches = filters.ignoredLayers
            if filters.noFilters { switches = FilterSwitches(diets: false, allergens: false, dislikes: false, equipment: false, patience: false) }
            return RecipeSuggestionRequest(
                date: date.flatMap(LocalDate.init), meals: meals, dishType: dishType, profile: filters.explicitProfile, switches: switches,
                limit: limit)
        }

        func validate() throws {
            if let date, LocalDate(date) == nil { throw ValidationError("--date \"\(date)\" is not a date (YYYY-MM-DD)") }
        }

        func run() async throws {
            let result = try await global.client(Catalog.self).call(CatalogAPI.suggest, request, session: global.token)
            if global.json { return try printJSON(result) }
            let left = result.remaining
            Console.current.out(
                "Left for \(result.date): "
                    + String(
                        format: "%.0f kcal, carbohydrates %.0f g, protein %.0f g, fat %.0f g", left.kcal, left.carbohydrates, left.protein, left.fat))
            guard !result.suggestions.isEmpty else {
                return Console.current.out("Nothing to suggest: \(result.explanation ?? "no recipe passes your filters").")
            }
            var table = Table([("FIT", .right), ("RECIPE", .left), ("ID", .left), ("KCAL", .right), ("€/SERVING", .right)])
            for suggestion in result.suggestions {
                table.add([
                    String(format: "%.0f", suggestion.fit), suggestion.recipe.name.truncated(36), suggestion.recipe.id,
                    String(format: "%.0f", suggestion.perServing.kcal), String(format: "%.2f", suggestion.recipe.costPerServing),
                ])
            }
            Console.current.out("\n" + table.render())
            for suggestion in result.suggestions {
                Console.current.out("\n\(suggestion.recipe.name):")
                for reason in suggestion.reasons { Console.current.out("  - \(reason)") }
            }
            if !result.groceryListRead { Console.current.out("\n(The grocery list could not be read: ranked without it.)") }
        }
    }

    // MARK: show

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a recipe with ingredients scaled for --people, steps, cost and nutrition.",
            discussion: """
                With --json: the catalog's RecipeDetail, ingredients scaled for `people`; `cost` is the whole recipe \
                at its own `servings`, `costForPeople` the cost for `people` (what the scaled lines cost).
                """
        )

        @Argument(help: "Recipe id.") var id: String
        @Option(help: "Scale quantities for this many people.") var people: Int?
        @Option(help: "Show quantities in metric or us units (default: your profile's).") var units: UnitSystem?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            // The ingredients' densities, for the text only: a little of a spice shows in US spoons.
            let lookup = RecipeLookup(id: id, people: people, withIngredients: global.json ? nil : true)
            let recipe = try await global.client(Catalog.self).call(CatalogAPI.getRecipe, lookup, session: global.token)
            if global.json { return try printJSON(ShownRecipe(detail: recipe)) }
            Console.current.out(render(recipe, units: await global.displayUnits(units)))
        }
    }

    struct Photo: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Save a recipe's photo to a file (set it with --photo on create or edit).")
        @Argument(help: "Recipe id.") var id: String
        @Option(name: [.short, .long], help: "The file to write; default <id>.<type> in the current folder.") var output: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let photo = try await global.client(Catalog.self).call(CatalogAPI.photo, RecipeID(id: id), session: global.token)
            if global.json { return try printJSON(photo) }
            let path = output ?? "\(photo.id).\(photo.type == "jpeg" ? "jpg" : photo.type)"
            do {
                try photo.photo.write(to: URL(fileURLWithPath: path))
            } catch {
                throw ValidationError("cannot write \(path): \(error.localizedDescription)")
            }
            Console.current.out("Saved the \(photo.type) photo of \(photo.id) (\(photoSize(photo.photo.count))) to \(path).")
        }
    }

    // MARK: create / edit

    struct DraftOptions: ParsableArguments {
        @Option(
            help:
                "A JSON file with the recipe (fields of RecipeDraft: name, summary, servings, prepMinutes, cookMinutes, ingredients, steps, equipment, dishTypes, link, image, notes, variations, tags)."
        )
        var file: String?
        @Option(help: "Name.") var name: String?
        @Option(help: "Short description.") var summary: String?
        @Option(help: "Servings the quantities are for (1–50).") var servings: Int?
        @Option(help: "Preparation minutes.") var prep: Int?
        @Option(help: "Cooking minutes.") var cook: Int?
        @Option(name: .customLong("equipment"), help: "Appliance needed (repeatable).") var equipment: [Appliance] = []
        @Option(name: .customLong("dish-type"), help: "Dish type (repeatable).") var dishTypes: [DishType] = []
        @Option(help: "Link to the original recipe.") var link: String?
        @Option(help: "Your notes on the recipe (\"\" removes them).") var notes: String?
        @Option(name: .customLong("variation"), help: "A variation worth trying (repeatable; replaces the list).") var variations: [String] = []
        @Option(name: .customLong("tag"), help: "A tag to find it by (repeatable; replaces the tags).") var tags: [String] = []
        @Option(help: "A JPEG, PNG, HEIC or WebP photo file (at most 5 MiB).") var photo: String?
        @Flag(help: "Remove the photo.") var removePhoto = false

        /// The request fields these options fill, for the commands using them (``FlagsForFields``).
        static let flagsForFields = [
            "prepMinutes": "--prep", "cookMinutes": "--cook", "dishTypes": "--dish-type", "variations": "--variation", "tags": "--tag",
            "removePhoto": "--remove-photo",
        ]

        /// The JSON file's draft with flags on top.
        func draft() throws -> RecipeDraft {
            var draft = RecipeDraft()
            if let file {
                let data: Data
                do {
                    data = try Data(contentsOf: URL(fileURLWithPath: file))
                } catch {
                    throw ValidationError("cannot read \(file): \(error.localizedDescription)")
                }
                do {
                    draft = try JSONDecoder().decode(RecipeDraft.self, from: data)
                } catch {
                    // The same badRequest a service answers, naming the path (steps.2.minutes).
                    let problem = ServiceError(decoding: error)
                    throw ServiceError.badRequest("\(file) is not a recipe: \(problem.message)", field: problem.field)
                }
            }
            if let name { draft.name = name }
            if let summary { draft.summary = summary }
            if let servings { draft.servings = servings }
            if let prep { draft.prepMinutes = prep }
            if let cook { draft.cookMinutes = cook }
            if !equipment.isEmpty { draft.equipment = equipment }
            if !dishTypes.isEmpty { draft.dishTypes = dishTypes }
            if let link { draft.link = link }
            if let notes { draft.notes = notes }
            if !variations.isEmpty { draft.variations = variations }
            if !tags.isEmpty { draft.tags = tags }
            if let photo { draft.photo = try readPhoto(photo) }
            if removePhoto { draft.removePhoto = true }
            return draft
        }
    }

    struct Create: AsyncParsableCommand, FlagsForFields {
        static let configuration = CommandConfiguration(abstract: "Write a new recipe from a JSON file and/or flags (name and summary required).")

        @OptionGroup var draft: DraftOptions
        @OptionGroup var global: GlobalOptions

        static let flagsForFields = DraftOptions.flagsForFields

        func run() async throws {
            let recipe = try await global.client(Catalog.self).call(CatalogAPI.createRecipe, try draft.draft(), session: global.token)
            if global.json { return try printJSON(recipe) }
            Console.current.out("Created \(recipe.id): \(recipe.name)")
        }
    }

    struct Edit: AsyncParsableCommand, FlagsForFields {
        static let configuration = CommandConfiguration(
            abstract: "Change a recipe. Editing a built-in or someone else's recipe makes your personal version of it."
        )

        @Argument(help: "Recipe id.") var id: String
        @OptionGroup var draft: DraftOptions
        @OptionGroup var global: GlobalOptions

        /// The draft is the request's `changes`.
        static let flagsForFields = Dictionary(uniqueKeysWithValues: DraftOptions.flagsForFields.map { ("changes.\($0.key)", $0.value) })

        func run() async throws {
            let recipe = try await global.client(Catalog.self).call(
                CatalogAPI.editRecipe, .init(id: id, changes: try draft.draft()), session: global.token)
            if global.json { return try printJSON(recipe) }
            Console.current.out(
                recipe.origin == .personal ? "Saved your personal version of \(recipe.id): \(recipe.name)" : "Updated \(recipe.id): \(recipe.name)")
        }
    }

    // MARK: simple id commands

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete your recipe (or your personal version, bringing the original back).")
        @Argument(help: "Recipe id.") var id: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.client(Catalog.self).call(CatalogAPI.deleteRecipe, .init(id: id), session: global.token)
            if global.json { return try printJSON(["deleted": id]) }
            Console.current.out("Deleted \(id).")
        }
    }

    struct Favorite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Mark a recipe as a favorite (favorites come first in searches), or as your household's (--household).")
        @Argument(help: "Recipe id.") var id: String
        @Flag(help: "A favourite of the household: everyone in it sees it in `sous recipes favorites --household`.") var household = false
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let method = household ? CatalogAPI.favoriteForHousehold : CatalogAPI.favorite
            try await global.client(Catalog.self).call(method, .init(id: id), session: global.token)
            if global.json { return try printJSON([household ? "householdFavorite" : "favorite": id]) }
            Console.current.out(household ? "★ \(id), for the household" : "★ \(id)")
        }
    }

    struct Unfavorite: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a recipe from your favorites, or from your household's (--household).")
        @Argument(help: "Recipe id.") var id: String
        @Flag(help: "From the household's favourites.") var household = false
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let method = household ? CatalogAPI.unfavoriteForHousehold : CatalogAPI.unfavorite
            try await global.client(Catalog.self).call(method, .init(id: id), session: global.token)
            if global.json { return try printJSON([household ? "householdUnfavorite" : "unfavorite": id]) }
            Console.current.out(household ? "☆ \(id), for the household" : "☆ \(id)")
        }
    }

    struct Favorites: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List your favorite recipes, or your household's (--household).")
        @Flag(help: "The household's favourites.") var household = false
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let method = household ? CatalogAPI.householdFavorites : CatalogAPI.favorites
            let list = try await global.client(Catalog.self).call(method, Empty(), session: global.token)
            if global.json { return try printJSON(list) }
            let none = household ? "No household favourites yet: sous recipes favorite ID --household" : "No favorites yet: sous recipes favorite ID"
            Console.current.out(list.recipes.isEmpty ? none : recipeTable(list.recipes))
        }
    }

    struct Mine: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the recipes you wrote, edited or saved.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let list = try await global.client(Catalog.self).call(CatalogAPI.myRecipes, Empty(), session: global.token)
            if global.json { return try printJSON(list) }
            Console.current.out(list.recipes.isEmpty ? "You have no recipes of your own yet: sous recipes create --help" : recipeTable(list.recipes))
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Recipes as schema.org JSON-LD (what recipe sites, Mealie and Tandoor read), to stdout or --output FILE.",
            discussion: """
                Any recipe you can see, by id, and with --mine all of your own. One recipe is written as one \
                Recipe object, several as an array. Ingredient lines are written as quantity, unit and name \
                ("200 g red lentils"); tags as keywords, notes and variations as comments, and a photo as a \
                data: URL in image (an import takes at most 7 MiB: export recipes with large photos one by one).
                  sous recipes export tomato-lentil-soup --output soup.json
                  sous recipes export --mine --output my-recipes.json
                """)

        @Argument(help: "Recipe ids.") var ids: [String] = []
        @Flag(help: "All of your own recipes too.") var mine = false
        @Option(help: "Write the JSON-LD to this file instead of printing it.") var output: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let catalog = global.client(Catalog.self)
            var ids = self.ids
            if mine { ids += try await catalog.call(CatalogAPI.myRecipes, Empty(), session: global.token).recipes.map(\.id) }
            guard !ids.isEmpty else { throw ValidationError("name the recipes to export (ids), or --mine for all of your own") }
            var recipes: [SchemaRecipe] = []
            for id in ids {
                let recipe = try await catalog.call(CatalogAPI.getRecipe, .init(id: id), session: global.token)
                let photo = recipe.photo == nil ? nil : try await catalog.call(CatalogAPI.photo, RecipeID(id: id), session: global.token)
                recipes.append(SchemaRecipe(recipe, photo: photo))
            }
            let document = recipes.count == 1 ? recipes[0].jsonLD() : SchemaRecipe.jsonLD(recipes)
            guard let output else { return Console.current.out(String(decoding: document, as: UTF8.self)) }
            do {
                try document.write(to: URL(fileURLWithPath: output), options: .atomic)
            } catch {
                throw ValidationError("could not write \(output): \(error.localizedDescription)")
            }
            Console.current.out("Wrote \(recipes.count) recipe\(recipes.count == 1 ? "" : "s") to \(output).")
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add schema.org recipes (a recipe page, a JSON-LD file, a Mealie or Tandoor export) to your own.",
            discussion: """
                The source is a recipe page's address (http or https: the catalog fetches it and reads its \
                JSON-LD or microdata), a JSON-LD file (one Recipe, an array, or a page's @graph), or - for \
                standard input. Every ingredient line is matched to a catalog ingredient by name or synonym, \
                or to a USDA food with the same words; lines matched that way are listed with how sure the \
                match is. Lines that match nothing for sure (or lack a quantity) are listed and nothing is \
                imported. On a terminal you are asked what each means and the import runs again; otherwise \
                (or with --no-prompt) map each and run again:
                  sous recipes import https://example.com/lentil-soup
                  sous recipes import soup.json --map "salt to taste=1 tsp salt" --map "2 shallots=onion"
                A mapping names an ingredient (the line keeps its own amount) or gives a whole line; it is \
                remembered for you and your household (sous recipes mappings). What no Sous field holds \
                (cuisine, nutrition, author…) is kept at the end of the recipe's notes.
                """)

        @Argument(help: "A recipe page's address, a JSON-LD file, or - for standard input.") var source: String
        @Option(help: "LINE=MEANING: what an ingredient line means (repeatable).") var map: [String] = []
        @Flag(help: "Never ask what an unmatched line means: list them and stop.") var noPrompt = false
        @OptionGroup var global: GlobalOptions

        var isAddress: Bool { source.lowercased().hasPrefix("http://") || source.lowercased().hasPrefix("https://") }

        func run() async throws {
            var document: String?
            if !isAddress {
                do {
                    let data =
                        source == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: source))
                    document = String(decoding: data, as: UTF8.self)
                } catch {
                    throw ValidationError("could not read \(source): \(error.localizedDescription)")
                }
            }
            var mappings: [String: String] = [:]
            for pair in map {
                guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex, pair.index(after: equals) != pair.endIndex else {
                    throw ValidationError("--map takes LINE=MEANING, e.g. \"salt to taste=1 tsp salt\", not \"\(pair)\"")
                }
                mappings[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
            }
            // Standard input holds the document, so only a file's or a page's import can ask.
            let canAsk = !noPrompt && !global.json && source != "-" && Console.current.canPrompt
            while true {
                let request = RecipeImport(document: document, url: isAddress ? source : nil, mappings: mappings)
                let report = try await global.client(Catalog.self).call(CatalogAPI.importRecipes, request, session: global.token)
                if report.unmatched.isEmpty {
                    if global.json { return try printJSON(report) }
                    for line in report.matched { Console.current.out("  \(matchNote(line))") }
                    for recipe in report.imported {
                        let kept = recipe.unmappedFields.isEmpty ? "" : " (kept in its notes: \(recipe.unmappedFields.joined(separator: ", ")))"
                        Console.current.out("Imported \(recipe.id): \(recipe.name), \(recipe.lines) ingredient lines\(kept)")
                    }
                    if !mappings.isEmpty {
                        Console.current.out("Your mappings are remembered: the same lines will not be asked again (sous recipes mappings).")
                    }
                    return
                }
                guard canAsk else {
                    if global.json {
                        try printJSON(report)
                    } else {
                        Console.current.out("Nothing imported: map these lines and run again (--map \"LINE=INGREDIENT\").")
                        for line in report.unmatched { Console.current.out("  \(line.recipe): \"\(line.line)\": \(line.reason)") }
                    }
                    throw ExitCode(ExitCodes.badRequest)
                }
                Console.current.out(
                    "\(report.unmatched.count) line\(report.unmatched.count == 1 ? "" : "s") need\(report.unmatched.count == 1 ? "s" : "") a meaning: "
                        + "type a catalog ingredient (the line keeps its amount) or a whole line such as \"1 tsp salt\"; "
                        + "\"=\" takes the suggestion; nothing to stop.")
                for line in report.unmatched {
                    Console.current.out("  \(line.recipe): \"\(line.line)\": \(line.reason)")
                    guard let answer = Console.current.readLine(prompt: "  means: ")?.trimmingCharacters(in: .whitespaces), !answer.isEmpty else {
                        Console.current.out("Nothing imported.")
                        throw ExitCode(ExitCodes.badRequest)
                    }
                    mappings[line.line] = answer == "=" ? line.suggestion ?? answer : answer
                }
            }
        }

        func matchNote(_ line: MatchedIngredientLine) -> String {
            switch line.how {
            case .food: "\"\(line.line)\" is \(line.name) (a USDA food, \(Int((line.confidence * 100).rounded())) % of its words)"
            case .mapping: "\"\(line.line)\" is \(line.name), as you said"
            case .remembered: "\"\(line.line)\" is \(line.name), as you or your household said before"
            }
        }
    }

    struct Mappings: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The ingredient lines you (or your household) told an import the meaning of.",
            discussion: """
                Imports use them instead of asking again. --forget LINE forgets one (yours and the household's).
                """)
        @Option(help: "Forget what this line means (as it was written).") var forget: String?
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let catalog = global.client(Catalog.self)
            if let forget {
                _ = try await catalog.call(CatalogAPI.forgetMapping, ForgetMapping(line: forget), session: global.token)
                return Console.current.out("Forgot \"\(forget)\".")
            }
            let remembered = try await catalog.call(CatalogAPI.mappings, Empty(), session: global.token)
            if global.json { return try printJSON(remembered) }
            guard !remembered.mappings.isEmpty else { return Console.current.out("No remembered mappings.") }
            var table = Table([("LINE", .left), ("MEANS", .left), ("WHOSE", .left)])
            for mapping in remembered.mappings {
                table.add([mapping.line.truncated(50), mapping.target.truncated(40), mapping.household ? "household" : "yours"])
            }
            Console.current.out(table.render())
        }
    }

    struct Share: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Share one of your recipes with the community.")
        @Argument(help: "Recipe id.") var id: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let summary = try await global.client(Catalog.self).call(CatalogAPI.share, .init(id: id), session: global.token)
            if global.json { return try printJSON(summary) }
            Console.current.out("Shared \(summary.id): \(summary.name)")
        }
    }

    struct Community: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Browse recipes other people shared, most favorited first.")
        @Argument(help: "Words to look for.") var text: [String] = []
        @Option(help: "Page number, from 1.") var page = 1
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let result = try await global.client(Catalog.self).call(
                CatalogAPI.community, RecipeSearch(query: text.isEmpty ? nil : text.joined(separator: " "), page: page), session: global.token
            )
            if global.json { return try printJSON(result) }
            guard !result.recipes.isEmpty else { return Console.current.out("No shared recipes yet.") }
            var table = Table([("ID", .left), ("NAME", .left), ("BY", .left), ("★", .right), ("MIN", .right), ("DIETS", .left)])
            for entry in result.recipes {
                table.add([
                    entry.recipe.id, entry.recipe.name.truncated(36), (entry.sharedByName ?? entry.sharedBy).truncated(24),
                    String(entry.favoriteCount),
                    String(entry.recipe.totalMinutes),
                    entry.recipe.diets.map(\.rawValue).joined(separator: ", "),
                ])
            }
            Console.current.out(table.render())
        }
    }

    struct Save: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Copy a community recipe into your own recipes.")
        @Argument(help: "Id of the shared recipe.") var id: String
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let recipe = try await global.client(Catalog.self).call(CatalogAPI.saveCommunity, .init(id: id), session: global.token)
            if global.json { return try printJSON(recipe) }
            Console.current.out("Saved as \(recipe.id): \(recipe.name)")
        }
    }
}

// MARK: - Rendering

func recipeTable(_ recipes: [RecipeSummary]) -> String {
    var table = Table([
        ("", .left), ("ID", .left), ("NAME", .left), ("MIN", .right), ("ENERGY", .right), ("KCAL", .right), ("€/SERV", .right), ("DIETS", .left),
        ("NEEDS", .left),
    ])
    for recipe in recipes {
        table.add([
            recipe.isFavorite ? "★" : "", recipe.id, recipe.name.truncated(38), String(recipe.totalMinutes), String(recipe.energyLevel),
            String(recipe.kcalPerServing.roundedInt), String(format: "%.2f", recipe.costPerServing),
            recipe.diets.map(\.rawValue).joined(separator: ", "), recipe.equipment.map(\.rawValue).joined(separator: ", "),
        ])
    }
    return table.render()
}

func render(_ recipe: RecipeDetail, units: UnitSystem = .metric) -> String {
    var lines: [String] = []
    lines.append("\(recipe.isFavorite ? "★ " : "")\(recipe.name)  (\(recipe.id), \(recipe.origin.rawValue)\(recipe.owner.map { " by \($0)" } ?? ""))")
    lines.append(recipe.summary)
    lines.append("")
    let energy = EnergyLevel.descriptions[recipe.energyLevel] ?? ""
    lines.append(
        "Serves \(recipe.servings) · prep \(recipe.prepMinutes) min · cook \(recipe.cookMinutes) min · energy \(recipe.energyLevel)/5 (\(energy))")
    lines.append(
        "Diets: \(recipe.diets.isEmpty ? "none" : recipe.diets.map(\.rawValue).joined(separator: ", "))"
            + " · Allergens: \(recipe.allergens.isEmpty ? "none" : recipe.allergens.map(\.rawValue).joined(separator: ", "))")
    lines.append(
        "Needs: \(recipe.equipment.isEmpty ? "no appliance" : recipe.equipment.map(\.rawValue).joined(separator: ", "))"
            + " · Cost \(money(recipe.costForPeople)) for \(recipe.people) \(recipe.people == 1 ? "person" : "people")"
            + " (\(money(recipe.costPerServing)) per serving, illustrative)"
            + (recipe.unpriced.isEmpty ? "" : "; without \(recipe.unpriced.joined(separator: ", ")), which have no known price"))
    let n = recipe.nutritionPerServing
    lines.append(
        "Per serving: \(n.kcal.roundedInt) kcal · carbs \(number(n.carbohydrates)) g · protein \(number(n.protein)) g · fat \(number(n.fat)) g"
            + " · fibre \(number(n.fibre)) g · sugar \(number(n.sugar)) g · salt \(number(n.salt, decimals: 2)) g")
    lines.append("")
    lines.append("Ingredients for \(recipe.people):")
    var table = Table([("QTY", .right), ("UNIT", .left), ("INGREDIENT", .left), ("GRAMS", .right), ("COST", .right)])
    let gramsPerMl = densities(of: recipe.ingredientFacts ?? [])
    for line in recipe.ingredients {
        let name =
            switch line.use {
            case .eaten: line.name
            case .frying: "\(line.name) (for frying; \(percent(line.eatenShare)) eaten)"
            case .discarded: "\(line.name) (poured away; \(percent(line.eatenShare)) eaten)"
            }
        let shown = recipeQuantity(line.quantity, line.unit, units: units, gramsPerMl: gramsPerMl[line.ingredient])
        table.add([shown.amount, shown.unit, name, number(line.grams, decimals: 0), money(line.cost)])
    }
    lines.append(table.render())
    if !recipe.steps.isEmpty {
        lines.append("")
        lines.append("Steps:")
        for (index, step) in recipe.steps.enumerated() {
            lines.append("  \(index + 1). [\(step.type.rawValue)\(step.minutes.map { ", \($0) min" } ?? "")] \(step.description)")
        }
    }
    if !recipe.tags.isEmpty { lines.append("\nTags: " + recipe.tags.joined(separator: ", ")) }
    if let notes = recipe.notes {
        lines.append("\nNotes:\n" + notes.split(separator: "\n", omittingEmptySubsequences: false).map { "  \($0)" }.joined(separator: "\n"))
    }
    if !recipe.variations.isEmpty {
        lines.append("\nVariations:")
        for variation in recipe.variations { lines.append("  - \(variation)") }
    }
    if let photo = recipe.photo { lines.append("\nPhoto: \(photo.type), \(photoSize(photo.bytes)) (sous recipes photo \(recipe.id))") }
    if let link = recipe.link { lines.append("\nSource: \(link)") }
    return lines.joined(separator: "\n")
}

/// What `recipes show --json` prints: the catalog's ``RecipeDetail`` as it is, and beside it
/// `costForPeople`, the cost for the `people` the lines are scaled for; the detail's own `cost`
/// stays the whole recipe at its `servings`, as scripts reading it expect.
struct ShownRecipe: Encodable {
    var detail: RecipeDetail

    private enum CodingKeys: String, CodingKey {
        case costForPeople
    }

    func encode(to encoder: any Encoder) throws {
        // The detail's fields and the one added go in the same JSON object.
        try detail.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(detail.costForPeople, forKey: .costForPeople)
    }
}

extension RecipeDetail {
    /// EUR for the recipe as scaled for ``people``: what its lines cost (``cost`` is for ``servings``).
    var costForPeople: Double { costPerServing * Double(people) }
}

/// One layer of the recipe filter, as `--ignore` names it.
enum FilterLayer: String, ExpressibleByArgument, CaseIterable {
    case diets, allergens, dislikes, equipment, patience
}

/// The recipe filter flags `search` and `suggest` share: by default the saved profile; explicit
/// flags filter by exactly those; `--ignore` switches one layer off; `--no-filters` all of them.
struct FilterOptions: ParsableArguments {
    @Option(name: .customLong("diet"), help: "Must fit this diet (repeatable): \(Diet.allCases.map(\.rawValue).joined(separator: ", ")).")
    var diets: [Diet] = []
    @Option(name: .customLong("allergen"), help: "Must be free of this allergen (repeatable).") var allergens: [Allergen] = []
    @Option(name: .customLong("dislike"), help: "Must not use this ingredient id (repeatable).") var dislikes: [String] = []
    @Option(name: .customLong("equipment"), help: "An appliance you have (repeatable); recipes needing others are hidden.") var equipment:
        [Appliance] = []
    @Option(help: "Highest energy level you will cook, 1–5.") var patience: Int?
    @Flag(help: "Ignore your profile and show every recipe.") var noFilters = false
    @Option(
        name: .customLong("ignore"),
        help: "Switch off one layer of your profile for this command (repeatable): diets, allergens, dislikes, equipment, patience.")
    var ignored: [FilterLayer] = []

    /// The request fields these options fill, for the commands using them (``FlagsForFields``).
    static let flagsForFields = [
        "profile.diets": "--diet", "profile.allergens": "--allergen", "profile.dislikes": "--dislike", "profile.equipment": "--equipment",
        "profile.patience": "--patience", "switches": "--ignore",
    ]

    /// The profile the flags spell out; nil when none is given (the saved one applies).
    var explicitProfile: RecipeFilterProfile? {
        guard !diets.isEmpty || !allergens.isEmpty || !dislikes.isEmpty || !equipment.isEmpty || patience != nil else { return nil }
        return RecipeFilterProfile(
            diets: diets, allergens: allergens, dislikes: dislikes, equipment: equipment.isEmpty ? Appliance.allCases : equipment,
            patience: patience ?? 5)
    }

    /// The layers `--ignore` switches off; nil when none.
    var ignoredLayers: FilterSwitches? {
        guard !ignored.isEmpty else { return nil }
        var switches = FilterSwitches()
        for layer in Set(ignored) {
            switch layer {
            case .diets: switches.diets = false
            case .allergens: switches.allergens = false
            case .dislikes: switches.dislikes = false
            case .equipment: switches.equipment = false
            case .patience: switches.patience = false
            }
        }
        return switches
    }

    func validate() throws {
        if noFilters && !ignored.isEmpty { throw ValidationError("--no-filters already ignores every layer; drop --ignore") }
        if noFilters && explicitProfile != nil { throw ValidationError("--no-filters shows everything; drop the filter flags") }
    }
}

/// "10 %", "0 %", "12.5 %".
func percent(_ share: Double) -> String {
    let value = share * 100
    return value.rounded() == value ? "\(Int(value)) %" : String(format: "%.1f %%", value)
}
