import Foundation
public import SousSchema

extension PackChoice {
    /// How a list shows the packs to buy: "2 × 1 kg + 1 × 500 g €2.80, 300 g over", the
    /// leftover in `leftoverUnit` (the line's exact unit): grams and millilitres to the nearest,
    /// whole pieces only (half an onion left is no onion to put away), left out below one.
    public func summary(leftoverUnit: MeasureUnit?) -> String {
        let sizes = packs.map { "\($0.count) × \(String(format: "%g", $0.pack.quantity)) \($0.pack.unit.rawValue)" }.joined(separator: " + ")
        let whole = Int(leftoverUnit == .piece ? (leftover + 1e-6).rounded(.down) : leftover.rounded())
        let unit = leftoverUnit == .piece ? (whole == 1 ? "piece" : "pieces") : leftoverUnit?.rawValue ?? ""
        return "\(sizes) \(String(format: "€%.2f", price))" + (whole < 1 ? "" : ", \(whole) \(unit) over")
    }
}
