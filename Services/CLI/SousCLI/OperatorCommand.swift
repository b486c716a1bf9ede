public import ArgumentParser
import Foundation
public import SousClient
import SousSchema
import SousWire

/// `sous operator`: the methods only an operator's session may call. Kept in one group so that
/// nobody runs them by accident.
struct OperatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "operator",
        abstract: "OPERATORS ONLY: bulk imports, reloading the shipped recipes, moving a test clock.",
        discussion: """
            Every command here needs the session of an operator account (created with `sous-planner operator \
            create`, then `sous login`); anyone else gets `forbidden` (exit code 8). Imports and seed reloads \
            change what every user sees.
            """,
        subcommands: [ImportIngredients.self, ImportProductsCommand.self, ReloadSeed.self, ClockCommand.self]
    )

    struct ImportIngredients: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import-ingredients",
            abstract: "Add or update catalog ingredients from a JSON file: an array of Ingredient, or {\"source\", \"ingredients\"}.",
            discussion: """
                Each ingredient has the fields of docs/PROTOCOL.md's `Ingredient` (`synonyms` and `bought` may be \
                left out). Existing ids are updated. Sent in batches of at most 1000; each batch is one transaction. \
                USDA SR28 directories have their own importer: `sous-catalog import-usda DIR`.
                """
        )

        @Argument(help: "The JSON file.") var file: String
        @Option(help: "A label stored with each ingredient (overrides the file's).") var source: String?
        @Option(help: "Ingredients per request (1–1000).") var batchSize = 500
        @OptionGroup var global: GlobalOptions

        func validate() throws {
            guard (1...1000).contains(batchSize) else { throw ValidationError("--batch-size must be 1 to 1000") }
        }

        func run() async throws {
            let data = try readFile(file)
            let batch: IngredientImport
            do {
                if let whole = try? JSONDecoder().decode(IngredientImport.self, from: data) {
                    batch = whole
                } else {
                    batch = IngredientImport(source: "file", ingredients: try JSONDecoder().decode([Ingredient].self, from: data))
                }
            } catch {
                // The same badRequest a service answers, naming the path (3.nutrition.kcal).
                let problem = ServiceError(decoding: error)
                throw ServiceError.badRequest("\(file) is not a list of ingredients: \(problem.message)", field: problem.field)
            }
            let label = source ?? batch.source
            var imported = 0
            var version: Int64 = 0
            for start in stride(from: 0, to: batch.ingredients.count, by: batchSize) {
                let slice = Array(batch.ingredients[start..<min(start + batchSize, batch.ingredients.count)])
                let report = try await global.client(Catalog.self).call(
                    CatalogAPI.importIngredients, IngredientImport(source: label, ingredients: slice), session: global.token
                )
                imported += report.imported
                version = report.catalogVersion
            }
            if global.json { return try printJSON(ImportReport(imported: imported, catalogVersion: version)) }
            Console.current.out("Imported \(imported) ingredients from \(file) (catalog version \(version)).")
        }
    }

    struct ReloadSeed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reload-seed",
            abstract: "Write the shipped ingredients and built-in recipes again (users' recipes, versions and favorites are kept)."
        )
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let report = try await global.client(Catalog.self).call(CatalogAPI.reloadSeed, Empty(), session: global.token)
            if global.json { return try printJSON(report) }
            Console.current.out(
                "Reloaded seed version \(report.seedVersion): \(report.ingredients) ingredients, \(report.recipes) recipes (catalog version \(report.catalogVersion))."
            )
        }
    }

    struct ClockCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clock",
            abstract: "Read or move the services' clocks (moving needs services started with SOUS_CLOCK=manual; for end-to-end tests).",
            subcommands: [Show.self, Set.self]
        )

        struct Show: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Each service's current time and whether its clock is manual.")
            @Option(name: .customLong("service"), help: "Only this service (repeatable; default all five).") var services: [SousService] = []
            @OptionGroup var global: GlobalOptions

            func run() async throws {
                var readings: [String: ClockReading] = [:]
                for service in services.isEmpty ? SousService.allCases : services {
                    readings[service.rawValue] = try await global.anyClient(service).call(CommonAPI.clock, Empty(), session: try? global.token)
                }
                if global.json { return try printJSON(readings) }
                for (service, reading) in readings.sorted(by: { $0.key < $1.key }) {
                    Console.current.out(
                        "\(service.padding(toLength: 9, withPad: " ", startingAt: 0)) \(reading.now.formatted(.iso8601))\(reading.manual ? "  (manual)" : "")"
                    )
                }
            }
        }

        struct Set: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Set the manual clocks to an instant, e.g. 2026-03-10T19:00:00Z.")
            @Argument(help: "An ISO 8601 instant with its offset.") var instant: String
            @Option(name: .customLong("service"), help: "Only this service (repeatable; default all five).") var services: [SousService] = []
            @OptionGroup var global: GlobalOptions

            func run() async throws {
                guard let now = try? Date(instant, strategy: .iso8601) else {
                    throw ValidationError("\"\(instant)\" is not an ISO 8601 instant such as 2026-03-10T19:00:00Z")
                }
                var readings: [String: ClockReading] = [:]
                for service in services.isEmpty ? SousService.allCases : services {
                    readings[service.rawValue] = try await global.anyClient(service).call(
                        CommonAPI.setClock, ClockSetting(now: now), session: global.token)
                }
                if global.json { return try printJSON(readings) }
                Console.current.out("Set \(readings.keys.sorted().joined(separator: ", ")) to \(now.formatted(.iso8601)).")
            }
        }
    }
}

extension SousService: ExpressibleByArgument {}

/// The command that calls each method a person may call, for `sous --help` to cover the whole
/// protocol; a test checks it against every method the services serve.
public enum CommandIndex {
    public static let commands: [String: String] = [
        "health": "status", "describe": "describe", "clock.get": "operator clock show", "clock.set": "operator clock set",
        "account.register": "register", "account.login": "login", "account.logout": "logout", "account.whoami": "whoami",
        "account.sessions": "sessions", "account.endSession": "sessions end", "account.password": "password", "account.delete": "account delete",
        "account.recover": "account recover", "account.reset": "account reset", "account.verify": "account verify",
        "account.resendVerification": "account resend-verification",
        "plan.saveTemplate": "plan template save", "plan.templates": "plan template list", "plan.deleteTemplate": "plan template delete",
        "plan.applyTemplate": "plan template apply", "plan.repeatTemplate": "plan template repeat",
        "plan.feed": "plan feed on", "plan.feedStatus": "plan feed show", "plan.feedCalendar": "plan feed read",
        "pantry.get": "pantry list", "pantry.add": "pantry add", "pantry.remove": "pantry remove", "pantry.staple": "pantry staple",
        "pantry.settings": "pantry restock", "pantry.expiring": "pantry expiring", "pantry.cook": "plan cooked",
        "ingredients.search": "ingredients search", "ingredients.get": "ingredients show", "ingredients.import": "operator import-ingredients",
        "recipes.search": "recipes search", "recipes.get": "recipes show", "recipes.photo": "recipes photo", "recipes.create": "recipes create",
        "recipes.edit": "recipes edit",
        "recipes.delete": "recipes delete", "recipes.mine": "recipes mine", "recipes.favorite": "recipes favorite",
        "recipes.unfavorite": "recipes unfavorite", "recipes.favorites": "recipes favorites",
        "recipes.favoriteForHousehold": "recipes favorite --household", "recipes.unfavoriteForHousehold": "recipes unfavorite --household",
        "recipes.householdFavorites": "recipes favorites --household", "recipes.share": "recipes share",
        "recipes.import": "recipes import", "recipes.mappings": "recipes mappings", "recipes.forgetMapping": "recipes mappings --forget",
        "recipes.suggest": "recipes suggest",
        "recipes.community": "recipes community", "recipes.save": "recipes save", "catalog.changes": "catalog changes",
        "catalog.reloadSeed": "operator reload-seed",
        "profile.get": "profile show", "profile.update": "profile set", "profile.reset": "profile reset", "plan.get": "plan show",
        "plan.history": "plan show", "plan.selection": "plan list", "plan.add": "plan add", "plan.remove": "plan remove", "plan.put": "plan put",
        "plan.move": "plan move", "plan.clear": "plan clear", "plan.cooked": "plan cooked", "plan.multiplier": "plan multiplier",
        "plan.household": "plan household", "plan.weekHousehold": "plan household",
        "plan.ics": "plan ics", "plan.fill": "plan fill", "plan.unfill": "plan clear --fill", "plan.wait": "plan watch",
        "household.get": "household show", "household.update": "household rename", "household.invite": "household invite",
        "household.invitations": "household invitations", "household.revokeInvitation": "household revoke", "household.join": "household join",
        "household.leave": "household leave", "household.remove": "household remove", "household.transfer": "household transfer",
        "household.allowInvites": "household allow-invites",
        "friends.request": "friends request", "friends.requests": "friends requests", "friends.answer": "friends accept",
        "friends.withdraw": "friends withdraw", "friends.list": "friends list", "friends.end": "friends end", "friends.share": "friends share",
        "friends.compete": "friends compete", "progress.summary": "friends progress", "progress.board": "friends board",
        "groceries.list": "groceries show", "groceries.addRecipe": "groceries add-recipe", "groceries.setRecipe": "groceries set",
        "groceries.removeRecipe": "groceries remove-recipe", "groceries.addItem": "groceries add-item",
        "groceries.removeItem": "groceries remove-item",
        "groceries.check": "groceries check", "groceries.clear": "groceries clear", "groceries.checkout": "groceries checkout",
        "groceries.orders": "groceries orders", "groceries.wait": "groceries watch",
        "diary.add": "diary add", "diary.logRecipe": "diary log-recipe", "diary.edit": "diary edit", "diary.delete": "diary delete",
        "diary.list": "diary list", "diary.summary": "diary summary", "diary.status": "diary status", "diary.history": "diary history",
        "diary.analysis": "diary analysis", "diary.yesterday": "diary yesterday", "diary.export": "diary export",
        "drinks.change": "water", "drinks.get": "water", "goals.get": "goals show", "goals.set": "goals set", "goals.presets": "goals presets",
        "foods.create": "foods add", "foods.edit": "foods edit", "foods.delete": "foods delete", "foods.list": "foods list", "foods.log": "foods log",
        "products.get": "barcode", "products.import": "operator import-products", "products.add": "products add",
        "journal.add": "journal add", "journal.list": "journal list", "journal.get": "journal show", "journal.edit": "journal edit",
        "journal.delete": "journal delete", "gluten.predict": "gluten predict", "gluten.result": "gluten result",
        "gluten.deleteResult": "gluten withdraw", "gluten.stats": "gluten stats", "gluten.calendar": "gluten calendar",
        "catalog.export": "export", "catalog.import": "import", "planner.export": "export", "planner.import": "import",
        "groceries.export": "export", "groceries.import": "import", "tracker.export": "export", "tracker.import": "import",
        "notifier.export": "export", "notifier.import": "import",
        "reminders.next": "reminders next", "reminders.list": "reminders list", "reminders.wait": "reminders watch",
        "reminders.channels": "reminders channels", "reminders.addChannel": "reminders channels add",
        "reminders.removeChannel": "reminders channels remove", "reminders.testChannel": "reminders channels test",
        "reminders.setQuietHours": "reminders quiet",
    ]
}
