import SousSchema

/// A value axis from 0 up to a round top, with ticks every 1, 2 or 5 × 10ⁿ.
public struct AxisScale: Sendable, Equatable {
    /// The largest top an axis reaches: larger maxima are drawn against this one.
    public static let largest: Double = 1e9

    /// The distance between ticks: 1, 2 or 5 times a power of ten.
    public let step: Double
    /// The axis top: a whole number of steps, at least the maximum asked for.
    public let upper: Double

    /// An axis showing 0…`maximum` with about `tickCount` intervals (kept within 1–20).
    /// A maximum that is not finite, or below 0.01, gets the axis 0…1; one above ``largest`` is
    /// taken as ``largest``.
    public init(maximum: Double, tickCount: Int = 5) {
        let top = maximum.isFinite && maximum >= 0.01 ? min(maximum, Self.largest) : 1
        let intervals = Double(min(max(tickCount, 1), 20))
        let rough = top / intervals
        var magnitude = 1.0
        while magnitude * 10 <= rough { magnitude *= 10 }
        while magnitude > rough { magnitude /= 10 }
        let fraction = rough / magnitude
        let multiple: Double = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10
        step = multiple * magnitude
        // The small allowance keeps 6.000000001 steps (a rounding error) from becoming 7.
        upper = max((top / step - 1e-9).rounded(.up), 1) * step
    }

    /// 0, step, 2 × step, … up to ``upper``.
    public var ticks: [Double] {
        let count = (upper / step).roundedInt
        return (0...max(count, 1)).map { Double($0) * step }
    }

    /// Where `value` sits on the axis: 0 at the bottom, 1 at ``upper``; kept within 0…1, and 0 for
    /// NaN.
    public func fraction(of value: Double) -> Double {
        guard value.isFinite else { return value == .infinity ? 1 : 0 }
        return min(max(value / upper, 0), 1)
    }

    /// The tick label for `value`, with the same suffix ("k", "M") along the whole axis.
    public func label(_ value: Double) -> String {
        SVGNumber.compact(value, scale: upper)
    }
}
