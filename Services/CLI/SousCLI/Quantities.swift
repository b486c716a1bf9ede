import ArgumentParser
import Foundation
import SousInterchange
import SousSchema
import SousUnits

/// A quantity typed on the command line (`--quantity 2 --unit cup`), in a catalog unit. Every
/// unit spelling a recipe import reads (``ParsedUnit``: cups, lb, oz, fl oz, grams, T…) is
/// accepted and converted here, client-side, so the services only ever see catalog units: 2 cups
/// are 480 ml, 2 lb 907.184 g. Every command taking a `--unit` reads it through this.
struct TypedQuantity {
    /// The amount in ``unit``; nil when none was typed.
    var quantity: Double?
    /// The catalog unit; nil when none was typed (the command's default applies).
    var unit: MeasureUnit?

    /// `quantity` of the unit spelled `spelling`, converted: quantity × the unit's factor. A
    /// usage error for a spelling no import reads, or for a unit whose size depends on the
    /// ingredient (a can, a bunch, a clove, a slice), naming the units accepted.
    init(_ quantity: Double?, unit spelling: String?) throws {
        guard let spelling else {
            self.quantity = quantity
            self.unit = nil
            return
        }
        guard let parsed = ParsedUnit(spelling: spelling.trimmingCharacters(in: .whitespaces)) else {
            throw ValidationError("unknown unit \"\(spelling)\"; use one of \(Self.accepted)")
        }
        guard let measure = parsed.measure else {
            throw ValidationError(
                "a \(parsed.rawValue) is no fixed amount (it depends on the ingredient); give the quantity in one of \(Self.accepted)")
        }
        self.quantity = quantity.map { $0 * measure.factor }
        self.unit = measure.unit
    }

    /// The units accepted, one spelling each ("g, kg, mg, ml, …, cup, fl oz, oz, lb, …"); their
    /// other spellings (grams, cups, pounds, tablespoons…) work as well.
    static let accepted = ParsedUnit.allCases.filter { $0.measure != nil }.map(\.rawValue).joined(separator: ", ")
}

/// A recipe line's quantity as `recipes show` and `sous cook` write it: in `units`, with the
/// ingredient's density (`gramsPerMl`) so small US amounts go in spoons; pieces named "piece".
func recipeQuantity(_ quantity: Double, _ unit: MeasureUnit, units: UnitSystem, gramsPerMl: Double?) -> DisplayQuantity {
    var shown = DisplayQuantity(quantity, unit, in: units, gramsPerMl: gramsPerMl)
    if shown.unit.isEmpty { shown.unit = "piece" }
    return shown
}

/// Grams per ml of each of `ingredients` that has a density, by id: what the US display needs
/// to measure small amounts in spoons.
func densities(of ingredients: [Ingredient]) -> [String: Double] {
    Dictionary(ingredients.compactMap { ingredient in ingredient.gramsPerMl.map { (ingredient.id, $0) } }) { first, _ in first }
}
