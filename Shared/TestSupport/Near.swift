/// Equal within floating-point noise: `tolerance` relative to the expected value (absolute below 1).
public func near(_ a: Double?, _ b: Double, tolerance: Double = 1e-9) -> Bool {
    guard let a else { return false }
    return abs(a - b) <= tolerance * max(1, abs(b))
}

/// Equal within floating-point noise, element by element (absolute tolerance).
public func near(_ values: [Double], _ expected: [Double], tolerance: Double = 1e-6) -> Bool {
    values.count == expected.count && zip(values, expected).allSatisfy { abs($0 - $1) <= tolerance }
}
