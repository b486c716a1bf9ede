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
        for (name, value, limit) in [("kcal", macros.kcal, 900.0), ("carbohydrates", macros.carbohydrates, 100), ("protein", macros.protein, 100), ("fat", macros.fat, 100)] {
            guard value.isFinite, value >= 0 else { throw .badRequest("\(name) per 100 g cannot be negative", field: "\(field).\(name)") }
            guard value <= limit else { throw .badRequest("\(name) per 100 g cannot be more than \(Int(limit))", field: "\(field).\(name)") }
        }
    }

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
