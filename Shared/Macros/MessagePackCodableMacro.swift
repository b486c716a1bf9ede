import Foundation
import SwiftCompilerPlugin
import SwiftDiagnostics
public import SwiftSyntax
import SwiftSyntaxBuilder
public import SwiftSyntaxMacros

/// `@MessagePackCodable` derives a direct MessagePack encoding and decoding from a type's own
/// `Codable` declaration, so the schema is declared once and the codec skips the boxing of the
/// generic `Encoder`/`Decoder` path.
///
/// What it reads, in the order `Codable` itself would:
/// - the stored properties (or the cases of a `CodingKeys` enum and their raw values);
/// - a hand-written `init(from:)` made only of `decode`, `decodeIfPresent` and
///   `decodeIfPresent(…) ?? default` lines: it becomes the same decoding with the same defaults;
/// - any other hand-written `init(from:)` or `encode(to:)`: that direction goes through the type's
///   `Codable` conformance (correct, not faster).
///
/// On an enumeration with `String` raw values it only adds the conformances; their coding is the
/// raw value.
public struct MessagePackCodableMacro: ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax, providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        if let enumeration = declaration.as(EnumDeclSyntax.self) {
            let inherits = enumeration.inheritanceClause?.inheritedTypes.map { $0.type.trimmedDescription } ?? []
            guard inherits.contains("String") else {
                throw MacroError("@MessagePackCodable applies to enumerations with String raw values only")
            }
            return [try enumerationExtension(enumeration, type: type)]
        }
        guard declaration.is(StructDeclSyntax.self) else {
            throw MacroError("@MessagePackCodable applies to structs and String enumerations")
        }
        let access = declaration.modifiers.contains { $0.name.tokenKind == .keyword(.public) } ? "public " : ""
        let model = try TypeModel(declaration)

        var members: [String] = []
        if let encoded = model.encodedExpressions {
            // A hand-written encode(to:) the macro could read: the same keys and values, in order.
            var body = ["writer.writeMapHeader(count: \(encoded.count))"]
            for entry in encoded {
                body.append(writeKey(entry.key))
                body.append("try writer.writeField(\(entry.expression))")
            }
            members.append(
                """
                \(access)func writeMessagePack(to writer: inout MessagePackWriter) throws {
                    \(body.joined(separator: "\n"))
                }
                """)
        } else if model.customEncode {
            members.append(
                """
                \(access)func writeMessagePack(to writer: inout MessagePackWriter) throws {
                    try writer.writeWithCodable(self)
                }
                """)
        } else {
            var body = ["writer.writeMapHeader(count: \(model.fields.count))"]
            for field in model.fields {
                body.append(writeKey(field.key))
                body.append("try writer.writeField(self.\(field.property))")
            }
            members.append(
                """
                \(access)func writeMessagePack(to writer: inout MessagePackWriter) throws {
                    \(body.joined(separator: "\n"))
                }
                """)
        }

        if let fields = model.decodedFields {
            guard fields.count <= 64 else { throw MacroError("@MessagePackCodable handles at most 64 fields") }
            let keys = fields.map { literal($0.key) }.joined(separator: ", ")
            members.append("private static let messagePackKeys = MessagePackKeyTable([\(keys)])")
            var body: [String] = []
            for (index, field) in fields.enumerated() {
                body.append("var field\(index): (\(field.type))? = nil")
            }
            // Keys in declaration order, as every encoder of this schema writes them, are each
            // one comparison with the bytes the key encodes to; the first key out of that order
            // (or unknown, or too long) hands the rest of the map to the table's lookup.
            body.append("let count = try reader.readMapHeader()")
            var inOrder: [String] = []
            for (index, field) in fields.enumerated() {
                guard let words = keyWords(field.key) else { break }
                inOrder.append("guard read < count, reader.nextKey(\(words)) else { break inOrder }")
                switch field.presence {
                case .required: inOrder.append("field\(index) = try reader.decode((\(field.type)).self)")
                case .ifPresent, .defaulted: inOrder.append("field\(index) = try reader.decodeIfPresent((\(field.type)).self)")
                }
                inOrder.append("read = \(index + 1)")
            }
            if inOrder.isEmpty {
                body.append("let read = 0")
            } else {
                body.append("var read = 0")
                body += ["inOrder: do {"] + inOrder + ["}"]
            }
            // The keys read in order are seen (a shift by 64 is 0, so 64 of them are all ones).
            body.append("var seen: UInt64 = (1 << UInt64(read)) &- 1")
            body.append("var hint = read")
            body.append("for _ in read..<count {")
            body.append("let index = try reader.readKeyIndex(in: Self.messagePackKeys, hint: &hint, seen: &seen)")
            body.append("switch index {")
            for (index, field) in fields.enumerated() {
                switch field.presence {
                case .required:
                    body.append("case \(index): field\(index) = try reader.decode((\(field.type)).self)")
                case .ifPresent, .defaulted:
                    body.append("case \(index): field\(index) = try reader.decodeIfPresent((\(field.type)).self)")
                }
            }
            body.append("default: try reader.skipValue()")
            body.append("}")
            body.append("}")
            for (index, field) in fields.enumerated() {
                switch field.presence {
                case .required:
                    body.append("guard let field\(index) else { throw MessagePackFastPathMiss.missing(\(literal(field.key))) }")
                    body.append("self.\(field.property) = field\(index)")
                case .ifPresent:
                    body.append("self.\(field.property) = field\(index)")
                case .defaulted(let fallback):
                    body.append("self.\(field.property) = field\(index) ?? \(fallback)")
                }
            }
            members.append(
                """
                \(access)init(messagePack reader: inout MessagePackFastReader) throws {
                    \(body.joined(separator: "\n"))
                }
                """)
        } else {
            members.append(
                """
                \(access)init(messagePack reader: inout MessagePackFastReader) throws {
                    self = try reader.decodeWithCodable(Self.self)
                }
                """)
        }

        let source = "extension \(type.trimmed): MessagePackEncodable, MessagePackDecodable {\n\(members.joined(separator: "\n\n"))\n}"
        return [try ExtensionDeclSyntax("\(raw: source)")]
    }

    /// A String enumeration reads its raw value without making a String of it: the bytes are
    /// compared with each case's raw value, in declaration order.
    private static func enumerationExtension(_ enumeration: EnumDeclSyntax, type: some TypeSyntaxProtocol) throws -> ExtensionDeclSyntax {
        let custom = enumeration.memberBlock.members.contains { member in
            if let initializer = member.decl.as(InitializerDeclSyntax.self) {
                return initializer.signature.parameterClause.parameters.first?.firstName.text == "from"
            }
            if let function = member.decl.as(FunctionDeclSyntax.self) { return function.name.text == "encode" }
            return false
        }
        var cases: [(name: String, raw: String)] = []
        for member in enumeration.memberBlock.members {
            guard let declaration = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
            for element in declaration.elements {
                guard element.parameterClause == nil else { throw MacroError("@MessagePackCodable: a case with associated values") }
                let name = element.name.text
                var raw = name.trimmingCharacters(in: CharacterSet(charactersIn: "`"))
                if let value = element.rawValue?.value {
                    guard let literal = value.as(StringLiteralExprSyntax.self) else {
                        throw MacroError("@MessagePackCodable: raw values must be string literals")
                    }
                    raw = literal.segments.map { $0.trimmedDescription }.joined()
                }
                cases.append((name, raw))
            }
        }
        // A hand-written Codable conformance keeps the raw-value default (through Self(rawValue:)).
        guard !custom, !cases.isEmpty, cases.count <= 64 else {
            return try ExtensionDeclSyntax("extension \(type.trimmed): MessagePackEncodable, MessagePackDecodable {}")
        }
        let access = enumeration.modifiers.contains { $0.name.tokenKind == .keyword(.public) } ? "public " : ""
        let raws = cases.map { literal($0.raw) }.joined(separator: ", ")
        // A switch, not an array of the cases: no second static to reach, no bounds check.
        let switchCases = cases.enumerated().map { "case \($0.offset): self = .\($0.element.name)" }.joined(separator: "\n")
        // Each raw value written as the words of its bytes (no String made of it), when all fit.
        let rawWords = cases.map { keyWords($0.raw) }
        var write = ""
        if rawWords.allSatisfy({ $0 != nil }) {
            let writes = zip(cases, rawWords).map { "case .\($0.name): writer.writeShortString(\($1!))" }.joined(separator: "\n")
            write = """

                \(access)func writeMessagePack(to writer: inout MessagePackWriter) {
                    switch self {
                    \(writes)
                    }
                }
                """
        }
        // A few cases are compared one by one with the bytes their raw values encode to (a
        // word or two each) before the table's lookup.
        var direct = ""
        if cases.count <= 16, rawWords.allSatisfy({ $0 != nil }) {
            direct = zip(cases, rawWords).map { "if reader.nextKey(\($1!)) { self = .\($0.name); return }" }.joined(separator: "\n")
        }
        let source = """
            extension \(type.trimmed): MessagePackEncodable, MessagePackDecodable {
                private static let messagePackRawValues = MessagePackKeyTable([\(raws)])
                \(write)

                \(access)init(messagePack reader: inout MessagePackFastReader) throws {
                    \(direct)
                    switch try reader.readCaseIndex(in: Self.messagePackRawValues) {
                    \(switchCases)
                    default: throw MessagePackFastPathMiss("not a case")
                    }
                }
            }
            """
        return try ExtensionDeclSyntax("\(raw: source)")
    }

    /// A key as the bytes it encodes to (a fixstr header, then its UTF-8), packed little-endian
    /// into the 64-bit words ``MessagePackWriter/writeShortString(_:_:_:_:_:)`` and
    /// ``MessagePackFastReader/nextKey(_:_:_:_:_:)`` take: "length, word, word…"; nil for a
    /// key of more than 31 bytes (a str8 header).
    static func keyWords(_ key: String) -> String? {
        let utf8 = Array(key.utf8)
        guard utf8.count <= 31 else { return nil }
        let bytes = [0xa0 | UInt8(utf8.count)] + utf8
        var words: [String] = []
        for start in stride(from: 0, to: bytes.count, by: 8) {
            var word: UInt64 = 0
            for (shift, byte) in bytes[start..<min(start + 8, bytes.count)].enumerated() { word |= UInt64(byte) << UInt64(8 * shift) }
            words.append("0x" + String(word, radix: 16))
        }
        return ([String(bytes.count)] + words).joined(separator: ", ")
    }

    private static func writeKey(_ key: String) -> String {
        keyWords(key).map { "writer.writeShortString(\($0))" } ?? "writer.writeKey(\(literal(key)))"
    }

    private static func literal(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}

/// What the macro learned of a struct from its declaration.
struct TypeModel {
    struct Field {
        var property: String
        var key: String
        /// The type to decode, without the optional of an optional property.
        var type: String
        var presence: Presence
        /// `let x = value`: Codable writes it and never reads it back.
        var encodeOnly = false
    }

    enum Presence {
        case required
        case ifPresent
        case defaulted(String)
    }

    /// Encoded fields in `Codable`'s order.
    var fields: [Field] = []
    /// The fields to decode, or nil when the hand-written `init(from:)` is not one the macro can read.
    var decodedFields: [Field]?
    var customEncode = false
    /// What a hand-written `encode(to:)` made only of `container.encode(value, forKey: .k)` lines
    /// writes, in order; nil when there is no such function or the macro cannot read it.
    var encodedExpressions: [(key: String, expression: String)]?

    init(_ declaration: some DeclGroupSyntax) throws {
        var properties: [(name: String, type: String, optional: Bool, encodeOnly: Bool)] = []
        var codingKeys: [(property: String, key: String)]?
        var customDecode: InitializerDeclSyntax?
        var customEncodeFunction: FunctionDeclSyntax?

        for member in declaration.memberBlock.members {
            let decl = member.decl
            if let variable = decl.as(VariableDeclSyntax.self) {
                if variable.modifiers.contains(where: { ["static", "class", "lazy"].contains($0.name.text) }) { continue }
                let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
                var pendingNames: [String] = []
                for binding in variable.bindings {
                    guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text else { continue }
                    if let accessors = binding.accessorBlock {
                        // A computed property is not stored; observers (willSet/didSet) still are.
                        guard case .accessors(let list) = accessors.accessors,
                            list.allSatisfy({ ["willSet", "didSet"].contains($0.accessorSpecifier.text) })
                        else { continue }
                    }
                    // `let x = value` is written but never read back, as Codable does.
                    if isLet && binding.initializer != nil {
                        properties.append((name, binding.typeAnnotation?.type.trimmedDescription ?? "", false, true))
                        continue
                    }
                    pendingNames.append(name)
                    if let annotation = binding.typeAnnotation {
                        let (type, optional) = Self.unwrapOptional(annotation.type)
                        for pending in pendingNames { properties.append((pending, type, optional, false)) }
                        pendingNames = []
                    }
                }
                if !pendingNames.isEmpty {
                    throw MacroError("@MessagePackCodable needs a type annotation on \(pendingNames.joined(separator: ", "))")
                }
            } else if let enumeration = decl.as(EnumDeclSyntax.self), enumeration.name.text == "CodingKeys" {
                var keys: [(String, String)] = []
                for caseMember in enumeration.memberBlock.members {
                    guard let cases = caseMember.decl.as(EnumCaseDeclSyntax.self) else { continue }
                    for element in cases.elements {
                        let name = element.name.text.trimmingCharacters(in: CharacterSet(charactersIn: "`"))
                        var key = name
                        if let raw = element.rawValue?.value.as(StringLiteralExprSyntax.self) {
                            key = raw.segments.map { $0.trimmedDescription }.joined()
                        }
                        keys.append((name, key))
                    }
                }
                codingKeys = keys
            } else if let initializer = decl.as(InitializerDeclSyntax.self), Self.isCodableInit(initializer) {
                customDecode = initializer
            } else if let function = decl.as(FunctionDeclSyntax.self), function.name.text == "encode",
                function.signature.parameterClause.parameters.first?.firstName.text == "to"
            {
                customEncode = true
                customEncodeFunction = function
            }
        }

        let byName = Dictionary(properties.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        if let customEncodeFunction, let codingKeys {
            let keys = Dictionary(codingKeys.map { ($0.property, $0.key) }, uniquingKeysWith: { first, _ in first })
            encodedExpressions = Self.readEncodeLines(customEncodeFunction, keys: keys)
        }
        if let codingKeys {
            let resolved = codingKeys.compactMap { entry in
                byName[entry.property].map {
                    Field(
                        property: entry.property, key: entry.key, type: $0.type, presence: $0.optional ? .ifPresent : .required,
                        encodeOnly: $0.encodeOnly)
                }
            }
            guard resolved.count == codingKeys.count else {
                // A key with no stored property behind it (a computed value written by a
                // hand-written encode(to:)): both directions go through Codable.
                customEncode = true
                decodedFields = nil
                return
            }
            fields = resolved
        } else {
            fields = properties.map {
                Field(property: $0.name, key: $0.name, type: $0.type, presence: $0.optional ? .ifPresent : .required, encodeOnly: $0.encodeOnly)
            }
        }

        if let customDecode {
            decodedFields = Self.readDecodeLines(customDecode, fields: fields)
        } else {
            decodedFields = fields.filter { !$0.encodeOnly }
        }
    }

    private static func isCodableInit(_ initializer: InitializerDeclSyntax) -> Bool {
        let parameters = initializer.signature.parameterClause.parameters
        return parameters.count == 1 && parameters.first?.firstName.text == "from"
    }

    /// The keys and values of an `encode(to:)` whose every line is the container's creation or
    /// `try container.encode(value, forKey: .k)` (or `encodeIfPresent`, which the Codable path
    /// also writes as nil); nil when any line is something else.
    static func readEncodeLines(_ function: FunctionDeclSyntax, keys: [String: String]) -> [(key: String, expression: String)]? {
        guard let statements = function.body?.statements else { return nil }
        var encoded: [(key: String, expression: String)] = []
        for statement in statements {
            let text = statement.item.trimmedDescription
            if text == "var container = encoder.container(keyedBy: CodingKeys.self)" || text == "_ = encoder.container(keyedBy: CodingKeys.self)" {
                continue
            }
            guard let tryExpr = Syntax(statement.item).as(TryExprSyntax.self), let call = tryExpr.expression.as(FunctionCallExprSyntax.self),
                let member = call.calledExpression.as(MemberAccessExprSyntax.self), member.base?.trimmedDescription == "container",
                ["encode", "encodeIfPresent"].contains(member.declName.baseName.text)
            else { return nil }
            let arguments = Array(call.arguments)
            guard arguments.count == 2, arguments[0].label == nil, arguments[1].label?.text == "forKey",
                let keyCase = arguments[1].expression.as(MemberAccessExprSyntax.self)?.declName.baseName.text,
                let key = keys[keyCase.trimmingCharacters(in: CharacterSet(charactersIn: "`"))]
            else { return nil }
            encoded.append((key, arguments[0].expression.trimmedDescription))
        }
        return encoded
    }

    /// `T?` and `Optional<T>` as (T, true); anything else as (type, false).
    static func unwrapOptional(_ type: TypeSyntax) -> (String, Bool) {
        if let optional = type.as(OptionalTypeSyntax.self) {
            return (optional.wrappedType.trimmedDescription, true)
        }
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == "Optional",
            let argument = identifier.genericArgumentClause?.arguments.first
        {
            return (argument.argument.trimmedDescription, true)
        }
        return (type.trimmedDescription, false)
    }

    /// The fields of an `init(from:)` whose every line is `let container = try decoder.container(…)`
    /// or `x = try container.decode(T.self, forKey: .k)` / `decodeIfPresent(…)` / `decodeIfPresent(…) ?? d`.
    /// Nil when any line is something else.
    static func readDecodeLines(_ initializer: InitializerDeclSyntax, fields: [Field]) -> [Field]? {
        guard let statements = initializer.body?.statements else { return nil }
        let keyOf = Dictionary(fields.map { ($0.property, $0.key) }, uniquingKeysWith: { first, _ in first })
        var decoded: [Field] = []
        for statement in statements {
            let text = statement.item.trimmedDescription
            if text.hasPrefix("let container = try decoder.container(keyedBy:") || text.hasPrefix("_ = try decoder.container(keyedBy:") { continue }
            guard let sequence = Syntax(statement.item).as(SequenceExprSyntax.self) else { return nil }
            let elements = Array(sequence.elements)
            guard elements.count >= 3, elements[1].is(AssignmentExprSyntax.self) else { return nil }
            var target = elements[0].trimmedDescription
            if target.hasPrefix("self.") { target.removeFirst(5) }
            var fallback: String?
            let call: ExprSyntax
            if elements.count == 3 {
                call = elements[2]
            } else if elements.count == 5, elements[3].as(BinaryOperatorExprSyntax.self)?.operator.text == "??" {
                call = elements[2]
                fallback = elements[4].trimmedDescription
            } else {
                return nil
            }
            guard let tryExpr = call.as(TryExprSyntax.self), let function = tryExpr.expression.as(FunctionCallExprSyntax.self),
                let member = function.calledExpression.as(MemberAccessExprSyntax.self),
                member.base?.trimmedDescription == "container"
            else { return nil }
            let arguments = Array(function.arguments)
            guard arguments.count == 2, arguments[1].label?.text == "forKey",
                let typeExpr = arguments[0].expression.as(MemberAccessExprSyntax.self), typeExpr.declName.baseName.text == "self",
                let typeBase = typeExpr.base,
                let keyCase = arguments[1].expression.as(MemberAccessExprSyntax.self)?.declName.baseName.text
            else { return nil }
            let type = typeBase.trimmedDescription
            guard let key = keyOf[keyCase.trimmingCharacters(in: CharacterSet(charactersIn: "`"))] else { return nil }
            let presence: Presence
            switch (member.declName.baseName.text, fallback) {
            case ("decode", nil): presence = .required
            case ("decodeIfPresent", nil): presence = .ifPresent
            case ("decodeIfPresent", let fallback?): presence = .defaulted(fallback)
            default: return nil
            }
            decoded.append(Field(property: target, key: key, type: type, presence: presence))
        }
        return decoded
    }
}

struct MacroError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

@main
struct SousMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [MessagePackCodableMacro.self]
}
