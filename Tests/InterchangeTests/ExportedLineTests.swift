import Testing

@testable import SousInterchange

/// How an exported ingredient line names more than one piece, as a cook would write it.
struct ExportedLineTests {
    @Test(arguments: [
        ("lemon", "lemons"), ("garlic clove", "garlic cloves"), ("tomato", "tomatoes"), ("berry", "berries"), ("bay leaf", "bay leaves"),
        ("radish", "radishes"), ("box", "boxes"), ("turkey", "turkeys"), ("chickpeas", "chickpeas"), ("brussels sprouts", "brussels sprouts"),
        ("potato (floury)", "potatoes (floury)"), ("egg, large", "eggs, large"),
    ])
    func moreThanOnePieceIsPlural(singular: String, plural: String) {
        #expect(SchemaRecipe.plural(singular) == plural)
    }

    @Test func onlyAnAddressGoesOutAsAnImage() {
        #expect(SchemaRecipe.absoluteURL("https://example.org/soup.jpg") == "https://example.org/soup.jpg")
        #expect(SchemaRecipe.absoluteURL("tomato-lentil-soup.jpg") == nil)
        #expect(SchemaRecipe.absoluteURL("file:///etc/passwd") == nil)
    }
}
