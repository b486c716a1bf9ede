import Foundation
import GRDB
import Logging
import SousRuntime
import SousSchema
import SousWire
import Synchronization

/// A small real service used to test the runtime: notes in SQLite, an echo of a structured body,
/// and a method that waits on a gate the test controls (a "slow handler" without sleeps).
/// The notes service, as a scope its methods and clients name.
enum Notes: ServiceKind { static let name = "notes" }

enum NotesAPI {
    struct AddNote: Codable, Sendable, Equatable {
        var text: String
        var tags: [String]
    }

    struct Note: Codable, Sendable, Equatable {
        var id: Int64
        var text: String
        var tags: [String]
        var total: Int
    }

    struct Count: Codable, Sendable, Equatable { var count: Int }

    struct Wait: Codable, Sendable { var gate: String }

    static let add = Method<Notes, AddNote, Note>.write("notes.add", .user)
    static let count = Method<Notes, Empty, Count>.read("notes.count", .public)
    static let echo = Method<Notes, AddNote, AddNote>.read("notes.echo", .public)
    static let wait = Method<Notes, Wait, Empty>.read("notes.wait", .public)
    static let added = Topic<Note>("notes.added")
}

/// Gates a test opens to release waiting handlers, and observes handlers arriving at.
final class Gates: Sendable {
    private let state = Mutex<[String: (entered: AsyncStream<Void>.Continuation, open: AsyncStream<Void>)]>([:])
    private let opens = Mutex<[String: AsyncStream<Void>.Continuation]>([:])
    private let entered = Mutex<[String: AsyncStream<Void>]>([:])

    func make(_ name: String) {
        let (enteredStream, enteredContinuation) = AsyncStream.makeStream(of: Void.self)
        let (openStream, openContinuation) = AsyncStream.makeStream(of: Void.self)
        state.withLock { $0[name] = (enteredContinuation, openStream) }
        opens.withLock { $0[name] = openContinuation }
        entered.withLock { $0[name] = enteredStream }
    }

    /// Called by the handler: announce arrival, then wait until the test opens the gate.
    func pass(_ name: String) async {
        guard let gate = state.withLock({ $0[name] }) else { return }
        gate.entered.yield()
        for await _ in gate.open {}
    }

    /// Waits until a handler has arrived at the gate.
    func waitForArrival(_ name: String) async {
        guard let stream = entered.withLock({ $0[name] }) else { return }
        for await _ in stream { return }
    }

    func open(_ name: String) {
        opens.withLock { $0[name]?.finish() }
    }
}

func makeNotesService(configuration: ServiceConfiguration, gates: Gates = Gates()) throws -> ServiceHost {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1: notes") { db in
        try db.create(table: "note") { table in
            table.autoIncrementedPrimaryKey("id")
            table.column("text", .text).notNull()
            table.column("tags", .text).notNull()
        }
    }
    let database = try SousDatabase(name: "notes", directory: configuration.dataDirectory, migrator: migrator)
    let logger = SousLogging.logger(for: "notes", level: .critical)
    let host = try ServiceHost(configuration: configuration, logger: logger, database: database)
    host.server.register(NotesAPI.add) { request, context async throws in
        let user = try context.requireUser()
        guard !request.text.isEmpty else { throw ServiceError.badRequest("text is empty", field: "text") }
        let note = try database.write(idempotent: context.idempotency) { session in
            let id = try session.value(
                Int64.self, "INSERT INTO note (text, tags) VALUES (?, ?) RETURNING id", [request.text, request.tags.joined(separator: ",")])
            let total = try session.value(Int.self, "SELECT COUNT(*) FROM note") ?? 0
            return NotesAPI.Note(id: id ?? 0, text: request.text, tags: request.tags, total: total)
        }
        host.publisher.publish(NotesAPI.added, note)
        _ = user
        return note
    }
    host.server.register(NotesAPI.count) { _, _ async throws in
        NotesAPI.Count(count: try database.read { try $0.value(Int.self, "SELECT COUNT(*) FROM note") ?? 0 })
    }
    host.server.register(NotesAPI.echo) { request, _ in request }
    host.server.register(NotesAPI.wait) { request, _ in
        await gates.pass(request.gate)
        return Empty()
    }
    return host
}
