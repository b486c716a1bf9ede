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

    /// The encoder writes into the array it returns; a writer lent memory continues in its own
    /// once it is full, with everything written so far.
    @Test func aWriterOutgrowsMemoryItWasLentWithoutLosingAByte() throws {
        var lent = [UInt8](repeating: 0, count: 64)
        lent.withUnsafeMutableBufferPointer { memory in
            var writer = MessagePackWriter(lending: memory)
            writer.writeArrayHeader(count: 2)
            writer.write("short")
            let fitted = writer.isInLentMemory
            let written = writer.bytes
            #expect(fitted && Array(memory[0..<written.count]) == written)
            writer.write(String(repeating: "x", count: 100))
            let outgrown = !writer.isInLentMemory
            let all = writer.bytes
            #expect(outgrown && Array(all.prefix(written.count)) == written)
            #expect((try? MessagePackDecoder().decode([String].self, from: all)) == ["short", String(repeating: "x", count: 100)])
        }
        // Around the encoder's first 4 KB: the same values back, whichever memory they ended in.
        for count in [0, 1, 400, 401, 402, 5_000] {
            let texts = (0..<count).map { _ in "1234567" }
            let bytes = try MessagePackEncoder().encode(texts)
            #expect(try MessagePackDecoder().decode([String].self, from: bytes) == texts, "\(count) strings, \(bytes.count) bytes")
        }
        // A small message does not keep the encoder's 4 KB: kept bytes (search keys, replies)
        // cost what they hold.
        let small = try MessagePackEncoder().encode(["a key"])
        #expect(small.count < 16 && small.capacity < 256, "\(small.capacity) bytes of capacity")
        let filled = try MessagePackEncoder().encode([String](repeating: "1234567", count: 400))
        #expect(filled.count > 2048 && filled.capacity >= 4096, "\(filled.count) bytes left in the array they were written in")
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

    /// Keys compared as the words they encode to, as the macro's generated code passes them:
    /// a match whatever bytes follow the key, nothing read on a mismatch (a prefix, a longer key,
    /// one byte off), and no match within a word of the end of the input.
    @Test func aKeyComparedAsWordsMatchesExactlyWhateverFollows() {
        func encoded(_ key: String) -> [UInt8] {
            var writer = MessagePackWriter()
            writer.write(key)
            return writer.bytes
        }
        func words(_ key: String) -> (length: Int, words: [UInt64]) {
            let bytes = encoded(key)
            let words = stride(from: 0, to: bytes.count, by: 8).map { start in
                bytes[start..<min(start + 8, bytes.count)].enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << UInt64(8 * $1.offset) }
            }
            return (bytes.count, words + Array(repeating: 0, count: 4 - words.count))
        }
        func next(_ key: String, in input: [UInt8]) -> (matched: Bool, position: Int) {
            input.withUnsafeBufferPointer { buffer in
                var reader = MessagePackFastReader(storage: input, bytes: buffer, position: 0, depth: 0, maxDepth: 8, rejectsNUL: true)
                let (length, w) = words(key)
                let matched = reader.nextKey(length, w[0], w[1], w[2], w[3])
                return (matched, reader.position)
            }
        }
        let keys = ["a", "ab", "abcdefg", "abcdefgh", "ingredientFacts", "ingredientFactz", "a_key_of_exactly_thirty_one_by"]
        for follower: UInt8 in [0, 0x61, 0xff] {
            for key in keys {
                let input = encoded(key) + Array(repeating: follower, count: 32)
                #expect(next(key, in: input) == (true, encoded(key).count), "\(key)")
                for other in [key + "x", String(key.dropLast()), String(key.dropLast()) + "?"] where other != key {
                    #expect(next(other, in: input) == (false, 0), "\(other) against \(key)")
                }
            }
        }
        // {"a": true} at the very end of the input: too short to read a word, so no match (the
        // table's lookup reads it instead).
        #expect(next("a", in: encoded("a") + [0xc3]) == (false, 0))
    }

    /// The scan that decides a string's path: ASCII or not, NUL or not, a byte of either kind
    /// at every position of strings of every length around the eight-byte words.
    @Test func theStringScanFindsEveryNonASCIIAndNULByte() {
        for length in 0...40 {
            let plain = [UInt8](repeating: 0x41, count: length)
            plain.withUnsafeBufferPointer { #expect(MessagePackFastReader.scan($0) == (true, false)) }
            for position in 0..<length {
                for (byte, expected) in [
                    (UInt8(0), (true, true)), (0x80, (false, false)), (0xff, (false, false)), (0x7f, (true, false)), (0x01, (true, false)),
                ] {
                    var bytes = plain
                    bytes[position] = byte
                    bytes.withUnsafeBufferPointer { #expect(MessagePackFastReader.scan($0) == expected, "\(byte) at \(position) of \(length)") }
                }
            }
        }
    }
}
