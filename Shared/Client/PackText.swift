import Foundation
public import SousSchema

extension PackChoice {
    /// How a list shows the packs to buy: "2 × 1 kg + 1 × 500 g €2.80, 300 g over", the
    /// leftover in `leftoverUnit` (the line's exact unit), left out below half a unit.
    public func summary(leftoverUnit: MeasureUnit?) -> String {
        let sizes = packs.map { "\($0.count) × \(String(format: "%g", $0.pack.quantity)) \($0.pack.unit.rawValue)" }.joined(separator: " + ")
        let over = leftover < 0.5 ? "" : ", \(Int(leftover.rounded())) \(leftoverUnit?.rawValue ?? "") over"
        return "\(sizes) \(String(format: "€%.2f", price))\(over)"
    }
}
