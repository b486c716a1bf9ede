import Foundation
import SousRuntime
import SousSchema
import SousServiceTesting
import SousWire
import Testing

/// docs/PROTOCOL.md stays true to the code: every method a service serves is in its method
/// index, with the access the method declares.
struct ContractTests {
    @Test func everyServedMethodIsDocumentedWithItsAccess() throws {
        let stack = try StackFixture.make()
        let protocolFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/PROTOCOL.md")
        let text = try String(contentsOf: protocolFile, encoding: .utf8)
        let index = String(text[text.range(of: "## Method index")!.lowerBound...])
        // "| `name` | request | reply | kind | access |" rows of the index.
        var documented: [String: String] = [:]
        for line in index.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let name = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            documented[name] = cells.last
        }
        for host in stack.hosts {
            for (name, access) in host.server.registeredAccess {
                #expect(documented[name] != nil, "\(host.name) serves \(name), which docs/PROTOCOL.md does not list")
                if let listed = documented[name] {
                    #expect(listed == access.rawValue, "\(name) is \(access.rawValue), docs/PROTOCOL.md says \(listed)")
                }
            }
        }
    }
}
