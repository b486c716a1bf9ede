import Testing

@testable import MessagePack

/// The writer's own buffer and the key tables of the direct path, which replaced an array per
/// message and an array per key.
struct WriterAndKeyTableTests {
    @Test func theWriterGrowsPastItsCapacityAndKeepsEveryByte() throws {
        let texts = (0..<5_000).map { String(repeating: $0.isMultiple(of: 2) ? "é" : "a", count: $0 % 300) }
        var writer = MessagePackWriter(capacity: 1)
        writer.writeArrayHeader(count: texts.count)
        for text in texts { writer.write(text) }
        let bytes = writer.bytes
        #expect(writer.count == bytes.count)
        #expect(bytes.count > 700_000)
        #expect(try MessagePackDecoder().decode([String].self, from: bytes) == texts)
        #expect(writer.bytes(from: bytes.count - 3) == Array(bytes.suffix(3)))
        writer.withBytes { #expect(Array($0) == bytes) }
    }

    @Test func aKeyTableFindsEachKeyFromAnyHintAndNothingElse() {
        // Same length, first and last byte (one hash bucket), prefixes, the empty key, long keys.
        let keys: [StaticString] = ["abc", "axc", "ab", "abcd", "", "ingredientFacts", "ingredientFactz", "a_rather_long_key_of_forty_bytes_or_so!!"]
        let table = MessagePackKeyTable(keys)
        for (index, key) in keys.enumerated() {
            key.withUTF8Buffer { utf8 in
                for hint in 0...keys.count { #expect(table.index(of: utf8, hint: hint) == index, "\(key) from hint \(hint)") }
            }
        }
        for unknown in ["abd", "a", "abcde", "ingredientFacts ", "x", "a_rather_long_key_of_forty_bytes_or_so!?"] {
            let bytes = Array(unknown.utf8)
            let found = bytes.withUnsafeBufferPointer { table.index(of: $0, hint: 0) }
            #expect(found == -1, "\(unknown)")
        }
    }
}
