import Foundation
public import SousSchema

/// Reads Open Food Facts product files line by line into ``Product``s: JSON lines (a product
/// object per line as the OFF API returns it, or the API's `{"code", "product": {…}}` wrapper)
/// or the OFF CSV export (tab-separated in real exports; a comma header is accepted too, told
/// apart by the header line). Pure: the CLI feeds it lines and sends the products in batches.
///
/// A row is rejected, with a reason, when its code or name is missing, its check digit is wrong,
/// or any of energy-kcal, carbohydrates, proteins and fat per 100 g is missing, not a number,
/// negative or impossible (over 900 kcal or 100 g). Quoted CSV fields may not span lines.
public struct ProductFileParser: Sendable {
    public enum Format: Equatable, Sendable {
        case jsonLines
        case separated(Character)
    }

    /// A skipped row and why.
    public struct Rejection: Equatable, Sendable {
        public var line: Int
        public var reason: String

        public init(line: Int, reason: String) {
            self.line = line
            self.reason = reason
        }
    }

    public enum Outcome: Equatable, Sendable {
        case product(Product)
        case rejected(Rejection)
        /// A header or blank line.
        case skipped
    }

    public private(set) var format: Format?
    private var columns: [String: Int] = [:]

    public init() {}

    /// Parses the line numbered `number` (1-based). The first non-blank line decides the format.
    public mutating func parse(line rawLine: String, number: Int) -> Outcome {
        let line = rawLine.hasSuffix("\r") ? String(rawLine.dropLast()) : rawLine
        if line.trimmingCharacters(in: .whitespaces).isEmpty { return .skipped }
        if format == nil {
            if line.hasPrefix("{") {
                format = .jsonLines
            } else {
                let separator: Character = line.contains("\t") ? "\t" : ","
                format = .separated(separator)
                let names = Self.split(line, separator: separator).map { $0.trimmingCharacters(in: .whitespaces) }
                for (index, name) in names.enumerated() where columns[name] == nil { columns[name] = index }
                guard columns["code"] != nil else {
                    return .rejected(Rejection(line: number, reason: "the header has no \"code\" column"))
                }
                return .skipped
            }
        }
        let fields: Fields
        switch format {
        case .jsonLines:
            guard let data = line.data(using: .utf8),
                let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
            else {
                return .rejected(Rejection(line: number, reason: "not a JSON object"))
            }
            fields = Self.fields(json: object)
        case .separated(let separator):
            let cells = Self.split(line, separator: separator)
            let columns = columns
            fields = { name in
                guard let index = columns[name], index < cells.count else { return nil }
                let value = cells[index].trimmingCharacters(in: .whitespaces)
                return value.isEmpty ? nil : value
            }
        case nil:
            return .skipped
        }
        switch Self.product(fields) {
        case .success(let product): return .product(product)
        case .failure(let problem): return .rejected(Rejection(line: number, reason: problem.message))
        }
    }

    /// Looks up a field by its OFF name; nil when missing or empty.
    private typealias Fields = (String) -> String?

    private static func fields(json: [String: Any]) -> Fields {
        var product = json
        if let inner = json["product"] as? [String: Any] {
            product = inner
            if product["code"] == nil { product["code"] = json["code"] }
        }
        let nutriments = product["nutriments"] as? [String: Any] ?? [:]
        return { name in
            let value = nutriments[name] ?? product[name]
            switch value {
            case let text as String: return text.isEmpty ? nil : text
            case let number as NSNumber: return number.stringValue
            case let list as [Any]: return list.compactMap { $0 as? String }.joined(separator: ",")
            default: return nil
            }
        }
    }

    private static func product(_ field: Fields) -> Result<Product, BarcodeProblem> {
        guard let code = field("code") else { return .failure(BarcodeProblem(message: "missing code")) }
        if case .failure(let problem) = Barcode.check(code) { return .failure(problem) }
        guard let name = field("product_name") ?? field("product_name_en") else {
            return .failure(BarcodeProblem(message: "missing product_name"))
        }
        var values: [Double] = []
        for (key, limit) in [("energy-kcal_100g", 900.0), ("carbohydrates_100g", 100), ("proteins_100g", 100), ("fat_100g", 100)] {
            if key == "energy-kcal_100g", field(key) == nil, let energy = kilocalories(fromKilojoulesIn: field) {
                switch energy {
                case .success(let kcal): values.append(kcal)
                case .failure(let problem): return .failure(problem)
                }
                continue
            }
            guard let text = field(key) else { return .failure(BarcodeProblem(message: "missing \(key)")) }
            guard let value = Double(text), value.isFinite else {
                return .failure(BarcodeProblem(message: "\(key) is not a number: \(text.prefix(20))"))
            }
            guard value >= 0, value <= limit else { return .failure(BarcodeProblem(message: "\(key) is out of range: \(text)")) }
            values.append(value)
        }
        let allergens = (field("allergens_tags") ?? field("allergens") ?? "")
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return .success(
            Product(
                code: code, name: String(name.prefix(200)), brand: field("brands"), quantity: field("quantity"),
                per100g: Macros(kcal: values[0], carbohydrates: values[1], protein: values[2], fat: values[3]), allergens: allergens
            ))
    }

    /// The energy of a row that gives it only in kilojoules (`energy-kj_100g`, or Open Food
    /// Facts' `energy_100g`, which is in kJ), in kcal: kJ ÷ 4.184, to a tenth. Nil when the row
    /// gives neither.
    private static func kilocalories(fromKilojoulesIn field: Fields) -> Result<Double, BarcodeProblem>? {
        guard let key = ["energy-kj_100g", "energy_100g"].first(where: { field($0) != nil }), let text = field(key) else { return nil }
        guard let kilojoules = Double(text), kilojoules.isFinite else {
            return .failure(BarcodeProblem(message: "\(key) is not a number: \(text.prefix(20))"))
        }
        let kcal = (kilojoules / 4.184 * 10).rounded() / 10
        guard kcal >= 0, kcal <= 900 else { return .failure(BarcodeProblem(message: "\(key) is out of range: \(text)")) }
        return .success(kcal)
    }

    /// Splits one line on `separator`, honouring RFC 4180 double quotes ("" is a quote).
    static func split(_ line: String, separator: Character) -> [String] {
        var cells: [String] = []
        var current = ""
        var quoted = false
        var iterator = line.makeIterator()
        var pending: Character? = nil
        while let character = pending ?? iterator.next() {
            pending = nil
            if quoted {
                if character == "\"" {
                    let next = iterator.next()
                    if next == "\"" {
                        current.append("\"")
                    } else {
                        quoted = false
                        pending = next
                    }
                } else {
                    current.append(character)
                }
            } else if character == "\"" && current.isEmpty {
                quoted = true
            } else if character == separator {
                cells.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        cells.append(current)
        return cells
    }
}
