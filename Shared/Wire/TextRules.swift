extension StringProtocol {
    /// True when it holds a control character (Unicode general category Cc: the C0 codes, DEL and
    /// the C1 codes), which no name or label needs. Format characters are text: the zero-width
    /// joiner of 👩‍🍳, the non-joiner of Persian spelling, the soft hyphen.
    public var containsControlCharacter: Bool { unicodeScalars.contains { $0.properties.generalCategory == .control } }
}
