import Foundation

/// The method and type reference of docs/PROTOCOL.md, rendered from the services' own
/// descriptions (`describe`), so the document cannot drift from the code: `swift run
/// sous-protocol-reference` rewrites it, and a test fails when the committed text differs.
///
/// The document keeps its prose; only the text between `<!-- BEGIN GENERATED name -->` and
/// `<!-- END GENERATED -->` is replaced.
public enum ProtocolReference {
    /// Methods every service serves, listed once.
    public static let commonBlock = "methods:every-service"
    public static let typesBlock = "types"

    public static func methodsBlock(of service: String) -> String { "methods:\(service)" }

    /// Every generated block by name: the methods every service answers, each service's own,
    /// and every type they use.
    public static func blocks(_ descriptions: [ServiceDescription]) -> [String: String] {
        let served = descriptions.map { Set($0.methods.map(\.name)) }
        let common = served.dropFirst().reduce(served.first ?? []) { $0.intersection($1) }
        var blocks: [String: String] = [:]
        if let first = descriptions.first {
            blocks[commonBlock] = methodTable(first.methods.filter { common.contains($0.name) })
        }
        var types: [String: WireType] = [:]
        for description in descriptions {
            blocks[methodsBlock(of: description.service)] = methodTable(description.methods.filter { !common.contains($0.name) })
            for type in description.types { types[type.name] = type }
        }
        blocks[typesBlock] = typeList(types.values.sorted { $0.name < $1.name })
        return blocks
    }

    static func methodTable(_ methods: [MethodDescription]) -> String {
        var lines = ["| method | request | reply | kind | access | lane | activity |", "| --- | --- | --- | --- | --- | --- | --- |"]
        for method in methods {
            let kind = !method.write ? "read" : method.replaysReply ? "write" : "write, reply not replayed"
            var request = code(method.request)
            if let required = method.required { request += " (needs " + required.map { "`\($0)`" }.joined(separator: ", ") + ")" }
            if let oneOf = method.oneOf { request += " (at least one of " + oneOf.map { "`\($0)`" }.joined(separator: ", ") + ")" }
            let cells = [
                "`\(method.name)`", request, code(method.reply), kind, method.access.rawValue, method.lane.rawValue,
                method.activity ? "yes" : "no",
            ]
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }

    /// One line per type: `{field: type, optional?: type}` or an enumeration's values.
    public static func typeList(_ types: [WireType]) -> String {
        types.map { type in
            switch type.kind {
            case .enum:
                return "- **`\(type.name)`** (enum): " + (type.values ?? []).map { "`\($0)`" }.joined(separator: " · ")
            default:
                let fields = (type.fields ?? []).map { "\($0.name)\($0.required ? "" : "?"): \($0.shape)" }.joined(separator: ", ")
                return "- **`\(type.name)`** `{\(fields)}`"
            }
        }.joined(separator: "\n")
    }

    private static func code(_ shape: WireShape) -> String { "`\(shape)`" }

    public struct MissingBlock: Error, CustomStringConvertible {
        public var name: String
        public var description: String { "docs/PROTOCOL.md has no <!-- BEGIN GENERATED \(name) --> … <!-- END GENERATED --> block" }
    }

    /// `document` with every block's text replaced.
    public static func replacingBlocks(in document: String, with blocks: [String: String]) throws(MissingBlock) -> String {
        var result = document
        for (name, text) in blocks.sorted(by: { $0.key < $1.key }) {
            let begin = "<!-- BEGIN GENERATED \(name) -->\n"
            let end = "<!-- END GENERATED -->"
            guard let start = result.range(of: begin), let stop = result.range(of: end, range: start.upperBound..<result.endIndex) else {
                throw MissingBlock(name: name)
            }
            result.replaceSubrange(start.upperBound..<stop.lowerBound, with: text + "\n")
        }
        return result
    }
}
