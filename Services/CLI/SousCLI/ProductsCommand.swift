import ArgumentParser
import Foundation
import SousClient
import SousSchema
import SousWire

/// `sous products add`: a barcode product of your own.
struct ProductsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "products",
        abstract:
            "Add barcode products of your own (`sous barcode CODE` looks one up; operators import shared ones with `sous operator import-products`).",
        subcommands: [Add.self]
    )

    struct Add: AsyncParsableCommand, FlagsForFields {
        static let configuration = CommandConfiguration(
            abstract: "Add a product only you see, ahead of the shared one with the same code.",
            discussion: "Example: sous products add 4006381333931 --name \"Oat drink\" --brand Oatly --kcal 46 --carbs 6.7 --protein 1 --fat 1.5"
        )

        @Argument(help: "The barcode (EAN-13, EAN-8 or UPC-A).") var code: String
        @Option(help: "The product's name.") var name: String
        @Option(help: "The brand.") var brand: String?
        @Option(help: "The package size as printed, e.g. \"1 l\".") var quantity: String?
        @Option(name: .customLong("allergen"), help: "An allergen it declares (repeatable).") var allergens: [String] = []
        @OptionGroup var nutrition: NutritionOptions
        @OptionGroup var global: GlobalOptions

        static let flagsForFields = NutritionOptions.flagsForFields.merging(["allergens": "--allergen"]) { nutrition, _ in nutrition }

        func run() async throws {
            guard let macros = try nutrition.macros() else { throw ValidationError("give --kcal, --carbs, --protein and --fat per 100 g") }
            let product = Product(code: code, name: name, brand: brand, quantity: quantity, per100g: macros, allergens: allergens)
            let added = try await global.client(Tracker.self).call(TrackerAPI.addProduct, product, session: global.token)
            if global.json { return try printJSON(added) }
            Console.current.out(
                "Added \(added.code) \(added.name)\(added.brand.map { " (\($0))" } ?? ""): \(number(added.per100g.kcal, decimals: 0)) kcal per 100 g."
            )
        }
    }
}

/// `sous operator import-products FILE`: Open Food Facts data into the tracker's shared products.
struct ImportProductsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-products",
        abstract:
            "Import an Open Food Facts file: JSON lines (one product per line, as the API returns it) or the CSV export (tab or comma separated).",
        discussion: """
            The file is parsed here and sent in batches to the tracker's products.import method; a product \
            whose code is already known is replaced. Rows without a code or name, with a wrong check digit, \
            or with missing or non-numeric energy-kcal/carbohydrates/proteins/fat per 100 g are skipped and \
            counted by reason. Progress goes to stderr.
            """
    )

    @Argument(help: "The file to read.") var file: String
    @Option(help: "Products per request (1–1000).") var batchSize = 500
    @Option(help: "A label stored with each product.") var source = "openfoodfacts"
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard (1...1000).contains(batchSize) else { throw ValidationError("--batch-size must be 1 to 1000") }
    }

    func run() async throws {
        let data = try readFile(file)
        let client = global.client(Tracker.self)
        let console = Console.current
        var lines = String(decoding: data, as: UTF8.self).split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        // "\r\n" is one Character, so CRLF files split like LF ones; a final newline adds no line.
        if lines.last?.isEmpty == true { lines.removeLast() }
        var parser = ProductFileParser()
        var batch: [Product] = []
        var report = Report(file: file)
        func send() async throws {
            guard !batch.isEmpty else { return }
            let result = try await client.call(TrackerAPI.importProducts, ProductImport(source: source, products: batch), session: global.token)
            report.added += result.added
            report.replaced += result.replaced
            batch.removeAll(keepingCapacity: true)
            let percent = report.linesRead * 100 / max(lines.count, 1)
            console.err(
                "  \(report.linesRead)/\(lines.count) lines (\(percent)%): \(report.added) added, \(report.replaced) replaced, \(report.skipped) skipped"
            )
        }
        for (index, line) in lines.enumerated() {
            report.linesRead = index + 1
            switch parser.parse(line: String(line), number: index + 1) {
            case .product(let product): batch.append(product)
            case .rejected(let rejection):
                report.skipped += 1
                // Group reasons by their kind ("missing product_name", "check digit …").
                let kind = rejection.reason.split(separator: ":").first.map(String.init) ?? rejection.reason
                report.reasons[kind.hasPrefix("check digit") ? "wrong check digit" : kind, default: 0] += 1
                if report.examples.count < 5 { report.examples.append("line \(rejection.line): \(rejection.reason)") }
            case .skipped: break
            }
            if batch.count >= batchSize { try await send() }
        }
        try await send()
        if global.json { return try printJSON(report) }
        console.out(
            "Imported \(report.added + report.replaced) products from \(file) (\(report.added) new, \(report.replaced) replaced); skipped \(report.skipped) rows."
        )
        for (reason, count) in report.reasons.sorted(by: { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }) {
            console.out("  \(count) × \(reason)")
        }
        if !report.examples.isEmpty { console.out("First skipped rows:\n  " + report.examples.joined(separator: "\n  ")) }
    }

    struct Report: Encodable {
        var file: String
        var linesRead = 0
        var added = 0
        var replaced = 0
        var skipped = 0
        var reasons: [String: Int] = [:]
        var examples: [String] = []
    }
}
