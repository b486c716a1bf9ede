import ArgumentParser
import Foundation
import MessagePack
import SousSchema

/// MessagePack vs Foundation JSON, encode + decode of one recipe-sized message.
struct CodecBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "codec", abstract: "MessagePack vs JSON for a recipe-sized message.")

    @Option(help: "Timed encode+decode round trips per codec.") var iterations = 20_000
    @Flag(help: "Only encode and decode with MessagePack, untimed, \(Self.profilingRounds) times (a loop to run under perf).")
    var profileMessagePack = false
    static let profilingRounds = 500_000
    @Flag(help: "Like --profile-message-pack, decoding only.") var profileDecoding = false

    func run() throws {
        let recipe = Self.sampleRecipe()
        let messagePack = MessagePackEncoder()
        let messagePackDecoder = MessagePackDecoder()
        if profileDecoding {
            let packed = try messagePack.encode(recipe)
            for _ in 0..<Self.profilingRounds { _ = try messagePackDecoder.decode(RecipeDetail.self, from: packed) }
            return
        }
        if profileMessagePack {
            for _ in 0..<Self.profilingRounds { _ = try messagePackDecoder.decode(RecipeDetail.self, from: messagePack.encode(recipe)) }
            return
        }
        let json = JSONEncoder()
        let jsonDecoder = JSONDecoder()
        let packed = try messagePack.encode(recipe)
        let text = try json.encode(recipe)
        let decoded = try messagePackDecoder.decode(RecipeDetail.self, from: packed)
        precondition(decoded == recipe, "MessagePack round trip changed the recipe")

        var pack = Samples(name: "MessagePack encode+decode (\(packed.count) B)")
        var jsonSamples = Samples(name: "JSON encode+decode (\(text.count) B)")
        for _ in 0..<1000 {
            _ = try messagePackDecoder.decode(RecipeDetail.self, from: messagePack.encode(recipe))
            _ = try jsonDecoder.decode(RecipeDetail.self, from: json.encode(recipe))
        }
        for _ in 0..<iterations {
            try pack.record { _ = try messagePackDecoder.decode(RecipeDetail.self, from: messagePack.encode(recipe)) }
            try jsonSamples.record { _ = try jsonDecoder.decode(RecipeDetail.self, from: json.encode(recipe)) }
        }
        var encodeOnly = Samples(name: "MessagePack encode only")
        var decodeOnly = Samples(name: "MessagePack decode only")
        var jsonEncodeOnly = Samples(name: "JSON encode only")
        var jsonDecodeOnly = Samples(name: "JSON decode only")
        for _ in 0..<iterations {
            try encodeOnly.record { _ = try messagePack.encode(recipe) }
            try decodeOnly.record { _ = try messagePackDecoder.decode(RecipeDetail.self, from: packed) }
            try jsonEncodeOnly.record { _ = try json.encode(recipe) }
            try jsonDecodeOnly.record { _ = try jsonDecoder.decode(RecipeDetail.self, from: text) }
        }
        report(
            "Codec: one RecipeDetail (12 ingredients, 6 steps)", [jsonSamples, pack, jsonEncodeOnly, encodeOnly, jsonDecodeOnly, decodeOnly],
            baseline: jsonSamples)
    }

    static func sampleRecipe() -> RecipeDetail {
        let ingredients = (0..<12).map { index in
            RecipeIngredientDetail(
                ingredient: "ingredient-\(index)", name: "Ingredient number \(index)", quantity: Double(index) * 12.5 + 1, unit: .g,
                grams: Double(index) * 12.5 + 1, cost: Double(index) * 0.37, category: ShoppingCategory.allCases[index % 10]
            )
        }
        let steps = (0..<6).map { index in
            RecipeStep(
                description: "Step \(index): chop, stir and simmer the ingredients gently until everything smells wonderful.",
                minutes: index * 3, type: index < 2 ? .preparation : .cooking, ingredients: ["ingredient-\(index)", "ingredient-\(index + 1)"]
            )
        }
        return RecipeDetail(
            id: "tomato-lentil-soup", name: "Tomato and Red Lentil Soup",
            summary: "A thick, warming soup of red lentils simmered with tomatoes, carrot and cumin.", servings: 4, prepMinutes: 10, cookMinutes: 25,
            energyLevel: 3, equipment: [.stove], dishTypes: [.soup, .mainCourse], link: "https://sous.example/recipes/tomato-lentil-soup",
            image: "tomato-lentil-soup.jpg", steps: steps, ingredients: ingredients, people: 4, diets: [.vegan, .vegetarian, .halal],
            allergens: [.celery], contains: [], cost: 4.83, costPerServing: 1.2075,
            nutritionPerServing: Nutrition(kcal: 312.4, carbohydrates: 48.1, protein: 17.9, fat: 5.2, fibre: 9.8, sugar: 7.1, salt: 1.3),
            origin: .builtIn, owner: nil, basedOn: nil, shared: false, isFavorite: true, version: 1234
        )
    }
}
