import Foundation
import MessagePack
import SousCLI
import SousRuntime
import SousSchema
import SousServiceTesting
import SousTestSupport
import SousWire
import Testing

/// `sous export` and `sous import`: a user with something in every service exported, imported
/// into an empty account, and exported again gives the same content.
@Suite(.closesItsSockets)
struct ArchiveCLITests {
    static let instant = ISO8601DateFormatter().date(from: "2026-03-10T10:00:00Z")!
    static let png = StackFixture.samplePhoto
    static let today = LocalDate(instant, in: TimeZone(identifier: "UTC")!)

    /// Gives `user` something in every table an archive covers.
    static func fill(_ stack: StackFixture, user: String) async throws {
        try await stack.fillEveryArchivedTable(user: user, today: today, instant: instant)
    }

    /// What the services hold for `user`, photos fetched apart as every client does.
    static func export(_ stack: StackFixture, user: String) async throws -> SousArchive {
        let clients = SousClients(
            catalog: stack.client(Catalog.self), planner: stack.client(Planner.self), groceries: stack.client(Groceries.self),
            tracker: stack.client(Tracker.self), notifier: stack.client(Notifier.self))
        var archive = try await AccountArchive.export(clients, user: "someone", token: TestSessions.token(for: user))
        archive.exportedAt = instant
        return archive
    }

    /// The archive with what an import renumbers taken out: a recipe of the user's own is known
    /// by its name, records by their content, ids of diary entries, foods, journal entries and
    /// orders set to 0 (a cooked slot keeps whether it has its entry).
    static func content(_ archive: SousArchive) -> SousArchive {
        var names: [String: String] = [:]
        for recipe in archive.catalog.recipes where recipe.origin != .personal { names[recipe.id] = "own:" + (recipe.draft.name ?? "") }
        // Which diary entry a cooked slot has is renumbered; that it has one is content.
        let linked = Dictionary(archive.tracker.entries.map { ($0.id, Int64(0)) }, uniquingKeysWith: { first, _ in first })
        var content = archive.remapped(recipes: names, entries: linked)
        content.catalog.recipes = archive.catalog.recipes.map { recipe in
            var recipe = recipe
            recipe.id = names[recipe.id] ?? recipe.id
            return recipe
        }
        content.catalog.favorites = archive.catalog.favorites.map { names[$0] ?? $0 }.sorted()
        content.tracker.entries = content.tracker.entries.map { entry in
            var entry = entry
            entry.id = 0
            return entry
        }
        content.tracker.foods = content.tracker.foods.map { food in
            var food = food
            food.id = 0
            return food
        }
        content.tracker.journal = content.tracker.journal.map { item in
            var item = item
            item.entry.id = 0
            return item
        }
        content.groceries.orders = content.groceries.orders.map { order in
            var order = order
            order.id = 0
            return order
        }
        return content
    }

    @Test func everythingExportedImportsIntoAnEmptyAccountWithTheSameContent() async throws {
        let stack = try StackFixture.make(clock: .manual(at: Self.instant))
        try await withRunningServices(stack.hosts) { _ in
            var endpoints: [String] = []
            for host in stack.hosts { endpoints += ["--\(host.name)", host.boundEndpoints.requests] }
            try await Self.fill(stack, user: "ada")
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("sous-archive-\(UUID().uuidString).json").path
            defer { try? FileManager.default.removeItem(atPath: file) }

            let exported = await sous(["export", "--output", file] + endpoints + ["--user", "ada"])
            #expect(exported.code == 0 && exported.out.contains("2 recipes, 2 planned meals"), "\(exported.out)\(exported.err)")
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(text.contains(#""exportedAt" : "20"#) && text.contains(#""dueAt" : "2026-03-09T19:00:00Z""#), "instants in ISO 8601, UTC")
            let written = try ArchiveFile.decoder.decode(SousArchive.self, from: Data(contentsOf: URL(fileURLWithPath: file)))
            #expect(written.user == "ada" && written.version == ArchiveFormat.version)
            let ada = try await Self.export(stack, user: "ada")
            #expect(written.catalog == ada.catalog && written.tracker == ada.tracker, "the file holds what the services hold")
            #expect(ada.tracker.entries.count == 2 && ada.tracker.journal.first?.photo == Self.png && ada.groceries.orders.count == 1)
            #expect(ada.groceries.items.count == 2 && ada.groceries.checkedIngredients == ["onion"] && ada.groceries.items[1].checked)

            let imported = await sous(["import", file] + endpoints + ["--user", "bob"])
            #expect(imported.code == 0 && imported.out.hasPrefix("Imported 2 recipes"), "\(imported.out)\(imported.err)")
            let bo = try await Self.export(stack, user: "bob")
            #expect(Self.content(bo) == Self.content(ada))
            // Ada still has her recipe, so bo's copy got a new id, and his plan and list follow it.
            let toast = try #require(bo.catalog.recipes.first { $0.draft.name == "Garlic toast" })
            #expect(!ada.catalog.recipes.contains { $0.id == toast.id })
            #expect(bo.planner.slots.contains { $0.recipe == toast.id } && bo.groceries.recipes.contains { $0.recipe == toast.id })
            let cooked = try #require(bo.planner.slots.first { $0.recipe == toast.id }?.diaryEntry)
            #expect(bo.tracker.entries.contains { $0.id == cooked && $0.source.reference == toast.id }, "the cooked meal's entry, renumbered")
            let photo = try await stack.client(Catalog.self).call(CatalogAPI.photo, RecipeID(id: toast.id), user: "bob")
            #expect(photo.photo == Self.png)

            // Into an account that has data: refused, nothing changes.
            let again = await sous(["import", file] + endpoints + ["--user", "bob"])
            #expect(again.code == 7 && again.err.contains("import into an empty account"), "\(again.err)")
            #expect(try await Self.export(stack, user: "bob") == bo)
        }
    }

    /// Photos travel apart, one per message: an account whose journal photos together pass a
    /// message's 8 MiB (three of 3 MiB) exports and imports whole, a recipe's photo with it, and
    /// each service's own export leaves the bytes out.
    @Test func photosPastAMessagesSizeExportAndImportWhole() async throws {
        let stack = try StackFixture.make(clock: .manual(at: Self.instant))
        try await withRunningServices(stack.hosts) { _ in
            var endpoints: [String] = []
            for host in stack.hosts { endpoints += ["--\(host.name)", host.boundEndpoints.requests] }
            // Made once each (cheap to build: the test is about their size, not their content).
            let photos = Dictionary(
                uniqueKeysWithValues: (1...4).map { seed in
                    (UInt8(seed), Self.png.prefix(8) + Data(repeating: UInt8(seed), count: seed == 1 ? 1 << 20 : 3 << 20))
                })
            func photo(_ seed: UInt8) -> Data { photos[seed]! }
            let catalog = stack.client(Catalog.self, session: TestSessions.token(for: "ada"))
            let tracker = stack.client(Tracker.self, session: TestSessions.token(for: "ada"))
            let recipe = try await catalog.call(
                CatalogAPI.createRecipe,
                RecipeDraft(
                    name: "Big photo soup", summary: "Soup with a large photo.", servings: 2, prepMinutes: 5, cookMinutes: 20,
                    ingredients: [RecipeIngredient(ingredient: "onion", quantity: 1, unit: .piece)],
                    steps: [RecipeStep(description: "Cook it.", type: .cooking)], photo: photo(1)))
            for seed: UInt8 in [2, 3, 4] {
                _ = try await tracker.call(
                    CoeliacAPI.addEntry, JournalEntryDraft(title: "Lunch \(seed)", photo: photo(seed), date: Self.today))
            }
            let own = try await stack.client(Tracker.self).call(TrackerAPI.exportArchive, Empty(), user: "ada")
            #expect(own.journal.allSatisfy { $0.photo == nil && $0.entry.hasPhoto }, "the service's own export leaves the bytes out")
            let ownRecipes = try await stack.client(Catalog.self).call(CatalogAPI.exportArchive, Empty(), user: "ada").recipes
            #expect(ownRecipes.first { $0.id == recipe.id }.map { $0.draft.photo == nil && $0.photo?.bytes == photo(1).count } == true)

            let file = FileManager.default.temporaryDirectory.appendingPathComponent("sous-archive-\(UUID().uuidString).json").path
            defer { try? FileManager.default.removeItem(atPath: file) }
            let exported = await sous(["export", "--output", file] + endpoints + ["--user", "ada"])
            #expect(exported.code == 0, "\(exported.out)\(exported.err)")
            let written = try ArchiveFile.decoder.decode(SousArchive.self, from: Data(contentsOf: URL(fileURLWithPath: file)))
            #expect(written.catalog.recipes.first { $0.id == recipe.id }?.draft.photo == photo(1))
            #expect(Set(written.tracker.journal.compactMap(\.photo)) == [photo(2), photo(3), photo(4)])

            let imported = await sous(["import", file] + endpoints + ["--user", "bob"])
            #expect(imported.code == 0, "\(imported.out)\(imported.err)")
            let bob = try await Self.export(stack, user: "bob")
            let copy = try #require(bob.catalog.recipes.first { $0.draft.name == "Big photo soup" })
            #expect(copy.draft.photo == photo(1))
            #expect(Set(bob.tracker.journal.compactMap(\.photo)) == [photo(2), photo(3), photo(4)])
            #expect(bob.tracker.journal.allSatisfy { $0.entry.photoBytes == photo(2).count })
        }
    }

    /// Instants are written as ISO 8601 with the wire's nanoseconds and read back to the same
    /// value; an archive with seconds since 1970 (as older ones have) still reads.
    @Test func archiveInstantsAreISO8601TextThatReadsBackExactly() throws {
        struct Stamped: Codable, Equatable { var at: Date }
        for seconds in [1_773_136_800.0, 1_773_136_800.25, 1_795_882_939.906098, -86_400.5, 253_402_300_799.0] {
            // Each instant as a service sends it: through the MessagePack timestamp.
            let original = Stamped(at: Date(timeIntervalSince1970: seconds))
            let sent = try MessagePackDecoder().decode(Stamped.self, from: MessagePackEncoder().encode(original))
            let json = try ArchiveFile.encoder.encode(sent)
            #expect(try ArchiveFile.decoder.decode(Stamped.self, from: json) == sent, "\(String(decoding: json, as: UTF8.self))")
        }
        let quarter = try ArchiveFile.encoder.encode(Stamped(at: Date(timeIntervalSince1970: 1_773_167_400.25)))
        #expect(String(decoding: quarter, as: UTF8.self).contains(#""2026-03-10T18:30:00.25Z""#))
        #expect(try ArchiveFile.decoder.decode(Stamped.self, from: Data(#"{"at": 1773167400.25}"#.utf8)).at.timeIntervalSince1970 == 1_773_167_400.25)
        for bad in [#""2026-03-10T18:30:00.+5Z""#, #""2026-03-10T18:30:00.1234567890Z""#, #""yesterday""#, #""2026-03-10T18:30:00""#] {
            #expect(throws: DecodingError.self, "\(bad)") { try ArchiveFile.decoder.decode(Stamped.self, from: Data(#"{"at": \#(bad)}"#.utf8)) }
        }
    }

    @Test func aNewerOrBrokenArchiveIsRefusedAndNothingIsImported() async throws {
        let stack = try StackFixture.make(clock: .manual(at: Self.instant))
        try await withRunningServices(stack.hosts) { _ in
            var endpoints: [String] = []
            for host in stack.hosts { endpoints += ["--\(host.name)", host.boundEndpoints.requests] }
            try await Self.fill(stack, user: "ada")
            let archive = try await Self.export(stack, user: "ada")
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("sous-archive-\(UUID().uuidString).json").path
            defer { try? FileManager.default.removeItem(atPath: file) }
            func importing(_ archive: SousArchive) async throws -> CLIResult {
                try ArchiveFile.encoder.encode(archive).write(to: URL(fileURLWithPath: file))
                return await sous(["import", file] + endpoints + ["--user", "adam"])
            }
            var newer = archive
            newer.version = ArchiveFormat.version + 1
            let refused = try await importing(newer)
            #expect(refused.code == 4 && refused.err.contains("from a newer Sous") && refused.err.contains("archive.version"), "\(refused.err)")

            // A bad record in the last part checked: the parts before it are not written either.
            var broken = archive
            broken.notifier.log.append(broken.notifier.log[0])
            let twice = try await importing(broken)
            #expect(twice.code == 4 && twice.err.contains("archive.log.1"), "\(twice.err)")
            var absurd = archive
            absurd.tracker.entries[0].grams = 1e9
            let grams = try await importing(absurd)
            #expect(grams.code == 4 && grams.err.contains("archive.entries.0.grams"), "\(grams.err)")
            var hostilePhoto = archive
            hostilePhoto.catalog.recipes[0].draft.photo = Data("<svg/>".utf8)
            let photo = try await importing(hostilePhoto)
            #expect(photo.code == 4 && photo.err.contains("archive.recipes.0.draft.photo"), "\(photo.err)")
            try Data("{\"format\": \"something else\"}".utf8).write(to: URL(fileURLWithPath: file))
            #expect(await sous(["import", file] + endpoints + ["--user", "adam"]).code == 4)

            let cy = try await Self.export(stack, user: "adam")
            #expect(cy.catalog.recipes.isEmpty && cy.planner.slots.isEmpty && cy.groceries.recipes.isEmpty && cy.tracker.entries.isEmpty)
            #expect(cy.notifier.log.isEmpty && cy.planner.profile == .defaults)
        }
    }
}
