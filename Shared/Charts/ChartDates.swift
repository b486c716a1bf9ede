public import SousSchema

/// How the charts name days and months.
extension LocalDate {
    static let monthAbbreviations = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December",
    ]

    /// "Mar 5": a day's label under a bar.
    var shortLabel: String { "\(Self.monthAbbreviation(month)) \(day)" }

    static func monthAbbreviation(_ month: Int) -> String {
        (1...12).contains(month) ? monthAbbreviations[month - 1] : ""
    }

    static func monthName(_ month: Int) -> String {
        (1...12).contains(month) ? monthNames[month - 1] : ""
    }
}

extension Macros {
    /// The amount of one series: energy or a macro.
    public subscript(series: MacroSeries) -> Double {
        switch series {
        case .kcal: kcal
        case .carbohydrates: carbohydrates
        case .protein: protein
        case .fat: fat
        }
    }
}
