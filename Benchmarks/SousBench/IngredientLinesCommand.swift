import ArgumentParser
import Foundation
import SousInterchange

/// Reads ingredient lines on standard input and writes what Sous's line reader makes of each,
/// one JSON object per line: `{"quantity", "unit", "food"}`. The amount is the whole amount the
/// line asks for: a package's size times the count ("1 (400 g) can" is 400 g), a weight in
/// parentheses over a volume ("2 cups (212 g)" is 212 g). For
/// Benchmarks/ingredient_lines/compare.py, which scores it beside an open parser.
struct IngredientLinesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingredient-lines", abstract: "Read ingredient lines from standard input; write quantity, unit and food as JSON lines.")

    struct Reading: Encodable {
        var quantity: Double?
        var unit: String?
        var food: String?
    }

    func run() throws {
        let encoder = JSONEncoder()
        var output = Data()
        while let line = readLine(strippingNewline: true) {
            output.append(try encoder.encode(Self.reading(IngredientLine.parse(line))))
            output.append(0x0A)
        }
        FileHandle.standardOutput.write(output)
    }

    static func reading(_ parsed: ParsedIngredientLine) -> Reading {
        var (quantity, unit) = (parsed.amount?.quantity, parsed.amount?.unit)
        // Units the scoring vocabulary writes in a larger or smaller unit.
        let scaled: [ParsedUnit: (ParsedUnit, Double)] = [.mg: (.g, 0.001), .cl: (.ml, 10), .dl: (.ml, 100)]
        if let current = unit, let (to, factor) = scaled[current] {
            (quantity, unit) = (quantity.map { $0 * factor }, to)
        }
        return Reading(quantity: quantity, unit: unit?.rawValue, food: parsed.food.isEmpty ? nil : parsed.food)
    }
}
