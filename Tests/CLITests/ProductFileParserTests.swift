import SousCLI
import SousSchema
import SousTestSupport
import Testing

/// The Open Food Facts file parser `sous operator import-products` uses.
@Suite(.closesItsSockets)
struct ProductFileParserTests {
    static let jsonLines = """
        {"code":"4006381333931","product_name":"Pen Biscuits","brands":"Stabilo Snacks","quantity":"200 g","allergens_tags":["en:gluten","en:milk"],"nutriments":{"energy-kcal_100g":480,"carbohydrates_100g":65.5,"proteins_100g":7,"fat_100g":"21.2"}}
        {"code":"4006381333932","product_name":"Wrong check digit","nutriments":{"energy-kcal_100g":1,"carbohydrates_100g":1,"proteins_100g":1,"fat_100g":1}}
        {"code":"96385074","nutriments":{"energy-kcal_100g":1,"carbohydrates_100g":1,"proteins_100g":1,"fat_100g":1}}

        not json at all
        {"code":"036000291452","product":{"product_name":"Oat Drink","nutriments":{"energy-kcal_100g":46,"carbohydrates_100g":6.7,"proteins_100g":1,"fat_100g":1.5}}}
        {"code":"2900000000001","product_name":"Mystery","nutriments":{"energy-kcal_100g":"lots","carbohydrates_100g":1,"proteins_100g":1,"fat_100g":1}}
        """

    @Test func jsonLinesAreParsedAndBadRowsCountedWithReasons() throws {
        let (products, rejections) = Self.parse(Self.jsonLines)
        #expect(products.map(\.code) == ["4006381333931", "036000291452"])
        #expect(
            products[0]
                == Product(
                    code: "4006381333931", name: "Pen Biscuits", brand: "Stabilo Snacks", quantity: "200 g",
                    per100g: Macros(kcal: 480, carbohydrates: 65.5, protein: 7, fat: 21.2), allergens: ["en:gluten", "en:milk"]))
        #expect(products[1].name == "Oat Drink")
        #expect(rejections.map(\.line) == [2, 3, 5, 7])
        #expect(rejections[0].reason.contains("check digit") && rejections[1].reason.contains("product_name"))
        #expect(rejections[3].reason.contains("energy-kcal_100g"))
    }

    @Test func csvExportsAreTabOrCommaSeparated() {
        let tab =
            "code\tproduct_name\tbrands\tquantity\tallergens\tenergy-kcal_100g\tcarbohydrates_100g\tproteins_100g\tfat_100g\n"
            + "96385074\tRye Crackers\tNordic\t250 g\ten:gluten\t380\t70\t10\t6\n"
            + "96385075\tBad Digit\t\t\t\t1\t1\t1\t1\n"
            + "036000291452\tHoney\t\t\t\t304\t82.4\t-0.3\t0\n"
        let (fromTabs, tabRejections) = Self.parse(tab)
        #expect(fromTabs.map(\.name) == ["Rye Crackers"] && fromTabs[0].allergens == ["en:gluten"] && fromTabs[0].brand == "Nordic")
        #expect(tabRejections.map(\.line) == [3, 4])
        let comma =
            "code,product_name,energy-kcal_100g,carbohydrates_100g,proteins_100g,fat_100g\r\n"
            + "96385074,\"Crackers, \"\"rye\"\"\",380,70,10,6\r\n"
        let (fromCommas, commaRejections) = Self.parse(comma)
        #expect(fromCommas.map(\.name) == ["Crackers, \"rye\""] && commaRejections.isEmpty)
    }

    /// A row with its energy only in kilojoules (as many Open Food Facts rows are) is read as
    /// kJ ÷ 4.184 kcal, to a tenth.
    @Test func energyGivenOnlyInKilojoulesIsConvertedToKilocalories() {
        let lines = """
            {"code":"96385074","product_name":"Rye crackers","nutriments":{"energy-kj_100g":1590,"carbohydrates_100g":70,"proteins_100g":10,"fat_100g":6}}
            {"code":"036000291452","product_name":"Honey","nutriments":{"energy_100g":"1272","carbohydrates_100g":82.4,"proteins_100g":0.3,"fat_100g":0}}
            {"code":"4006381333931","product_name":"Both","nutriments":{"energy-kcal_100g":480,"energy-kj_100g":1,"carbohydrates_100g":65,"proteins_100g":7,"fat_100g":21}}
            {"code":"2900000000001","product_name":"Too much","nutriments":{"energy-kj_100g":40000,"carbohydrates_100g":1,"proteins_100g":1,"fat_100g":1}}
            """
        let (products, rejections) = Self.parse(lines)
        #expect(products.map(\.per100g.kcal) == [380.0, 304.0, 480.0], "1590 / 4.184 = 380.02, 1272 / 4.184 = 304.02; kcal wins when both are given")
        #expect(rejections.map(\.line) == [4] && rejections[0].reason.contains("energy-kj_100g is out of range"))
    }

    static func parse(_ text: String) -> ([Product], [ProductFileParser.Rejection]) {
        var parser = ProductFileParser()
        var products: [Product] = []
        var rejections: [ProductFileParser.Rejection] = []
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            switch parser.parse(line: String(line), number: index + 1) {
            case .product(let product): products.append(product)
            case .rejected(let rejection): rejections.append(rejection)
            case .skipped: break
            }
        }
        return (products, rejections)
    }
}
