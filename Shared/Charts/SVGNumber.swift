/// Numbers as the charts write them: plain decimals with at most two places, no exponent, no
/// locale, the same bytes on every machine.
public enum SVGNumber {
    /// Magnitudes beyond this are written as this, so that no number needs an exponent and the
    /// arithmetic stays within `Int64`.
    public static let limit: Double = 1e12

    /// `value` rounded to hundredths ("12.5", "-3.07", "1000"): trailing zeros dropped, "-0"
    /// written as "0", and NaN or an infinity (which have no place in a drawing) written as "0".
    public static func format(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let clamped = min(max(value, -limit), limit)
        let hundredths = Int64((clamped * 100).rounded())
        let magnitude = hundredths.magnitude
        let whole = magnitude / 100
        let fraction = magnitude % 100
        var text = hundredths < 0 ? "-" : ""
        text += String(whole)
        if fraction != 0 {
            if fraction % 10 == 0 {
                text += "." + String(fraction / 10)
            } else if fraction < 10 {
                text += ".0" + String(fraction)
            } else {
                text += "." + String(fraction)
            }
        }
        return text
    }

    /// An axis label: plain below 10 000, then thousands ("12.5k") and millions ("1.5M"), one
    /// decimal at most. `scale` is the axis's largest value, so that every label of one axis
    /// uses the same suffix.
    public static func compact(_ value: Double, scale: Double) -> String {
        guard value.isFinite, value != 0 else { return "0" }
        let reference = scale.isFinite ? max(scale.magnitude, value.magnitude) : value.magnitude
        if reference >= 1_000_000 { return format(oneDecimal(value / 1_000_000)) + "M" }
        if reference >= 10_000 { return format(oneDecimal(value / 1_000)) + "k" }
        return format(value)
    }

    private static func oneDecimal(_ value: Double) -> Double { (value * 10).rounded() / 10 }
}
