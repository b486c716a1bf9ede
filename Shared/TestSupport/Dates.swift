public import SousSchema

/// The tests' one way to write a date: `localDate("2026-03-10")`. A malformed literal is a bug in
/// the test, reported as such.
public func localDate(_ text: String) -> LocalDate {
    guard let parsed = LocalDate(text) else { preconditionFailure("\"\(text)\" is not a date in the form YYYY-MM-DD") }
    return parsed
}
