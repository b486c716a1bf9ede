import CatalogService
import CatalogTesting
import Foundation
import SousInterchange
import SousRuntime
import SousSchema
import SousTestSupport
import SousWire
import Testing

/// Notes, variations, tags and photos on a user's own recipes and personal versions.
@Suite(.closesItsSockets)
struct RecipeNotesTagsPhotosTests {
    /// A PNG's signature followed by filler: what the catalog checks is the signature.
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data((0..<2000).map { UInt8($0 % 251) })
    static let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: 7, count: 500)
    static let soup = "tomato-lentil-soup"

    @Test func aPersonalVersionKeepsNotesVariationsTagsAndAPhotoForItsOwnerOnly() async throws {
        try await withCatalog { _, client in
            let changes = RecipeDraft(
                notes: "  Less salt next time.\n\nDouble the garlic.  ", variations: ["With chickpeas instead of lentils", " Add smoked paprika "],
                tags: ["Weeknight", "freezer-friendly", "weeknight", "  family   dinner "], photo: Self.png)
            let mine = try await client.call(CatalogAPI.editRecipe, RecipeEdit(id: Self.soup, changes: changes), user: "ada")
            #expect(mine.origin == .personal && mine.basedOn == Self.soup)
            #expect(mine.notes == "Less salt next time.\n\nDouble the garlic.", "trimmed, line breaks kept")
            #expect(mine.variations == ["With chickpeas instead of lentils", "Add smoked paprika"])
            #expect(mine.tags == ["weeknight", "freezer-friendly", "family dinner"], "lower case, once each, spaces made one")
            #expect(mine.photo == RecipePhotoInfo(type: "png", bytes: Self.png.count))
            let photo = try await client.call(CatalogAPI.photo, RecipeID(id: Self.soup), user: "ada")
            #expect(photo.photo == Self.png && photo.type == "png")

            // Nobody else sees them: the built-in has none, and bo gets no photo.
            let original = try await client.call(CatalogAPI.getRecipe, RecipeLookup(id: Self.soup), user: "bo")
            #expect(original.notes == nil && original.variations.isEmpty && original.tags.isEmpty && original.photo == nil)
            let none = await #expect(throws: ServiceError.self) { try await client.call(CatalogAPI.photo, RecipeID(id: Self.soup), user: "bo") }
            #expect(none?.code == .notFound && none?.field == "id")

            // Tags are searchable: as a filter and as words.
            let tagged = try await client.call(CatalogAPI.searchRecipes, RecipeSearch(pageSize: 100, tags: ["Family Dinner"]), user: "ada")
            #expect(tagged.recipes.map(\.id) == [Self.soup] && tagged.recipes[0].tags.contains("weeknight") && tagged.recipes[0].hasPhoto)
            #expect(try await client.call(CatalogAPI.searchRecipes, RecipeSearch(pageSize: 100, tags: ["family dinner"]), user: "bo").recipes.isEmpty)
            let both = RecipeSearch(pageSize: 100, tags: ["weeknight", "vegan"])
            #expect(try await client.call(CatalogAPI.searchRecipes, both, user: "ada").recipes.isEmpty, "every tag is required")
            let words = try await client.call(CatalogAPI.searchRecipes, RecipeSearch(query: "freezer"), user: "ada")
            #expect(words.recipes.map(\.id).contains(Self.soup))
            #expect(
                !(try await client.call(CatalogAPI.searchRecipes, RecipeSearch(query: "freezer"), user: "bo").recipes.map(\.id).contains(Self.soup)))

            // Editing again: tags replaced, notes removed by an empty text, the photo removed.
            let edited = try await client.call(
                CatalogAPI.editRecipe, RecipeEdit(id: Self.soup, changes: RecipeDraft(notes: "", tags: ["soup night"], removePhoto: true)),
                user: "ada")
            #expect(edited.notes == nil && edited.tags == ["soup night"] && edited.photo == nil && edited.variations.count == 2)
            let gone = await #expect(throws: ServiceError.self) { try await client.call(CatalogAPI.photo, RecipeID(id: Self.soup), user: "ada") }
            #expect(gone?.code == .notFound)
            #expect(try await client.call(CatalogAPI.searchRecipes, RecipeSearch(query: "freezer"), user: "ada").recipes.isEmpty == true)
        }
    }

    @Test func badNotesTagsAndPhotosAreRefusedNamingTheFieldAndNothingIsWritten() async throws {
        try await withCatalog { _, client in
            let created = try await client.call(
                CatalogAPI.createRecipe, RecipeDraft(name: "Toast", summary: "Bread, toasted.", photo: Self.jpeg, removePhoto: nil), user: "ada")
            #expect(created.photo?.type == "jpeg")
            let cases: [(RecipeDraft, String)] = [
                (RecipeDraft(photo: Data("GIF89a not a photo we keep".utf8)), "changes.photo"),
                (RecipeDraft(photo: Data()), "changes.photo"),
                (RecipeDraft(photo: Self.png + Data(count: RecipeLimits.maxPhotoBytes)), "changes.photo"),
                (RecipeDraft(photo: Self.png, removePhoto: true), "changes.removePhoto"),
                (RecipeDraft(tags: ["a|b"]), "changes.tags.0"),
                (RecipeDraft(tags: ["ok", "%"]), "changes.tags.1"),
                (RecipeDraft(tags: [String(repeating: "x", count: 41)]), "changes.tags.0"),
                (RecipeDraft(tags: (0...20).map { "tag\($0)" }), "changes.tags"),
                (RecipeDraft(variations: ["fine", "   "]), "changes.variations.1"),
                (RecipeDraft(variations: Array(repeating: "v", count: 21)), "changes.variations"),
                (RecipeDraft(notes: String(repeating: "n", count: RecipeLimits.maxNotesCharacters + 1)), "changes.notes"),
            ]
            for (changes, field) in cases {
                let error = await #expect(throws: ServiceError.self) {
                    try await client.call(
                        CatalogAPI.editRecipe, RecipeEdit(id: created.id, changes: RecipeDraft(name: "Changed") + changes), user: "ada")
                }
                #expect(error?.code == .badRequest && error?.field == field, "\(field): \(String(describing: error))")
            }
            let after = try await client.call(CatalogAPI.getRecipe, RecipeLookup(id: created.id), user: "ada")
            #expect(after.name == "Toast" && after.photo?.type == "jpeg", "nothing written")
            #expect(try await client.call(CatalogAPI.photo, RecipeID(id: created.id), user: "ada").photo == Self.jpeg)
            let search = await #expect(throws: ServiceError.self) {
                try await client.call(CatalogAPI.searchRecipes, RecipeSearch(tags: ["no|pipes"]), user: "ada")
            }
            #expect(search?.code == .badRequest && search?.field == "tags.0")

            // Deleting the recipe deletes its photo.
            _ = try await client.call(CatalogAPI.deleteRecipe, RecipeID(id: created.id), user: "ada")
            let deleted = await #expect(throws: ServiceError.self) { try await client.call(CatalogAPI.photo, RecipeID(id: created.id), user: "ada") }
            #expect(deleted?.code == .notFound)
        }
    }

    @Test func aSavedCommunityCopyKeepsThePhoto() async throws {
        try await withCatalog { _, client in
            let created = try await client.call(
                CatalogAPI.createRecipe, RecipeDraft(name: "Shared toast", summary: "Toast for all.", tags: ["breakfast"], photo: Self.png),
                user: "ada")
            _ = try await client.call(CatalogAPI.share, RecipeID(id: created.id), user: "ada")
            let copy = try await client.call(CatalogAPI.saveCommunity, RecipeID(id: created.id), user: "bo")
            #expect(copy.id != created.id && copy.tags == ["breakfast"] && copy.photo?.bytes == Self.png.count)
            #expect(try await client.call(CatalogAPI.photo, RecipeID(id: copy.id), user: "bo").photo == Self.png)
        }
    }

    /// A personal version with everything on it, exported as JSON-LD (the photo as a data URL)
    /// and imported back: the same recipe.
    @Test func anExportWithNotesTagsAndAPhotoImportsBackToTheSameContent() async throws {
        try await withCatalog { _, client in
            let changes = RecipeDraft(
                notes: "Line one.\n\nLine three, after a blank one.", variations: ["Vegan: skip the yoghurt"], tags: ["weeknight", "batch"],
                photo: Self.png)
            let mine = try await client.call(CatalogAPI.editRecipe, RecipeEdit(id: Self.soup, changes: changes), user: "ada")
            let photo = try await client.call(CatalogAPI.photo, RecipeID(id: Self.soup), user: "ada")
            let document = String(decoding: SchemaRecipe(mine, photo: photo).jsonLD(), as: UTF8.self)
            #expect(document.contains("data:image/png;base64,") && document.contains("\"keywords\": \"weeknight, batch\""))

            let report = try await client.call(CatalogAPI.importRecipes, RecipeImport(document: document), user: "bo")
            let imported = try #require(report.imported.first, "\(report.unmatched)")
            #expect(imported.unmappedFields.isEmpty)
            let back = try await client.call(CatalogAPI.getRecipe, RecipeLookup(id: imported.id), user: "bo")
            #expect(back.name == mine.name && back.summary == mine.summary && back.servings == mine.servings)
            #expect(back.prepMinutes == mine.prepMinutes && back.cookMinutes == mine.cookMinutes)
            #expect(back.ingredients.map(\.ingredient) == mine.ingredients.map(\.ingredient))
            #expect(zip(back.ingredients, mine.ingredients).allSatisfy { abs($0.quantity - $1.quantity) < 0.001 && $0.unit == $1.unit })
            #expect(back.steps.map(\.description) == mine.steps.map(\.description))
            #expect(back.equipment == mine.equipment && back.dishTypes == mine.dishTypes)
            #expect(back.notes == mine.notes && back.variations == mine.variations && back.tags == mine.tags)
            #expect(try await client.call(CatalogAPI.photo, RecipeID(id: imported.id), user: "bo").photo == Self.png)
        }
    }
}

extension RecipeNotesTagsPhotosTests {
    /// An embedded image that is no image, or not base64, is not the photo; it is not dropped
    /// silently either: the notes say so.
    @Test func anEmbeddedImageThatIsNotAPhotoIsRefusedOrNoted() async throws {
        try await withCatalog { _, client in
            func document(_ image: String) -> String {
                #"{"@type": "Recipe", "name": "Toast", "recipeIngredient": ["2 slices sandwich bread"], "image": ["\#(image)"]}"#
            }
            let unread = try await client.call(CatalogAPI.importRecipes, RecipeImport(document: document("data:image/png;base64,@@@")), user: "ada")
            let imported = try #require(unread.imported.first, "\(unread.unmatched)")
            #expect(imported.unmappedFields == ["image"])
            let recipe = try await client.call(CatalogAPI.getRecipe, RecipeLookup(id: imported.id), user: "ada")
            #expect(recipe.photo == nil && recipe.notes?.contains("1 embedded image that could not be read") == true, "\(recipe.notes ?? "")")
            // Base64 of something that is not an image: the photo check refuses the recipe.
            let text = "data:image/png;base64," + Data("not a picture".utf8).base64EncodedString()
            let refused = await #expect(throws: ServiceError.self) {
                try await client.call(CatalogAPI.importRecipes, RecipeImport(document: document(text)), user: "ada")
            }
            #expect(refused?.code == .badRequest && refused?.field == "document" && refused?.message.contains("not a JPEG, PNG") == true)
        }
    }
}

extension RecipeDraft {
    /// `lhs` with every field `rhs` sets.
    static func + (lhs: RecipeDraft, rhs: RecipeDraft) -> RecipeDraft {
        var result = lhs
        if let photo = rhs.photo { result.photo = photo }
        if let remove = rhs.removePhoto { result.removePhoto = remove }
        if let tags = rhs.tags { result.tags = tags }
        if let variations = rhs.variations { result.variations = variations }
        if let notes = rhs.notes { result.notes = notes }
        return result
    }
}
