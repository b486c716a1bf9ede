import Foundation

/// The food an ingredient line's name names, without what a cook does to it or how it is sold:
/// "finely chopped fresh coriander" is coriander, "250g pack cherry tomatoes" cherry tomatoes,
/// "skinless, boneless chicken thighs" chicken thighs, "salt and pepper" salt. A unit written
/// after the food ("2 garlic cloves", "4 thyme sprigs") is taken out and returned.
///
/// What stays: variety and type words ("red onion", "brown sugar", "plain flour", "smoked
/// paprika"), since they change what is bought; "ground" before meat ("ground beef").
enum FoodName {
    /// Nil food when nothing but preparation words is left ("boneless" of "8 boneless, skinless
    /// chicken thighs", whose food is after the comma).
    static func food(from name: String) -> (food: String?, unit: ParsedUnit?) {
        var words = name.split(separator: " ").map(String.init)
        // "1 avocado - peeled, pitted": what follows a spaced dash is a note.
        if let dash = words.firstIndex(of: "-"), dash > 0 { words = Array(words[..<dash]) }
        // "500g / 1 lb chicken", "300g / 10oz green beans": the second spelling of the amount goes.
        if words.first == "/" {
            words.removeFirst()
            if let amount = words.first, amount.first?.isNumber == true || amount.first == "." {
                words.removeFirst()
                if let unit = words.first, words.count > 1, ParsedUnit(spelling: unit) != nil { words.removeFirst() }
            }
        }
        // "cornflour / cornstarch", "chicken stock/broth": the first name.
        if let slash = words.firstIndex(of: "/"), slash > 0 { words = Array(words[..<slash]) }
        words = words.map { word in word.count > 2 && word.contains("/") ? String(word.split(separator: "/").first ?? "") : word }
        // "cornstarch mixed with water", "all-purpose flour for dredging", "potatoes such as Maris Piper".
        for (index, word) in words.enumerated() where index > 0 {
            let next = index + 1 < words.count ? words[index + 1] : ""
            if word == "for" || word == "in" || (word == "mixed" && next == "with") || (word == "such" && next == "as") || word == "with" {
                words = Array(words[..<index])
                break
            }
        }
        words = words.enumerated().compactMap { index, word in
            let next = index + 1 < words.count ? words[index + 1] : ""
            return isDescriptor(word, next: next) ? nil : word
        }
        // "can chopped tomatoes" after a weight, "pack cooked prawns": how it is sold.
        while let first = words.first, words.count > 1, isPackageNoun(first) || first == "of" || first == "and" {
            words.removeFirst()
        }
        // "salt and pepper", "butter or margarine", "rice or naan bread": the first named.
        if let split = words.firstIndex(where: { $0 == "or" || $0 == "and" || $0 == "&" }), split > 0 {
            words = Array(words[..<split])
        }
        // "coriander leaves", "lemon wedges", "broccoli florets": the part named is the food,
        // except where it is the food itself ("bay leaves", "lime leaves").
        if words.count > 1, let last = words.last, parts.contains(last), !wholeParts.contains(words[words.count - 2]) {
            words.removeLast()
        }
        var unit: ParsedUnit?
        if words.count > 1, let last = words.last, let trailing = ParsedUnit(spelling: last), trailingUnits.contains(trailing) {
            unit = trailing
            words.removeLast()
        }
        let food = words.joined(separator: " ").trimmingCharacters(in: punctuation)
        return (food.isEmpty ? nil : food, unit)
    }

    private static let punctuation = CharacterSet(charactersIn: " .,;:()*")

    /// How it is prepared or sold, not what it is.
    private static func isDescriptor(_ word: String, next: String) -> Bool {
        let bare = word.trimmingCharacters(in: Self.punctuation)
        switch bare {
        case "ground": return !groundMeats.contains(next.trimmingCharacters(in: Self.punctuation))
        case "dried": return next != "yeast"
        case "whole": return !["milk", "wheat", "grain", "grains"].contains(next)
        case "plain": return next != "flour"
        case "condensed", "evaporated": return next != "milk"
        default: return descriptors.contains(bare)
        }
    }

    private static let groundMeats: Set<String> = ["beef", "pork", "lamb", "turkey", "chicken", "meat", "veal", "almonds"]

    private static let descriptors: Set<String> = [
        "chopped", "finely", "coarsely", "roughly", "minced", "diced", "sliced", "thinly", "thickly", "grated", "freshly", "shredded",
        "crushed", "crumbled", "peeled", "pitted", "stoned", "halved", "quartered", "cubed", "melted", "softened", "beaten", "toasted",
        "cooked", "uncooked", "raw", "fresh", "frozen", "thawed", "skinless", "boneless", "bone-in", "skin-on", "lean", "ripe", "packed",
        "heaping", "heaped", "level", "extra-virgin", "unsalted", "salted", "warm", "cold", "lukewarm", "boiling", "canned", "tinned",
        "drained", "rinsed", "thick-cut", "mild", "clear", "flaked", "seeded", "deseeded", "trimmed", "washed", "sifted", "distilled",
        "prepared", "half-fat", "low-fat", "reduced-fat", "full-fat", "ready-rolled", "floury", "squeezed", "zested", "shelled",
        "blanched", "picked", "torn", "snipped", "crumbed", "good-quality", "good", "quality", "organic", "free-range", "thick", "thin",
        "chilled", "room-temperature", "unwaxed", "bottled", "store-bought", "homemade", "optional", "flaky", "coarse", "runny", "dry",
        "low-sodium", "reduced-sodium", "unsweetened", "mature", "deli", "stale", "strong", "brewed", "steamed", "boiled", "shaved",
        "refrigerated", "jarred", "roasted", "higher-welfare", "free-range", "wild", "whole-milk", "unbaked", "unflavored", "unflavoured",
        "maldon", "cracked", "lightly", "loosely", "firmly", "well", "roughly-chopped", "finely-chopped", "mixed-colour", "mixed-color",
    ]

    /// Parts of a plant or a cut named after the food ("coriander leaves", "lemon wedges").
    private static let parts: Set<String> = [
        "leaves", "leaf", "wedges", "wedge", "florets", "floret", "pods", "pod", "threads", "halves", "cubes", "root", "kernels", "segments",
    ]
    /// Where the part is the food ("bay leaves", "curry leaves", "lime leaves", "vine leaves").
    private static let wholeParts: Set<String> = ["bay", "curry", "lime", "kaffir", "vine", "fig", "banana", "corn", "stock", "sugar"]

    /// Containers and forms things are sold in, dropped from the front of a name: the package
    /// units and words the line reader knows (can, tin, jar, pack, bag, box…) and a few more.
    private static func isPackageNoun(_ word: String) -> Bool {
        if let unit = ParsedUnit(spelling: word), [.can, .jar, .pack].contains(unit) { return true }
        return IngredientLine.packageWords[word] != nil || otherPackageNouns.contains(word)
    }

    private static let otherPackageNouns: Set<String> = [
        "pot", "pots", "tubs", "sheet", "sheets", "ball", "balls", "sachet", "sachets", "punnet", "punnets",
    ]

    /// Units written after the food ("2 garlic cloves", "1 cinnamon stick", "1 garlic bulb").
    private static let trailingUnits: Set<ParsedUnit> = [.clove, .sprig, .stick, .head, .slice]
}
