import Foundation
public import SousSchema

/// One ingredient line taken apart: "1-2 cloves garlic, minced" is 1 to 2 ``ParsedUnit/clove``
/// of "garlic", note "minced".
public struct ParsedIngredientLine: Equatable, Sendable {
    /// The names to look the ingredient up by, best first: the parsed name, then with its
    /// note put back as catalogs write it ("chickpeas (canned)", "chickpeas, canned"), since
    /// a parenthesis or a comma in a line can be part of an ingredient's name.
    public var nameCandidates: [String] {
        guard let note, !note.isEmpty else { return [name] }
        return [name, "\(name) (\(note))", "\(name), \(note)"]
    }

    /// The line as given.
    public var original: String
    /// The amount, or its lower end for a range; nil when the line gives none ("salt and pepper
    /// to taste").
    public var quantity: Double?
    /// The upper end of a range ("1-2", "1 to 2"), as written.
    public var quantityHigh: Double?
    /// The unit; ``ParsedUnit/piece`` when a count has no unit ("3 large eggs"); nil when there
    /// is neither a count nor a unit.
    public var unit: ParsedUnit?
    /// The ingredient's words, lowercased, without leading articles, "of" and size words
    /// (large, small, medium); may be empty ("2 tbsp").
    public var name: String
    /// What followed a comma, what stood in parentheses (other than a package size), what came
    /// before "of" ("Juice of 1 lemon"), or a closing "to taste", joined with "; ".
    public var note: String?
    /// The size of one package, for "1 (400 g) can", "1 can (14 oz)" and "2 x 400g tins": the
    /// line asks for `quantity` packages of this size.
    public var packageSize: PackageSize?
    /// The food named, without preparation, package and quality words, alternatives or a unit
    /// written after it ("finely chopped fresh coriander" → "coriander", "2 garlic cloves" →
    /// "garlic"): a second name to look the ingredient up by, after ``name``.
    public var food: String
    /// The whole amount weighed, when the line gives a weight in parentheses after another
    /// unit ("2 cups (212 g) flour" is 212 g): it wins over the volume or count.
    public var weight: PackageSize?
    /// The whole amount the line asks for, in the unit it was written in: the weight in
    /// brackets when given ("2 cups (212 g)"), else the count times the package's size ("1 (400
    /// g) can"), else the quantity and unit. Nil without a quantity.
    public var amount: (quantity: Double, unit: ParsedUnit)? {
        if let weight { return (weight.quantity, weight.unit) }
        guard let quantity else { return nil }
        if let packageSize { return (quantity * packageSize.quantity, packageSize.unit) }
        return unit.map { (quantity, $0) }
    }
    /// What becomes of the ingredient, when the note says ("oil for frying", "for deep-frying",
    /// "for the pan": a frying bath; "poured away", "for soaking": discarded); nil: eaten.
    public var use: IngredientUse?
    /// The share eaten when the note gives one ("for frying, 12 % eaten").
    public var eatenShare: Double?

    public init(
        original: String, quantity: Double? = nil, quantityHigh: Double? = nil, unit: ParsedUnit? = nil, name: String, note: String? = nil,
        packageSize: PackageSize? = nil, weight: PackageSize? = nil, use: IngredientUse? = nil, eatenShare: Double? = nil, food: String? = nil
    ) {
        self.food = food ?? name
        self.original = original
        self.quantity = quantity
        self.quantityHigh = quantityHigh
        self.unit = unit
        self.name = name
        self.note = note
        self.packageSize = packageSize
        self.weight = weight
        self.use = use
        self.eatenShare = eatenShare
    }
}

/// The size of one can, tin or stick an ingredient line counts.
public struct PackageSize: Equatable, Sendable {
    public var quantity: Double
    public var unit: ParsedUnit

    public init(quantity: Double, unit: ParsedUnit) {
        self.quantity = quantity
        self.unit = unit
    }
}

/// Reads ingredient lines as people write them ("2 tbsp olive oil, finely chopped",
/// "1 (400 g) can chopped tomatoes", "1½ tsp baking powder", "a pinch of salt").
///
/// Numbers: whole numbers, decimals with "." or "," ("1,5"; a comma followed by exactly three
/// digits after 1–3 digits not starting with 0 is a thousands separator: "1,000"), slash
/// fractions ("3/4"), Unicode vulgar fractions ("½", "⅜"), mixed numbers ("1 1/2", "1½",
/// "1 ½", "1-1/2") and ranges ("1-2", "1–2", "1 to 2"). Exponents are not numbers: "1e9 cups"
/// has no quantity (the line is all name), while "1000000000 cups" is 1e9 cups; how much is too
/// much is the caller's decision. HTML entities must already be decoded.
public enum IngredientLine {
    /// Takes one line apart. Never fails: what is not understood ends up in the name.
    public static func parse(_ line: String) -> ParsedIngredientLine {
        let text = spelledNumbers(normalized(line))
        let (main, commaNote) = splitAtNoteComma(text)
        let (body, closingNote) = splitClosingPhrase(main)
        var parts = parseBody(body)
        var notes = parts.notes
        if let closingNote { notes.append(closingNote) }
        if let commaNote { notes.append(commaNote) }
        sizedPackage(&parts)
        // "2 onions (300g)", "1 small bunch of basil (15g)", "1 fennel, thinly sliced (250g)": a
        // weight in parentheses after a count or a unit of no fixed weight is the amount weighed.
        var weight = parts.weight
        if weight == nil, parts.packageSize == nil, parts.quantity != nil, parts.unit.map({ !weightUnits.contains($0) }) ?? true,
            let index = notes.firstIndex(where: { bracketWeight(lastGroup(of: $0), count: parts.quantity) != nil })
        {
            weight = bracketWeight(lastGroup(of: notes[index]), count: parts.quantity)
            // The bracket goes from its note; what the note said besides stays.
            let rest = notes[index].hasSuffix(")") ? String(notes[index][..<(notes[index].lastIndex(of: "(") ?? notes[index].startIndex)]) : ""
            let trimmed = rest.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { notes.remove(at: index) } else { notes[index] = trimmed }
        }
        // A count without a unit counts pieces ("3 large eggs", "Juice of 1 lemon").
        var unit: ParsedUnit? = parts.unit ?? (parts.quantity == nil ? nil : ParsedUnit.piece)
        let name = cleanName(parts.nameWords)
        var food = FoodName.food(from: name)
        // "8 boneless, skinless chicken thighs": the food is after the comma.
        if food.food == nil, let commaNote { food = FoodName.food(from: commaNote.lowercased()) }
        // "2 garlic cloves", "4 thyme sprigs": the unit written after the food.
        if unit == .piece, let after = food.unit { unit = after }
        let use = use(of: notes)
        return ParsedIngredientLine(
            original: line, quantity: parts.quantity, quantityHigh: parts.quantityHigh, unit: unit, name: name,
            note: notes.isEmpty ? nil : notes.joined(separator: "; "), packageSize: parts.packageSize, weight: weight, use: use.use,
            eatenShare: use.eatenShare, food: food.food ?? name
        )
    }

    /// The whole weight a bracket gives for `count` pieces: "300g", "about 1 pound", "7 1/2
    /// ounces; 213g" (the first), "about 1 lb., $1.00", "about 1 lb. total", "125g each" (every
    /// piece's, so `count` times it).
    static func bracketWeight(_ content: String, count: Double?) -> PackageSize? {
        var text = content.lowercased().trimmingCharacters(in: .whitespaces)
        for prefix in ["about ", "approx. ", "approx ", "approximately ", "roughly ", "around ", "~"] where text.hasPrefix(prefix) {
            text.removeFirst(prefix.count)
        }
        for part in text.split(whereSeparator: { $0 == ";" || $0 == "," }) {
            var piece = part.trimmingCharacters(in: .whitespaces)
            if piece.hasSuffix(" total") { piece.removeLast(6) }
            guard let size = packageSize(in: piece), weightUnits.contains(size.unit) else { continue }
            return piece.hasSuffix(" each") ? PackageSize(quantity: size.quantity * (count ?? 1), unit: size.unit) : size
        }
        return nil
    }

    /// A note that is a bracket ("300g"), or the bracket a note ends with ("thinly sliced (250g)").
    static func lastGroup(of note: String) -> String {
        guard note.hasSuffix(")"), let open = note.lastIndex(of: "(") else { return note }
        return String(note[note.index(after: open)..<note.index(before: note.endIndex)])
    }

    /// "1 15-oz. can chickpeas", "a 400g tin of black beans", "an 8-ounce package of cream
    /// cheese": a size before the package word, without brackets, is the package's size.
    private static func sizedPackage(_ parts: inout Parts) {
        guard parts.quantity != nil, parts.unit == nil, parts.packageSize == nil, parts.nameWords.count > 2,
            let size = packageSize(in: parts.nameWords[0].replacingOccurrences(of: "-", with: " ")),
            let unit = ParsedUnit(spelling: parts.nameWords[1]) ?? packageWords[parts.nameWords[1].lowercased()],
            packageUnits.contains(unit)
        else { return }
        parts.packageSize = size
        parts.unit = unit
        parts.nameWords.removeFirst(2)
    }

    /// Package words the units do not spell ("a 400g box of", "1 8oz. block").
    static let packageWords: [String: ParsedUnit] = [
        "bag": .pack, "bags": .pack, "box": .pack, "boxes": .pack, "block": .pack, "container": .pack, "containers": .pack,
        "carton": .pack, "cartons": .pack, "envelope": .pack, "envelopes": .pack, "tub": .pack, "bottle": .jar, "bottles": .jar,
    ]

    /// Amounts written as words at the start of a line, as digits: "a couple of" 2, "half a"
    /// 0.5, "a dozen" 12, "one" to "twelve", "a"/"an" 1 ("an onion", "a pinch of salt").
    static func spelledNumbers(_ text: String) -> String {
        let lowered = text.lowercased()
        for (words, digits) in spelled where lowered.hasPrefix(words + " ") {
            return digits + " " + text.dropFirst(words.count + 1)
        }
        return text
    }

    private static let spelled: [(String, String)] = [
        ("a couple of", "2"), ("a couple", "2"), ("couple of", "2"), ("half a", "0.5"), ("half an", "0.5"), ("a half", "0.5"),
        ("a dozen", "12"), ("one dozen", "12"), ("one", "1"), ("two", "2"), ("three", "3"), ("four", "4"), ("five", "5"), ("six", "6"),
        ("seven", "7"), ("eight", "8"), ("nine", "9"), ("ten", "10"), ("eleven", "11"), ("twelve", "12"), ("a", "1"), ("an", "1"),
    ]

    /// Phrases that close a line and belong in the note ("salt and pepper to taste", "vegetable
    /// oil for frying").
    static let closingPhrases =
        ["to taste", "to serve", "for serving", "for garnish", "to garnish", "optional", "as needed"] + fryingPhrases + discardedPhrases
    static let fryingPhrases = ["for deep-frying", "for deep frying", "for shallow-frying", "for shallow frying", "for frying", "for the pan"]
    static let discardedPhrases = ["for soaking", "poured away"]

    /// What the notes say becomes of the ingredient, and the share eaten when they give one
    /// ("12 % eaten", "12% eaten").
    static func use(of notes: [String]) -> (use: IngredientUse?, eatenShare: Double?) {
        let text = notes.joined(separator: "; ").lowercased()
        let use: IngredientUse? =
            fryingPhrases.contains(where: text.contains) ? .frying : discardedPhrases.contains(where: text.contains) ? .discarded : nil
        guard use != nil, let eaten = text.range(of: #"(\d+(\.\d+)?) ?% eaten"#, options: .regularExpression) else { return (use, nil) }
        let digits = text[eaten].prefix { $0.isASCIIDigit || $0 == "." }
        guard let percent = Double(digits), (0...100).contains(percent) else { return (use, nil) }
        return (use, percent / 100)
    }
    /// Words that say how big each piece is; dropped from names, and skipped when looking for
    /// the unit ("2 large cans").
    static let sizeWords: Set<String> = [
        "large", "small", "medium", "big", "jumbo", "extra-large", "x-large", "medium-sized", "large-sized", "small-sized", "thumb-sized",
        "generous", "heaped", "heaping", "level", "scant",
    ]
    /// Words dropped from the start of a name.
    private static let leadingFillers: Set<String> = ["a", "an", "the", "of"]
    /// Units a parenthesised size right after them is the package size of ("1 can (14 oz)").
    private static let packageUnits: Set<ParsedUnit> = [.can, .stick, .jar, .pack]
    /// Units of weight: one in parentheses after another unit is the same amount weighed.
    private static let weightUnits: Set<ParsedUnit> = [.g, .kg, .mg, .oz, .lb]
    /// Trimmed from both ends of a name.
    private static let namePunctuation: Set<Character> = [" ", ".", ",", ";", ":", ")", "(", "*"]

    /// The pieces of a line before the name is cleaned and the notes joined.
    private struct Parts {
        var quantity: Double?
        var quantityHigh: Double?
        var unit: ParsedUnit?
        var packageSize: PackageSize?
        var weight: PackageSize?
        var nameWords: [String] = []
        var notes: [String] = []
    }

    /// Single spaces, ASCII hyphens for every dash and "/" for the fraction slash, so the
    /// scanner has one spelling of each.
    private static func normalized(_ line: String) -> String {
        var result = ""
        var pendingSpace = false
        for character in line {
            if character.isWhitespace {
                pendingSpace = !result.isEmpty
                continue
            }
            if pendingSpace {
                result.append(" ")
                pendingSpace = false
            }
            switch character {
            case "\u{2010}", "\u{2011}", "\u{2012}", "\u{2013}", "\u{2014}", "\u{2212}": result.append("-")
            case "\u{2044}", "\u{2215}": result.append("/")
            case "\u{00D7}": result.append("x")
            default: result.append(character)
            }
        }
        return result
    }

    /// Splits at the first comma or semicolon outside parentheses that is not a decimal comma
    /// ("1,5 kg"): what follows is a note ("finely chopped").
    private static func splitAtNoteComma(_ text: String) -> (main: String, note: String?) {
        let characters = Array(text)
        var depth = 0
        for index in characters.indices {
            let character = characters[index]
            if character == "(" {
                depth += 1
            } else if character == ")" {
                depth = max(0, depth - 1)
            } else if depth == 0, character == "," || character == ";" {
                let isDecimalComma =
                    character == "," && index > 0 && index + 1 < characters.count && characters[index - 1].isASCIIDigit
                    && characters[index + 1].isASCIIDigit
                if isDecimalComma { continue }
                let main = String(characters[..<index]).trimmingCharacters(in: .whitespaces)
                let note = String(characters[(index + 1)...]).trimmingCharacters(in: .whitespaces)
                return (main, note.isEmpty ? nil : note)
            }
        }
        return (text, nil)
    }

    /// Moves a closing "to taste" (or another ``closingPhrases`` entry) out of the line.
    private static func splitClosingPhrase(_ text: String) -> (body: String, note: String?) {
        let lowercased = text.lowercased()
        for phrase in closingPhrases {
            if lowercased == phrase { return ("", phrase) }
            if lowercased.hasSuffix(" " + phrase) {
                return (String(text.dropLast(phrase.count + 1)), phrase)
            }
        }
        return (text, nil)
    }

    private static func parseBody(_ text: String) -> Parts {
        var scanner = LineScanner(text)
        if let amount = scanner.readLeadingAmount() {
            var parts = Parts(quantity: amount.low, quantityHigh: amount.high)
            parts.packageSize = scanner.readPackageSize()
            let tokens = scanner.readTokens()
            var index = 0
            if let found = unit(in: tokens, from: 0) {
                parts.unit = found.unit
                index = found.end
            }
            if let unit = parts.unit, packageUnits.contains(unit), parts.packageSize == nil, index < tokens.count,
                case .group(let content) = tokens[index], let size = packageSize(in: content),
                unit != .stick || weightUnits.contains(size.unit)
            {
                // "2 sticks (226g)": after the unit, a weight is the total, unless "each" says
                // it is every package's ("2 cans (15 oz each)").
                if (parts.quantity ?? 1) > 1, weightUnits.contains(size.unit), !content.lowercased().hasSuffix(" each") {
                    parts.weight = size
                } else {
                    parts.packageSize = size
                }
                index += 1
            } else if let unit = parts.unit, !weightUnits.contains(unit), index < tokens.count, case .group(let content) = tokens[index],
                let size = bracketWeight(content, count: parts.quantity)
            {
                // "2 cups (212 g) flour": the weight the writer measured wins over the volume.
                parts.weight = size
                index += 1
            }
            collectName(tokens[index...], into: &parts)
            return parts
        }
        var wordScanner = LineScanner(text)
        let tokens = wordScanner.readTokens()
        // "pinch of nutmeg", "small bunch coriander": a unit without a count is one, but only
        // when "of" follows or a size word leads, so that "cloves" or "stick" alone stay names.
        if let found = unit(in: tokens, from: 0), found.end < tokens.count,
            tokens[found.end].word?.lowercased() == "of" || tokens.first?.word.map({ sizeWords.contains($0.lowercased()) }) == true
        {
            var parts = Parts(quantity: 1)
            parts.unit = found.unit
            collectName(tokens[found.end...], into: &parts)
            return parts
        }
        // "Juice of 1 lemon": the words before "of" are a note on the counted rest.
        if let split = splitBeforeCountedOf(text) {
            var parts = parseBody(split.rest)
            parts.notes.insert(split.prefix, at: 0)
            return parts
        }
        var parts = Parts()
        collectName(tokens[...], into: &parts)
        return parts
    }

    /// The unit at `start` (after any size words), spelled in one word or two ("fl oz"), and
    /// the index after it.
    private static func unit(in tokens: [LineToken], from start: Int) -> (unit: ParsedUnit, end: Int)? {
        var index = start
        while index < tokens.count, let word = tokens[index].word, sizeWords.contains(word.lowercased()) {
            index += 1
        }
        guard index < tokens.count, let word = tokens[index].word else { return nil }
        if index + 1 < tokens.count, let next = tokens[index + 1].word, let unit = ParsedUnit(spelling: word + " " + next) {
            return (unit, index + 2)
        }
        if let unit = ParsedUnit(spelling: word) { return (unit, index + 1) }
        return nil
    }

    /// A parenthesised package size: "400 g", "14-ounce", "14 oz".
    static func packageSize(in content: String) -> PackageSize? {
        // "15 oz each": the size of each of the line's packages.
        let trimmed = content.lowercased().hasSuffix(" each") ? String(content.dropLast(5)) : content
        var scanner = LineScanner(trimmed)
        scanner.skipSpaces()
        guard let amount = scanner.readAmount(), let unit = scanner.readUnit() else { return nil }
        scanner.skipSpaces()
        guard scanner.isAtEnd else { return nil }
        return PackageSize(quantity: amount.value, unit: unit)
    }

    /// "Juice of 1 lemon" → ("Juice", "1 lemon"): the first "of" followed by an amount.
    private static func splitBeforeCountedOf(_ text: String) -> (prefix: String, rest: String)? {
        let words = text.split(separator: " ")
        for index in words.indices.dropFirst() where words[index].lowercased() == "of" && index + 1 < words.count {
            let rest = words[(index + 1)...].joined(separator: " ")
            var scanner = LineScanner(rest)
            if scanner.readLeadingAmount() != nil {
                return (words[..<index].joined(separator: " "), rest)
            }
        }
        return nil
    }

    /// Words go to the name, parenthesised groups to the notes.
    private static func collectName(_ tokens: ArraySlice<LineToken>, into parts: inout Parts) {
        for token in tokens {
            switch token {
            case .word(let word): parts.nameWords.append(word)
            case .group(let content): parts.notes.append(content)
            }
        }
    }

    /// Lowercased, without leading articles, "of" and size words ("extra large" included), and
    /// without punctuation at either end.
    private static func cleanName(_ words: [String]) -> String {
        var words = words.map { $0.lowercased() }
        while let first = words.first {
            if leadingFillers.contains(first) || sizeWords.contains(first) {
                words.removeFirst()
            } else if first == "extra", words.count > 1, sizeWords.contains(words[1]) {
                words.removeFirst()
            } else {
                break
            }
        }
        var name = Substring(words.joined(separator: " "))
        while let first = name.first, namePunctuation.contains(first) { name.removeFirst() }
        while let last = name.last, namePunctuation.contains(last) { name.removeLast() }
        return String(name)
    }
}

/// A word of an ingredient line, or the content of a parenthesised group.
enum LineToken: Equatable {
    case word(String)
    case group(String)

    var word: String? {
        if case .word(let word) = self { return word }
        return nil
    }
}

/// Reads numbers, units and words from the front of a normalized ingredient line.
struct LineScanner {
    /// How a number was written: mixed numbers are only formed from a whole number followed by
    /// a fraction.
    enum NumberForm {
        case whole, decimal, fraction, mixed
    }

    struct Number {
        var value: Double
        var form: NumberForm
    }

    /// The vulgar fraction characters Unicode has.
    static let vulgarFractions: [Character: Double] = [
        "½": 1.0 / 2, "⅓": 1.0 / 3, "⅔": 2.0 / 3, "¼": 1.0 / 4, "¾": 3.0 / 4, "⅕": 1.0 / 5, "⅖": 2.0 / 5, "⅗": 3.0 / 5, "⅘": 4.0 / 5,
        "⅙": 1.0 / 6, "⅚": 5.0 / 6, "⅐": 1.0 / 7, "⅛": 1.0 / 8, "⅜": 3.0 / 8, "⅝": 5.0 / 8, "⅞": 7.0 / 8, "⅑": 1.0 / 9, "⅒": 1.0 / 10,
    ]

    private let characters: [Character]
    private var position = 0

    init(_ text: String) {
        characters = Array(text)
    }

    var isAtEnd: Bool { position >= characters.count }

    private var current: Character? { character(at: 0) }

    private func character(at offset: Int) -> Character? {
        let index = position + offset
        return index >= 0 && index < characters.count ? characters[index] : nil
    }

    /// Skips spaces; true when there were some.
    @discardableResult
    mutating func skipSpaces() -> Bool {
        let start = position
        while current == " " { position += 1 }
        return position > start
    }

    /// The amount a line starts with, with the upper end of a range. Nil, with nothing read,
    /// when the line does not start with a number, or when the number runs into something other
    /// than a space, "(" or a unit ("1e9", "2%", "3rd"): then it is part of the name.
    mutating func readLeadingAmount() -> (low: Double, high: Double?)? {
        let start = position
        guard let low = readAmount() else { return nil }
        var amount: (low: Double, high: Double?) = (low.value, nil)
        let beforeRange = position
        let spacedBefore = skipSpaces()
        var isRange = false
        if current == "-" {
            position += 1
            isRange = true
        } else if spacedBefore, current == "t" || current == "T", character(at: 1) == "o", character(at: 2) == " " {
            position += 2
            isRange = true
        }
        if isRange {
            let spacedAfter = skipSpaces()
            if let high = readAmount() {
                if !spacedBefore, !spacedAfter, low.form == .whole, high.form == .fraction, high.value < 1 {
                    // "1-1/2": the US way of writing a mixed number.
                    amount.low = low.value + high.value
                } else {
                    amount.high = high.value
                }
            } else {
                position = beforeRange
            }
        } else {
            position = beforeRange
        }
        guard let next = current, next != " ", next != "(" else { return amount }
        // Glued on: a unit ("200g", "14-ounce") or a multiplier ("2x400g"); anything else makes
        // the number part of a word.
        if next == "x" || next == "X", let after = character(at: 1), after.isASCIIDigit { return amount }
        var probe = self
        if next == "-" { probe.position += 1 }
        guard ParsedUnit(spelling: probe.readWord()) != nil else {
            position = start
            return nil
        }
        if next == "-" { position += 1 }
        return amount
    }

    /// One amount: a number, or a whole number and a fraction ("1 1/2", "1 ½").
    mutating func readAmount() -> Number? {
        guard let first = readNumber() else { return nil }
        guard first.form == .whole, current == " " else { return first }
        let afterWhole = position
        position += 1
        if let fraction = readNumber(), fraction.form == .fraction, fraction.value < 1 {
            return Number(value: first.value + fraction.value, form: .mixed)
        }
        position = afterWhole
        return first
    }

    /// One written number: "12", "1.5", "1,5", "1,000", "3/4", "½", "1½".
    private mutating func readNumber() -> Number? {
        let start = position
        if let glyph = current, let fraction = Self.vulgarFractions[glyph] {
            position += 1
            return Number(value: fraction, form: .fraction)
        }
        let whole = readDigits()
        guard !whole.isEmpty else { return nil }
        if let separator = current, separator == "." || separator == ",", let next = character(at: 1), next.isASCIIDigit {
            position += 1
            let decimals = readDigits()
            if separator == ",", decimals.count == 3, whole.count <= 3, whole.first != "0" {
                // "1,000": a thousands separator.
                guard let value = Double(whole + decimals) else {
                    position = start
                    return nil
                }
                return Number(value: value, form: .whole)
            }
            guard let value = Double(whole + "." + decimals), value.isFinite else {
                position = start
                return nil
            }
            return Number(value: value, form: .decimal)
        }
        if current == "/", let next = character(at: 1), next.isASCIIDigit {
            position += 1
            let denominatorDigits = readDigits()
            guard let numerator = Double(whole), let denominator = Double(denominatorDigits), denominator > 0,
                (numerator / denominator).isFinite
            else {
                position = start
                return nil
            }
            return Number(value: numerator / denominator, form: .fraction)
        }
        guard let value = Double(whole), value.isFinite else {
            position = start
            return nil
        }
        if let glyph = current, let fraction = Self.vulgarFractions[glyph] {
            position += 1
            return Number(value: value + fraction, form: .mixed)
        }
        return Number(value: value, form: .whole)
    }

    private mutating func readDigits() -> String {
        var digits = ""
        while let digit = current, digit.isASCIIDigit {
            digits.append(digit)
            position += 1
        }
        return digits
    }

    /// Letters and dots from here ("tsp.", "g"); empty when there are none.
    private mutating func readWord() -> String {
        var word = ""
        while let letter = current, letter.isLetter || letter == "." {
            word.append(letter)
            position += 1
        }
        return word
    }

    /// A unit right here, glued ("g", "-ounce") or after spaces, in one word or two ("fl oz");
    /// nil, with nothing read, when there is none.
    mutating func readUnit() -> ParsedUnit? {
        let start = position
        if current == "-" { position += 1 }
        skipSpaces()
        let first = readWord()
        guard !first.isEmpty else {
            position = start
            return nil
        }
        let afterFirst = position
        if skipSpaces() {
            let second = readWord()
            if !second.isEmpty, let unit = ParsedUnit(spelling: first + " " + second) { return unit }
        }
        position = afterFirst
        if let unit = ParsedUnit(spelling: first) { return unit }
        position = start
        return nil
    }

    /// The size of each package right after the count: "x 400g" or "(400 g)".
    mutating func readPackageSize() -> PackageSize? {
        let start = position
        skipSpaces()
        if current == "x" || current == "X" {
            position += 1
            skipSpaces()
            if let amount = readAmount(), let unit = readUnit() {
                return PackageSize(quantity: amount.value, unit: unit)
            }
        } else if current == "(", let content = readGroup(), let size = IngredientLine.packageSize(in: content) {
            return size
        }
        position = start
        return nil
    }

    /// The content of the parenthesised group starting here, trimmed; nil, with nothing read,
    /// when it is not closed.
    private mutating func readGroup() -> String? {
        guard current == "(" else { return nil }
        var depth = 0
        var index = position
        while index < characters.count {
            if characters[index] == "(" {
                depth += 1
            } else if characters[index] == ")" {
                depth -= 1
                if depth == 0 {
                    let content = String(characters[(position + 1)..<index]).trimmingCharacters(in: .whitespaces)
                    position = index + 1
                    return content
                }
            }
            index += 1
        }
        return nil
    }

    /// The rest of the line as words and parenthesised groups (empty groups dropped).
    mutating func readTokens() -> [LineToken] {
        var tokens: [LineToken] = []
        skipSpaces()
        while let first = current {
            if first == "(", let content = readGroup() {
                if !content.isEmpty { tokens.append(.group(content)) }
            } else {
                // A word runs to the next space or "(" (an unclosed "(" starts a word).
                var word = String(first)
                position += 1
                while let next = current, next != " ", next != "(" {
                    word.append(next)
                    position += 1
                }
                tokens.append(.word(word))
            }
            skipSpaces()
        }
        return tokens
    }
}

extension Character {
    /// 0–9 only (not other scripts' digits, not "½").
    var isASCIIDigit: Bool { isASCII && isNumber }
}
