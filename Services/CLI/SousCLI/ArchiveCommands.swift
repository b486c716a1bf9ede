import ArgumentParser
import Foundation
import SousClient
import SousSchema
import SousWire

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write everything Sous keeps for you into one archive file (recipes, plan, list, orders, diary, journal, reminders…).",
        discussion: """
            The archive is JSON (photos as base64). `sous import FILE` restores it into an empty account, here or on \
            another Sous. Your account itself (e-mail, password) is not in it.
              sous export --output sous-archive.json
            """)

    @Option(name: [.short, .long], help: "The file to write; default sous-<user>-<date>.json.") var output: String?
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let token = try global.token
        let archive = try await AccountArchive.export(global.clients, user: try global.account.user, token: token)
        let path = output ?? "sous-\(archive.user.filter { $0.isLetter || $0.isNumber || $0 == "-" })-\(LocalDate(Date(), in: .current)).json"
        do {
            try ArchiveFile.encoder.encode(archive).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw ValidationError("could not write \(path): \(error.localizedDescription)")
        }
        Console.current.out("Wrote \(path): \(AccountArchive.contents(of: archive)).")
    }
}

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Restore a `sous export` archive into your account, which must be empty.",
        discussion: """
            Every part is checked by its service first; if any is refused (a newer archive, a bad record, an \
            account that already has data), nothing is imported. Recipes keep their ids unless another recipe has \
            one; the plan, the list and the diary follow the new ids.
              sous import sous-archive.json
            """)

    @Argument(help: "The archive file.") var file: String
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let archive = try ArchiveFile.read(try readFile(file), named: file)
        let token = try global.token
        do {
            let restored = try await AccountArchive.restore(archive, into: global.clients, token: token)
            Console.current.out("Imported \(AccountArchive.contents(of: archive)) from \(file).")
            for note in restored.skipped { Console.current.out("  Note: \(note)") }
        } catch let partly as AccountArchive.PartlyRestored {
            Console.current.err(partly.message)
            throw partly.error
        }
    }
}
