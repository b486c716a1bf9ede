extension Double {
    /// The nearest whole number as an `Int`, for counts and text: never traps. A value beyond
    /// `Int`'s range gives its nearest end and NaN gives 0, so a hostile stored number can reach a
    /// message without stopping the service that writes it.
    public var roundedInt: Int {
        guard !isNaN else { return 0 }
        let whole = rounded()
        if whole >= 9.2e18 { return Int.max }
        if whole <= -9.2e18 { return Int.min }
        return Int(whole)
    }
}
