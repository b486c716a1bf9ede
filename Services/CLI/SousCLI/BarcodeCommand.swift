import ArgumentParser
import Foundation
import SousClient
import SousSchema
import SousWire

/// `sous barcode CODE`: look a product up, optionally log it.
struct BarcodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "barcode",
        abstract: "Look up a product by its EAN-13, EAN-8 or UPC-A barcode; --log --grams N adds it to the diary.",
        discussion: "Example: sous barcode 2100000000005 --log --grams 125 --meal dinner"
    )

    @Argument(help: "The barcode digits.") var code: String
    @Flag(help: "Log the product in the diary.") var log = false
    @Option(help: "Grams eaten (with --log).") var grams: Double?
    @Option(help: "breakfast, lunch, dinner or snack (with --log; default snack).") var meal: String?
    @Option(help: "The day, YYYY-MM-DD (with --log; default today).") var date: String?
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if log && grams == nil { throw ValidationError("--log needs --grams N") }
        if !log && (grams != nil || meal != nil || date != nil) { throw ValidationError("--grams, --meal and --date go with --log") }
    }

    func run() async throws {
        let client = global.client(Tracker.self)
        let product = try await client.call(TrackerAPI.product, BarcodeLookup(code: code), session: global.token)
        var entry: DiaryEntry?
        if log, let grams {
            let request = DiaryAdd(date: try date.map { try trackerDate($0) }, meal: try meal.map(trackerMeal) ?? .snack, grams: grams, barcode: code)
            entry = try await client.call(TrackerAPI.addEntry, request, session: global.token)
        }
        if global.json { return try printJSON(Reply(product: product, logged: entry)) }
        let console = Console.current
        console.out("\(product.name)\(product.brand.map { " — \($0)" } ?? "")\(product.quantity.map { " (\($0))" } ?? "")")
        console.out("Barcode \(product.code)")
        let n = product.per100g
        console.out(
            "Per 100 g: \(number(n.kcal, decimals: 0)) kcal, carbohydrates \(number(n.carbohydrates)) g, protein \(number(n.protein)) g, fat \(number(n.fat)) g"
        )
        if !product.allergens.isEmpty { console.out("Allergens: \(product.allergens.joined(separator: ", "))") }
        if product.source == "openfoodfacts" {
            let when = product.fetchedAt.map { " on \(ISO8601DateFormatter.string(from: $0, timeZone: .gmt, formatOptions: [.withFullDate]))" } ?? ""
            console.out("From Open Food Facts (ODbL), looked up\(when)")
        }
        if let entry {
            console.out(
                "Logged #\(entry.id): \(number(entry.grams)) g at \(entry.meal.rawValue) on \(entry.date), \(number(entry.totals.kcal, decimals: 0)) kcal."
            )
        }
    }

    struct Reply: Encodable {
        var product: Product
        var logged: DiaryEntry?
    }
}
