import Foundation
import SousSchema

/// A plain-text table with aligned columns; numeric columns are right-aligned.
struct Table {
    enum Alignment { case left, right }

    var headers: [String]
    var alignments: [Alignment]
    var rows: [[String]] = []

    init(_ columns: [(String, Alignment)]) {
        headers = columns.map(\.0)
        alignments = columns.map(\.1)
    }

    mutating func add(_ row: [String]) { rows.append(row) }

    func render() -> String {
        var widths = headers.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let padding = String(repeating: " ", count: max(widths[index] - cell.count, 0))
                return alignments[index] == .right ? padding + cell : cell + padding
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }
        var lines = [line(headers), line(widths.map { String(repeating: "─", count: $0) })]
        lines += rows.map(line)
        return lines.joined(separator: "\n")
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var result = self
        while result.last == " " { result.removeLast() }
        return result
    }

    /// Cut to `length` characters with an ellipsis.
    func truncated(_ length: Int) -> String {
        count <= length ? self : String(prefix(length - 1)) + "…"
    }
}

func money(_ euros: Double) -> String { String(format: "€%.2f", euros) }

/// A price, or "no price" for a food no shop price is known for (never €0).
func money(_ euros: Double?) -> String { euros.map(money) ?? "no price" }

/// An ingredient's price per kg, l or piece, or "no price".
func money(_ price: Price?) -> String { price.map { "\(money($0.amount))/\($0.per.rawValue)" } ?? "no price" }
func number(_ value: Double, decimals: Int = 1) -> String {
    value == value.rounded() && decimals <= 1 ? String(Int(value)) : String(format: "%.\(decimals)f", value)
}
