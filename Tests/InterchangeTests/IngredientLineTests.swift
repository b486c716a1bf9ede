import SousInterchange
import SousSchema
import Testing

/// One ingredient line and how it should read.
struct IngredientRow: Sendable, CustomTestStringConvertible {
    var line: String
    var quantity: Double?
    var unit: ParsedUnit?
    var name: String
    var high: Double?
    var note: String?
    var package: PackageSize?

    init(
        _ line: String, _ quantity: Double?, _ unit: ParsedUnit?, _ name: String, high: Double? = nil, note: String? = nil,
        package: PackageSize? = nil
    ) {
        self.line = line
        self.quantity = quantity
        self.unit = unit
        self.name = name
        self.high = high
        self.note = note
        self.package = package
    }

    var testDescription: String { line }
}

/// Ingredient lines as people write them.
struct IngredientLineTests {
    /// The lines the module was asked to read.
    static let examplesFromTheBrief: [IngredientRow] = [
        IngredientRow("2 tbsp olive oil, finely chopped", 2, .tbsp, "olive oil", note: "finely chopped"),
        IngredientRow("1 (400 g) can chopped tomatoes", 1, .can, "chopped tomatoes", package: PackageSize(quantity: 400, unit: .g)),
        IngredientRow("½ cup milk", 0.5, .cup, "milk"),
        IngredientRow("1 1/2 cups flour", 1.5, .cup, "flour"),
        IngredientRow("1-2 cloves garlic, minced", 1, .clove, "garlic", high: 2, note: "minced"),
        IngredientRow("a pinch of salt", 1, .pinch, "salt"),
        IngredientRow("3 large eggs", 3, .piece, "eggs"),
        IngredientRow("200g spaghetti", 200, .g, "spaghetti"),
        IngredientRow("1 lb ground beef", 1, .lb, "ground beef"),
        IngredientRow("2 sticks butter", 2, .stick, "butter"),
        IngredientRow("1 bunch parsley", 1, .bunch, "parsley"),
        IngredientRow("salt and pepper to taste", nil, nil, "salt and pepper", note: "to taste"),
        IngredientRow("4 slices bread", 4, .slice, "bread"),
        IngredientRow("1.5 l water", 1.5, .l, "water"),
        IngredientRow("1½ tsp baking powder", 1.5, .tsp, "baking powder"),
        IngredientRow("2 x 400g tins beans", 2, .can, "beans", package: PackageSize(quantity: 400, unit: .g)),
        IngredientRow("Juice of 1 lemon", 1, .piece, "lemon", note: "Juice"),
        IngredientRow("1 fl oz cream", 1, .flOz, "cream"),
        IngredientRow("8 oz cheddar, grated", 8, .oz, "cheddar", note: "grated"),
    ]

    /// Every unit, in the spellings recipes use.
    static let everyUnitAndItsSpellings: [IngredientRow] = [
        IngredientRow("2 Tablespoons Sugar", 2, .tbsp, "sugar"),
        IngredientRow("1 T butter", 1, .tbsp, "butter"),
        IngredientRow("3 T. olive oil", 3, .tbsp, "olive oil"),
        IngredientRow("1 t vanilla extract", 1, .tsp, "vanilla extract"),
        IngredientRow("1 tsp. ground cumin", 1, .tsp, "ground cumin"),
        IngredientRow("2 teaspoons dried oregano", 2, .tsp, "dried oregano"),
        IngredientRow("1 c. sugar", 1, .cup, "sugar"),
        IngredientRow("6 fluid ounces orange juice", 6, .flOz, "orange juice"),
        IngredientRow("1 pint heavy cream", 1, .pint, "heavy cream"),
        IngredientRow("2 qt chicken stock", 2, .quart, "chicken stock"),
        IngredientRow("1 gallon water", 1, .gallon, "water"),
        IngredientRow("16 ounces pasta", 16, .oz, "pasta"),
        IngredientRow("2 lbs potatoes, peeled and cubed", 2, .lb, "potatoes", note: "peeled and cubed"),
        IngredientRow("1 pound carrots", 1, .lb, "carrots"),
        IngredientRow("500 grams flour", 500, .g, "flour"),
        IngredientRow("250 gr butter", 250, .g, "butter"),
        IngredientRow("1,5 kg potatoes", 1.5, .kg, "potatoes"),
        IngredientRow("100 mg saffron threads", 100, .mg, "saffron threads"),
        IngredientRow("750 millilitres vegetable stock", 750, .ml, "vegetable stock"),
        IngredientRow("250ml double cream", 250, .ml, "double cream"),
        IngredientRow("5 cl rum", 5, .cl, "rum"),
        IngredientRow("2 dl cream", 2, .dl, "cream"),
        IngredientRow("1 litre chicken stock", 1, .l, "chicken stock"),
        IngredientRow("2 pinches salt", 2, .pinch, "salt"),
        IngredientRow("1 can coconut milk", 1, .can, "coconut milk"),
        IngredientRow("3 pcs star anise", 3, .piece, "star anise"),
        IngredientRow("2 pieces ginger", 2, .piece, "ginger"),
        IngredientRow("1 whole chicken", 1, .piece, "chicken"),
        IngredientRow("4 whole cloves", 4, .piece, "cloves"),
        IngredientRow("1 dash Worcestershire sauce", 1, .dash, "worcestershire sauce"),
        IngredientRow("1 jar (24 oz) marinara sauce", 1, .jar, "marinara sauce", package: PackageSize(quantity: 24, unit: .oz)),
        IngredientRow("2 packets taco seasoning", 2, .pack, "taco seasoning"),
        IngredientRow("3 sprigs thyme", 3, .sprig, "thyme"),
        IngredientRow("1 head garlic", 1, .head, "garlic"),
        IngredientRow("1 knob butter", 1, .knob, "butter"),
        IngredientRow("2 handfuls spinach", 2, .handful, "spinach"),
        IngredientRow("6 rashers streaky bacon", 6, .slice, "streaky bacon"),
        IngredientRow("2 stalks celery", 2, .stick, "celery"),
        IngredientRow("2 cans (15 oz each) kidney beans", 2, .can, "kidney beans", package: PackageSize(quantity: 15, unit: .oz)),
    ]

    /// Vulgar and slash fractions, mixed numbers, decimal commas, thousands, ranges.
    static let fractionsMixedNumbersAndRanges: [IngredientRow] = [
        IngredientRow("¼ tsp cayenne pepper", 0.25, .tsp, "cayenne pepper"),
        IngredientRow("¾ cup sugar", 0.75, .cup, "sugar"),
        IngredientRow("⅓ cup honey", 1.0 / 3, .cup, "honey"),
        IngredientRow("⅔ cup rice", 2.0 / 3, .cup, "rice"),
        IngredientRow("⅛ tsp nutmeg", 0.125, .tsp, "nutmeg"),
        IngredientRow("⅝ cup oats", 0.625, .cup, "oats"),
        IngredientRow("⅞ cup flour", 0.875, .cup, "flour"),
        IngredientRow("⅕ l milk", 0.2, .l, "milk"),
        IngredientRow("2 ⅜ cups water", 2.375, .cup, "water"),
        IngredientRow("1 ½ cups flour", 1.5, .cup, "flour"),
        IngredientRow("1\u{2044}2 cup sugar", 0.5, .cup, "sugar"),
        IngredientRow("3/4 cup yogurt", 0.75, .cup, "yogurt"),
        IngredientRow("1-1/2 cups milk", 1.5, .cup, "milk"),
        IngredientRow("1 to 2 tbsp honey", 1, .tbsp, "honey", high: 2),
        IngredientRow("2\u{2013}3 cloves garlic", 2, .clove, "garlic", high: 3),
        IngredientRow("½-1 tsp chili flakes", 0.5, .tsp, "chili flakes", high: 1),
        IngredientRow("1,000 ml water", 1000, .ml, "water"),
        IngredientRow("0,125 l cream", 0.125, .l, "cream"),
    ]

    /// A count of cans, tins or sticks of a given size.
    static let packageSizes: [IngredientRow] = [
        IngredientRow(
            "1 can (14 oz) diced tomatoes, drained", 1, .can, "diced tomatoes", note: "drained", package: PackageSize(quantity: 14, unit: .oz)),
        IngredientRow("2 (15-ounce) cans black beans, rinsed", 2, .can, "black beans", note: "rinsed", package: PackageSize(quantity: 15, unit: .oz)),
        IngredientRow("2 x 400 g tins chickpeas, drained", 2, .can, "chickpeas", note: "drained", package: PackageSize(quantity: 400, unit: .g)),
        IngredientRow("1 stick (113 g) butter, softened", 1, .stick, "butter", note: "softened", package: PackageSize(quantity: 113, unit: .g)),
    ]

    /// Size words dropped, notes from commas and parentheses.
    static let sizeWordsNotesAndParentheses: [IngredientRow] = [
        IngredientRow("1 medium onion, diced", 1, .piece, "onion", note: "diced"),
        IngredientRow("2 extra-large eggs", 2, .piece, "eggs"),
        IngredientRow("2 large cans tomatoes", 2, .can, "tomatoes"),
        IngredientRow("2 tbsp extra virgin olive oil", 2, .tbsp, "extra virgin olive oil"),
        IngredientRow("1 cup whole milk", 1, .cup, "whole milk"),
        IngredientRow("2 cups (480 ml) milk", 2, .cup, "milk", note: "480 ml"),
        IngredientRow("1 onion (finely chopped)", 1, .piece, "onion", note: "finely chopped"),
        IngredientRow("1 tbsp olive oil (optional)", 1, .tbsp, "olive oil", note: "optional"),
        IngredientRow("fresh basil leaves, to serve", nil, nil, "fresh basil leaves", note: "to serve"),
    ]

    /// Lines without a number, and numbers that are not quantities.
    static let linesWithoutACount: [IngredientRow] = [
        IngredientRow("Salt", nil, nil, "salt"),
        IngredientRow("pinch of nutmeg", 1, .pinch, "nutmeg"),
        IngredientRow("A bunch of coriander", 1, .bunch, "coriander"),
        IngredientRow("Zest of 2 limes", 2, .piece, "limes", note: "Zest"),
        IngredientRow("a handful of basil", 1, .handful, "basil"),
        IngredientRow("small bunch coriander, chopped", 1, .bunch, "coriander", note: "chopped"),
        IngredientRow("a couple of bay leaves", 2, .piece, "bay leaves"),
        IngredientRow("half a lemon, juiced", 0.5, .piece, "lemon", note: "juiced"),
        IngredientRow("Two eggs", 2, .piece, "eggs"),
        IngredientRow("1000000000 cups sugar", 1000000000, .cup, "sugar"),
        IngredientRow("1e9 cups sugar", nil, nil, "1e9 cups sugar"),
        IngredientRow("2% milk", nil, nil, "2% milk"),
    ]
    @Test(arguments: IngredientLineTests.examplesFromTheBrief)
    func readsTheBriefsExamples(_ row: IngredientRow) {
        check(row)
    }

    @Test(arguments: IngredientLineTests.everyUnitAndItsSpellings)
    func readsEveryUnit(_ row: IngredientRow) {
        check(row)
    }

    @Test(arguments: IngredientLineTests.fractionsMixedNumbersAndRanges)
    func readsFractionsMixedNumbersAndRanges(_ row: IngredientRow) {
        check(row)
    }

    @Test(arguments: IngredientLineTests.packageSizes)
    func readsPackageSizes(_ row: IngredientRow) {
        check(row)
    }

    @Test(arguments: IngredientLineTests.sizeWordsNotesAndParentheses)
    func readsSizeWordsNotesAndParentheses(_ row: IngredientRow) {
        check(row)
    }

    @Test(arguments: IngredientLineTests.linesWithoutACount)
    func readsLinesWithoutACount(_ row: IngredientRow) {
        check(row)
    }

    @Test func theTablesCoverEveryUnitAndEveryVulgarFractionUsedInRecipes() {
        let rows =
            Self.examplesFromTheBrief + Self.everyUnitAndItsSpellings + Self.fractionsMixedNumbersAndRanges + Self.packageSizes
            + Self.sizeWordsNotesAndParentheses + Self.linesWithoutACount
        #expect(rows.count >= 40)
        let units = Set(rows.compactMap(\.unit))
        #expect(units == Set(ParsedUnit.allCases))
        let fractions: [Character] = ["½", "⅓", "⅔", "¼", "¾", "⅕", "⅛", "⅜", "⅝", "⅞"]
        for fraction in fractions {
            #expect(rows.contains { $0.line.contains(fraction) }, "no line with \(fraction)")
        }
    }

    /// The food a line names, without how it is prepared or sold, and a unit written after it.
    @Test(
        arguments: [
            ("finely chopped fresh coriander", "coriander", nil),
            ("2 garlic cloves, crushed", "garlic", ParsedUnit.clove),
            ("4 thyme sprigs, leaves picked", "thyme", .sprig),
            ("1 cinnamon stick", "cinnamon", .stick),
            ("250g pack cherry tomatoes, halved", "cherry tomatoes", .g),
            ("400g can chopped tomatoes", "tomatoes", .g),
            ("1 (8 ounce) package cream cheese, softened", "cream cheese", .pack),
            ("1 tsp ground cumin", "cumin", .tsp),
            ("1 lb lean ground beef", "ground beef", .lb),
            ("Salt and black pepper", "salt", nil),
            ("rice or naan bread, to serve", "rice", nil),
            ("2 cups all-purpose flour for dredging", "all-purpose flour", .cup),
            ("1 avocado - peeled, pitted, and diced", "avocado", .piece),
            ("3 Tbsp. unsalted butter, cut into pieces", "butter", .tbsp),
            ("7g sachet fast-action dried yeast", "fast-action dried yeast", .g),
            ("8 boneless, skinless chicken thighs", "chicken thighs", .piece),
            ("300ml warm water", "water", .ml),
            ("coriander leaves, to garnish", "coriander", nil),
            ("3 bay leaves", "bay leaves", .piece),
            ("2 tbsp coriander / cilantro, finely chopped", "coriander", .tbsp),
            ("1 cup (250 ml) chicken stock/broth", "chicken stock", .cup),
            ("300g / 10oz green beans, trimmed", "green beans", .g),
            ("2 tins sardines in olive oil", "sardines", .can),
            ("1 cup plain flour", "plain flour", .cup),
            ("½ cup plain Greek yogurt", "greek yogurt", .cup),
        ] as [(String, String, ParsedUnit?)])
    func theFoodIsNamedWithoutHowItIsPreparedOrSold(_ line: String, _ food: String, _ unit: ParsedUnit?) {
        let parsed = IngredientLine.parse(line)
        #expect(parsed.food == food)
        #expect(parsed.unit == unit)
    }

    /// A size before the package word, without brackets, is the package's size.
    @Test(
        arguments: [
            ("1 15-oz. can chickpeas, rinsed", 1.0, ParsedUnit.can, PackageSize(quantity: 15, unit: .oz), "chickpeas"),
            ("2 28-oz. cans whole peeled tomatoes", 2, .can, PackageSize(quantity: 28, unit: .oz), "tomatoes"),
            ("a 400g tin of black beans", 1, .can, PackageSize(quantity: 400, unit: .g), "black beans"),
            ("an 8-ounce package of cream cheese", 1, .pack, PackageSize(quantity: 8, unit: .oz), "cream cheese"),
            ("1 8oz. block sharp cheddar", 1, .pack, PackageSize(quantity: 8, unit: .oz), "sharp cheddar"),
        ] as [(String, Double, ParsedUnit, PackageSize, String)])
    func aSizeBeforeThePackageWordIsItsSize(_ line: String, _ quantity: Double, _ unit: ParsedUnit, _ size: PackageSize, _ food: String) {
        let parsed = IngredientLine.parse(line)
        #expect(parsed.quantity == quantity && parsed.unit == unit && parsed.packageSize == size && parsed.food == food)
    }

    /// "2 onions (300g)": a weight in parentheses after a count is the amount weighed; "about",
    /// "total" and a second weight change nothing, "each" counts it for every piece.
    @Test func aWeightAfterACountIsTheAmountWeighed() {
        let onions = IngredientLine.parse("2 medium onions (300g), finely sliced")
        #expect(onions.quantity == 2 && onions.weight == PackageSize(quantity: 300, unit: .g) && onions.note == "finely sliced")
        #expect(IngredientLine.parse("1 onion (finely chopped)").weight == nil)
        #expect(IngredientLine.parse("2 medium sweet potatoes (about 1 pound), scrubbed").weight == PackageSize(quantity: 1, unit: .lb))
        #expect(IngredientLine.parse("2 balls mozzarella (125g each)").weight == PackageSize(quantity: 250, unit: .g))
        #expect(IngredientLine.parse("1 cup (8 ounces; 225g) sugar").weight == PackageSize(quantity: 8, unit: .oz))
        let spring = IngredientLine.parse("1 bunch spring onions, thinly sliced (80g)")
        #expect(spring.unit == .bunch && spring.weight == PackageSize(quantity: 80, unit: .g) && spring.note == "thinly sliced")
        // After a stick, a weight is the whole amount; a volume is no stick's size.
        #expect(IngredientLine.parse("2 sticks (226g) unsalted butter").weight == PackageSize(quantity: 226, unit: .g))
        let stick = IngredientLine.parse("1 stick (½ cup) butter, softened")
        #expect(stick.unit == .stick && stick.packageSize == nil && stick.weight == nil)
    }

    /// A weight in parentheses after a volume or a count is the amount weighed; after a weight,
    /// or holding no weight, it stays a note.
    @Test func aWeightInParenthesesWinsOverTheVolume() {
        let flour = IngredientLine.parse("2 cups (212g) all-purpose flour")
        #expect(flour.quantity == 2 && flour.unit == .cup && flour.weight == PackageSize(quantity: 212, unit: .g))
        #expect(flour.name == "all-purpose flour" && flour.note == nil)
        #expect(IngredientLine.parse("3 tbsp (1.5 oz) butter").weight == PackageSize(quantity: 1.5, unit: .oz))
        let same = IngredientLine.parse("200 g (7 oz) rice")
        #expect(same.weight == nil && same.quantity == 200 && same.unit == .g && same.note == "7 oz")
        #expect(IngredientLine.parse("1 cup (250 ml) milk").weight == nil)
    }

    /// A frying bath or what is poured away is read from the note, with the share eaten when
    /// given; a note that merely mentions something discarded changes nothing.
    @Test func fryingAndPouredAwayAreReadFromTheNote() {
        let bath = IngredientLine.parse("vegetable oil for deep-frying")
        #expect(bath.name == "vegetable oil" && bath.use == .frying && bath.eatenShare == nil)
        let exported = IngredientLine.parse("1.5 l sunflower oil, for frying")
        #expect(exported.quantity == 1.5 && exported.unit == .l && exported.name == "sunflower oil" && exported.use == .frying)
        let share = IngredientLine.parse("1 l rapeseed oil, for frying, 12.5 % eaten")
        #expect(share.use == .frying && share.eatenShare == 0.125)
        #expect(IngredientLine.parse("2 tbsp oil for the pan").use == .frying)
        #expect(IngredientLine.parse("2 l water, poured away").use == .discarded)
        #expect(IngredientLine.parse("1 red chilli, seeds discarded").use == nil)
        #expect(IngredientLine.parse("2 tbsp olive oil").use == nil)
    }

    @Test func blankAndWhitespaceLinesGiveAnEmptyName() {
        #expect(IngredientLine.parse("") == ParsedIngredientLine(original: "", name: ""))
        #expect(IngredientLine.parse("  \t ") == ParsedIngredientLine(original: "  \t ", name: ""))
        #expect(IngredientLine.parse("2 tbsp") == ParsedIngredientLine(original: "2 tbsp", quantity: 2, unit: .tbsp, name: ""))
    }

    @Test func hostileNumbersDoNotTrap() {
        // A number too long for a Double is not a quantity; the line stays a name.
        let huge = String(repeating: "9", count: 400) + " cups sugar"
        #expect(IngredientLine.parse(huge).quantity == nil)
        #expect(IngredientLine.parse("1/0 cup milk").quantity == nil)
        #expect(IngredientLine.parse("99999999999999999999 g salt").quantity == 1e20)
    }

    @Test func unitsConvertToTheCatalogsUnits() {
        #expect(ParsedUnit.cup.measure == MeasureConversion(unit: .ml, factor: 240))
        #expect(ParsedUnit.quart.measure == MeasureConversion(unit: .ml, factor: 946.352946))
        #expect(ParsedUnit.pint.measure == MeasureConversion(unit: .ml, factor: 473.176473))
        #expect(ParsedUnit.gallon.measure == MeasureConversion(unit: .l, factor: 3.785411784))
        #expect(ParsedUnit.flOz.measure == MeasureConversion(unit: .ml, factor: 29.5735))
        #expect(ParsedUnit.oz.measure == MeasureConversion(unit: .g, factor: 28.3495))
        #expect(ParsedUnit.lb.measure == MeasureConversion(unit: .g, factor: 453.592))
        #expect(ParsedUnit.stick.measure == MeasureConversion(unit: .g, factor: 113))
        #expect(ParsedUnit.pinch.measure == MeasureConversion(unit: .ml, factor: 0.3125))
        #expect(ParsedUnit.mg.measure == MeasureConversion(unit: .g, factor: 0.001))
        #expect(ParsedUnit.dl.measure == MeasureConversion(unit: .ml, factor: 100))
        #expect(ParsedUnit.cl.measure == MeasureConversion(unit: .ml, factor: 10))
        for unit in [ParsedUnit.g, .kg, .ml, .l, .tsp, .tbsp, .piece] {
            #expect(unit.measure?.factor == 1, "\(unit) is a catalog unit")
            #expect(unit.measure?.unit.rawValue == unit.rawValue)
        }
        for unit in [ParsedUnit.can, .bunch, .clove, .slice] {
            #expect(unit.measure == nil, "\(unit) needs the ingredient's piece weight")
        }
    }

    @Test func spellingsAreCaseInsensitiveExceptTheOneLetterSpoons() {
        #expect(ParsedUnit(spelling: "TABLESPOONS") == .tbsp)
        #expect(ParsedUnit(spelling: "Tbsp.") == .tbsp)
        #expect(ParsedUnit(spelling: "T") == .tbsp)
        #expect(ParsedUnit(spelling: "t") == .tsp)
        #expect(ParsedUnit(spelling: "fl. oz.") == .flOz)
        #expect(ParsedUnit(spelling: "Litres") == .l)
        #expect(ParsedUnit(spelling: "Handfuls") == .handful)
        #expect(ParsedUnit(spelling: "smidgen") == nil)
        #expect(ParsedUnit(spelling: "") == nil)
    }

    private func check(_ row: IngredientRow) {
        let parsed = IngredientLine.parse(row.line)
        #expect(parsed.original == row.line)
        #expect(isClose(parsed.quantity, row.quantity), "quantity \(String(describing: parsed.quantity))")
        #expect(isClose(parsed.quantityHigh, row.high), "high \(String(describing: parsed.quantityHigh))")
        #expect(parsed.unit == row.unit)
        #expect(parsed.name == row.name)
        #expect(parsed.note == row.note)
        #expect(isClose(parsed.packageSize?.quantity, row.package?.quantity))
        #expect(parsed.packageSize?.unit == row.package?.unit)
    }

    private func isClose(_ actual: Double?, _ expected: Double?) -> Bool {
        switch (actual, expected) {
        case (nil, nil): true
        case (let actual?, let expected?): abs(actual - expected) <= 1e-9 * max(1, abs(expected))
        default: false
        }
    }
}
