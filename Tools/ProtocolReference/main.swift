import Foundation
import SousRuntime
import SousServiceTesting
import SousWire

// Rewrites the generated blocks of docs/PROTOCOL.md (the method tables and the type list) from
// what the five services describe, built in-process. `--check` only compares, exiting 1 when
// the document differs from the code.
//
//     swift run sous-protocol-reference [--check] [docs/PROTOCOL.md]

let arguments = Array(CommandLine.arguments.dropFirst())
let check = arguments.contains("--check")
let path = arguments.first { !$0.hasPrefix("--") } ?? "docs/PROTOCOL.md"

do {
    let stack = try StackFixture.make()
    let descriptions = try stack.hosts.map { try $0.server.description(of: $0.name) }
    let document = try String(contentsOfFile: path, encoding: .utf8)
    let generated = try ProtocolReference.replacingBlocks(in: document, with: ProtocolReference.blocks(descriptions))
    if check {
        guard generated == document else {
            FileHandle.standardError.write(Data("\(path) differs from what the services describe; run `swift run sous-protocol-reference`\n".utf8))
            exit(1)
        }
        print("\(path) matches what the services describe.")
    } else if generated != document {
        try generated.write(toFile: path, atomically: true, encoding: .utf8)
        print("Rewrote the generated blocks of \(path).")
    } else {
        print("\(path) was already up to date.")
    }
} catch {
    FileHandle.standardError.write(Data("sous-protocol-reference: \(error)\n".utf8))
    exit(1)
}
