import Foundation

/// The fields of a submitted form (URL-encoded or multipart), in the order sent; each value
/// checked once for size when the body is read (``WebLimits``).
struct Form: Sendable {
    struct File: Sendable {
        var field: String
        var filename: String
        var contentType: String
        var bytes: [UInt8]
    }

    private(set) var fields: [(name: String, value: String)] = []
    private(set) var files: [File] = []

    init(fields: [(name: String, value: String)] = [], files: [File] = []) {
        self.fields = fields
        self.files = files
    }

    /// The first value of `name`, trimmed; nil when absent or blank.
    func text(_ name: String) -> String? {
        guard let value = fields.first(where: { $0.name == name })?.value.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else {
            return nil
        }
        return value
    }

    /// Every value of `name` (checkboxes, repeated inputs), blanks left out.
    func all(_ name: String) -> [String] {
        fields.filter { $0.name == name }.map { $0.value.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
    }

    /// The value of `name`, without trimming (passwords keep their spaces).
    func raw(_ name: String) -> String? {
        fields.first(where: { $0.name == name })?.value
    }

    func has(_ name: String) -> Bool { fields.contains { $0.name == name } }

    func required(_ name: String, label: String) throws(WebError) -> String {
        guard let value = text(name) else { throw .field(name, "\(label) is required") }
        return value
    }

    func integer(_ name: String, label: String, in range: ClosedRange<Int>) throws(WebError) -> Int? {
        guard let text = text(name) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw .field(name, "\(label) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// One of an enumeration's values, by its raw value.
    func choice<Choice: RawRepresentable & CaseIterable>(_ name: String, label: String, of _: Choice.Type) throws(WebError) -> Choice
    where Choice.RawValue == String {
        guard let value = text(name).flatMap(Choice.init(rawValue:)) else {
            throw .field(name, "\(label) must be one of \(Choice.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }

    func number(_ name: String, label: String, in range: ClosedRange<Double>) throws(WebError) -> Double? {
        guard let text = text(name)?.replacingOccurrences(of: ",", with: ".") else { return nil }
        guard let value = Double(text), value.isFinite, range.contains(value) else {
            throw .field(
                name, "\(label) must be a number from \(range.lowerBound.formatted(decimals: 0)) to \(range.upperBound.formatted(decimals: 0))")
        }
        return value
    }

    func file(_ name: String) -> File? { files.first { $0.field == name && !$0.bytes.isEmpty } }
}

// MARK: Reading bodies

enum FormReader {
    /// Fields of an `application/x-www-form-urlencoded` body.
    static func urlEncoded(_ bytes: [UInt8], limits: WebLimits) throws(WebError) -> Form {
        var fields: [(name: String, value: String)] = []
        for pair in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            guard fields.count < limits.formFields else { throw .tooLarge("a form may have at most \(limits.formFields) fields") }
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]) else { throw .badForm("a field name is not valid percent-encoded UTF-8") }
            guard let value = decode(parts.count > 1 ? parts[1] : []) else { throw .field(name, "\(name) is not valid text") }
            guard value.count <= limits.fieldCharacters else { throw .field(name, "\(name) may be at most \(limits.fieldCharacters) characters") }
            fields.append((name, value))
        }
        return Form(fields: fields)
    }

    /// `+` as space and `%XX` escapes, then UTF-8; nil for a bad escape or bytes that are not UTF-8.
    static func decode(_ bytes: some Collection<UInt8>) -> String? {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var iterator = bytes.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"): output.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                output.append(high << 4 | low)
            default: output.append(byte)
            }
        }
        return String(validating: output, as: UTF8.self)
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Fields and files of a `multipart/form-data` body (RFC 7578) with `boundary`.
    static func multipart(_ body: [UInt8], boundary: String, limits: WebLimits) throws(WebError) -> Form {
        let delimiter = Array("--\(boundary)".utf8)
        guard !boundary.isEmpty, boundary.utf8.count <= 70 else { throw .badForm("the multipart boundary is missing or too long") }
        var fields: [(name: String, value: String)] = []
        var files: [Form.File] = []
        var position = 0
        guard let first = body.firstRange(of: delimiter, from: 0) else { throw .badForm("the upload is not multipart/form-data") }
        position = first.upperBound
        while true {
            // After a delimiter: "--" ends the body, CRLF starts a part.
            if body.hasBytes("--", at: position) { break }
            guard body.hasBytes("\r\n", at: position) else { throw .badForm("the upload's parts are malformed") }
            let headersStart = position + 2
            guard let headersEnd = body.firstRange(of: Array("\r\n\r\n".utf8), from: headersStart) else {
                throw .badForm("a part of the upload has no end to its headers")
            }
            guard let next = body.firstRange(of: Array("\r\n".utf8) + delimiter, from: headersEnd.upperBound) else {
                throw .badForm("the upload ends in the middle of a part")
            }
            guard fields.count + files.count < limits.formFields else { throw .tooLarge("a form may have at most \(limits.formFields) fields") }
            let headers = String(decoding: body[headersStart..<headersEnd.lowerBound], as: UTF8.self)
            let content = Array(body[headersEnd.upperBound..<next.lowerBound])
            let disposition = Self.disposition(headers)
            guard let name = disposition["name"] else { throw .badForm("a part of the upload has no field name") }
            if let filename = disposition["filename"] {
                let type = Self.header("content-type", in: headers) ?? "application/octet-stream"
                files.append(Form.File(field: name, filename: filename, contentType: type, bytes: content))
            } else {
                guard let value = String(validating: content, as: UTF8.self) else { throw .field(name, "\(name) is not valid text") }
                guard value.count <= limits.fieldCharacters else { throw .field(name, "\(name) may be at most \(limits.fieldCharacters) characters") }
                fields.append((name, value))
            }
            position = next.upperBound
        }
        return Form(fields: fields, files: files)
    }

    private static func header(_ name: String, in headers: String) -> String? {
        for line in headers.split(separator: "\r\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == name {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// The `name` and `filename` parameters of a part's Content-Disposition.
    private static func disposition(_ headers: String) -> [String: String] {
        guard let value = header("content-disposition", in: headers) else { return [:] }
        var parameters: [String: String] = [:]
        for item in value.split(separator: ";").dropFirst() {
            let pair = item.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            var text = pair[1].trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = String(text.dropFirst().dropLast()) }
            parameters[pair[0].trimmingCharacters(in: .whitespaces).lowercased()] = text
        }
        return parameters
    }

    /// The `boundary` parameter of a multipart Content-Type.
    static func boundary(of contentType: String) -> String? {
        for item in contentType.split(separator: ";").dropFirst() {
            let pair = item.split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" {
                var value = pair[1].trimmingCharacters(in: .whitespaces)
                if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
                return value
            }
        }
        return nil
    }
}

extension [UInt8] {
    func firstRange(of needle: [UInt8], from start: Int) -> Range<Int>? {
        guard !needle.isEmpty, count >= needle.count, start <= count - needle.count else { return nil }
        var index = start
        let first = needle[0]
        while index <= count - needle.count {
            if self[index] == first, self[index..<index + needle.count].elementsEqual(needle) { return index..<index + needle.count }
            index += 1
        }
        return nil
    }

    func hasBytes(_ text: String, at index: Int) -> Bool {
        let bytes = Array(text.utf8)
        return index + bytes.count <= count && self[index..<index + bytes.count].elementsEqual(bytes)
    }
}

extension Double {
    /// At most `decimals` digits after the point, trailing zeros left out ("2.5", "300").
    func formatted(decimals: Int) -> String {
        var text = String(format: "%.\(decimals)f", self)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text == "-0" ? "0" : text
    }
}
