import Foundation
import SousSchema
import SousWire

/// Checks on requests, all done before anything is written.
enum TrackerValidation {
    static let maximumGrams = 5000.0
    static let maximumRangeDays = 366

    /// 0 < grams ≤ 5000.
    static func grams(_ grams: Double, field: String = "grams") throws(ServiceError) {
        guard grams.isFinite, grams > 0, grams <= maximumGrams else {
            throw .badRequest("grams must be more than 0 and at most \(Int(maximumGrams))", field: field)
        }
    }

    /// Per-100 g values: not negative, kcal ≤ 900 (pure fat), each macro ≤ 100 g.
    static func macros(_ macros: Macros, field: String = "per100g") throws(ServiceError) {
        for (name, value, limit) in [
            ("kcal", macros.kcal, 900.0), ("carbohydrates", macros.carbohydrates, 100), ("protein", macros.protein, 100), ("fat", macros.fat, 100),
        ] {
            guard value.isFinite, value >= 0 else { throw .badRequest("\(name) per 100 g cannot be negative", field: "\(field).\(name)") }
            guard value <= limit else { throw .badRequest("\(name) per 100 g cannot be more than \(Int(limit))", field: "\(field).\(name)") }
        }
        // 100 g of food holds at most 100 g of carbohydrates, protein and fat together.
        let mass = macros.carbohydrates + macros.protein + macros.fat
        guard mass <= 100 + NutritionPlausibility.roundingGrams else {
            throw .badRequest("carbohydrates, protein and fat add up to \(format(mass)) g per 100 g, more than the 100 g", field: field)
        }
        let range = NutritionPlausibility.kcalRange(macros)
        guard range.contains(macros.kcal) else {
            throw .badRequest(
                "\(format(macros.kcal)) kcal per 100 g cannot come with these macros: 4/4/9 kcal per gram of carbohydrates/protein/fat allow \(format(range.lowerBound)) to \(format(range.upperBound))",
                field: "\(field).kcal"
            )
        }
    }

    private static func format(_ value: Double) -> String { String(format: "%.0f", value) }

    /// 1–200 characters after trimming; returns the trimmed name.
    static func name(_ name: String, field: String) throws(ServiceError) -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 200 else { throw .badRequest("a name is 1 to 200 characters", field: field) }
        return trimmed
    }

    static func range(_ range: DateRange) throws(ServiceError) {
        guard range.from <= range.to else { throw .badRequest("the range ends before it starts", field: "to") }
        guard range.from.days(to: range.to) < maximumRangeDays else {
            throw .badRequest("a range covers at most \(maximumRangeDays) days", field: "to")
        }
    }

    /// kcal 1–10000, each macro 0–2000 g.
    static func goals(_ goals: Goals, field: String = "goals") throws(ServiceError) {
        guard goals.kcal.isFinite, goals.kcal > 0, goals.kcal <= 10_000 else {
            throw .badRequest("the kcal goal must be more than 0 and at most 10000", field: "\(field).kcal")
        }
        for (name, value) in [("carbohydrates", goals.carbohydrates), ("protein", goals.protein), ("fat", goals.fat)] {
            guard value.isFinite, value >= 0, value <= 2000 else {
                throw .badRequest("the \(name) goal must be 0 to 2000 g", field: "\(field).\(name)")
            }
        }
        let energy = NutritionPlausibility.energy(carbohydrates: goals.carbohydrates, protein: goals.protein, fat: goals.fat)
        guard abs(energy - goals.kcal) <= NutritionPlausibility.goalTolerance(goals.kcal) else {
            throw .badRequest(
                "the gram goals make \(energy.roundedInt) kcal (4/4/9 kcal per gram), too far from the \(goals.kcal.roundedInt) kcal goal (at most 25 % + 50 kcal apart)",
                field: field
            )
        }
    }

    static func barcode(_ code: String, field: String = "code") throws(ServiceError) {
        if case .failure(let problem) = Barcode.check(code) { throw .badRequest(problem.message, field: field) }
    }

    /// A product's code, name and macros; `field` is where the product sits in the request
    /// ("" when the request is the product itself).
    static func product(_ product: Product, field: String) throws(ServiceError) {
        let prefix = field.isEmpty ? "" : "\(field)."
        try barcode(product.code, field: "\(prefix)code")
        _ = try name(product.name, field: "\(prefix)name")
        try macros(product.per100g, field: "\(prefix)per100g")
    }
}

/// When nutrition figures contradict each other (docs/PROTOCOL.md, "Tracker"): energy from
/// 4 kcal per gram of carbohydrates and protein and 9 per gram of fat (Atwater).
enum NutritionPlausibility {
    /// Slack on the 100 g a serving of 100 g can hold, for rounded labels.
    static let roundingGrams = 0.5

    static func energy(carbohydrates: Double, protein: Double, fat: Double) -> Double {
        4 * carbohydrates + 4 * protein + 9 * fat
    }

    /// The kcal per 100 g these macros allow: from 60 % of their own energy less 10 kcal (fibre
    /// and polyols are counted as carbohydrates but give less), to their energy plus the rest
    /// of the 100 g as if it were fat (what alcohol and other unlisted parts could add), plus 10.
    static func kcalRange(_ macros: Macros) -> ClosedRange<Double> {
        let listed = energy(carbohydrates: macros.carbohydrates, protein: macros.protein, fat: macros.fat)
        let rest = max(0, 100 - macros.carbohydrates - macros.protein - macros.fat)
        return max(0, 0.6 * listed - 10)...(listed + 9 * rest + 10)
    }

    /// How far a day's gram goals may be, in energy, from its kcal goal: a quarter plus 50 kcal.
    static func goalTolerance(_ kcal: Double) -> Double { 0.25 * kcal + 50 }
}
