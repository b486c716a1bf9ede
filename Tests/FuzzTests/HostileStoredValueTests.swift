import Foundation
import GRDB
import MessagePack
import SousRuntime
import SousSchema
import SousServiceTesting
import SousTestSupport
import SousWire
import Testing

/// The stored-value pass of the fuzz test: hostile values put where a service keeps them (through
/// an archive, and straight into its tables as a record from an older version would be), then
/// every read that returns them. An import must refuse each one naming the field and write
/// nothing; a value already stored must never stop a read or the service.
@Suite(.closesItsSockets)
struct HostileStoredValueTests {
    static let instant = Date(timeIntervalSince1970: 1_773_136_800)  // 2026-03-10T10:00:00Z
    static let today = LocalDate(instant, in: TimeZone(identifier: "UTC")!)

    /// Timestamps no field may hold: seconds Int64.max and Int64.min (timestamp 96), and the
    /// first second of the year 10000.
    static let hostileTimestamps: [[UInt8]] = [
        [0xc7, 0x0c, 0xff, 0, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
        [0xc7, 0x0c, 0xff, 0, 0, 0, 0, 0x80, 0, 0, 0, 0, 0, 0, 0],
        [0xc7, 0x0c, 0xff, 0, 0, 0, 0, 0, 0, 0, 0x3a, 0xff, 0xf4, 0x41, 0x80],
    ]

    @Test func anArchiveHoldingAnInstantOutsideTheRangeIsRefusedNamingTheFieldAndNothingIsWritten() async throws {
        let stack = try StackFixture.make(clock: .manual(at: Self.instant))
        try await withRunningServices(stack.hosts) { _ in
            try await stack.fillEveryArchivedTable(user: "ada", today: Self.today, instant: Self.instant)
            let ada = try await Self.exports(stack, user: "ada")
            let encoder = MessagePackEncoder()
            let parts: [(SousService, [UInt8])] = [
                (.catalog, try encoder.encode(CatalogArchiveImport(archive: ada.catalog))),
                (.planner, try encoder.encode(PlannerArchiveImport(archive: ada.planner))),
                (.groceries, try encoder.encode(GroceriesArchiveImport(archive: ada.groceries))),
                (.tracker, try encoder.encode(TrackerArchiveImport(archive: ada.tracker))),
                (.notifier, try encoder.encode(NotifierArchiveImport(archive: ada.notifier))),
            ]
            let empty = try await Self.exports(stack, user: "nobody")
            var refused = 0
            for (service, body) in parts {
                let peer = try RawPeer(connectingTo: stack.host(of: service).boundEndpoints.requests)
                let instants = TimestampFinder.timestamps(in: body)
                #expect(service == .catalog || !instants.isEmpty, "\(service)'s archive holds instants")
                for (index, found) in instants.enumerated() {
                    let hostile = Self.hostileTimestamps[index % Self.hostileTimestamps.count]
                    var changed = body
                    changed.replaceSubrange(found, with: hostile)
                    let user = "eve-\(service)-\(index)"
                    let reply = try await peer.call("\(service).import", body: changed, session: TestSessions.token(for: user))
                    let error = try #require(reply.error, "\(service).import took an instant outside the range at byte \(found.lowerBound)")
                    #expect(error.code == .badRequest && (error.field ?? "").hasPrefix("archive."), "\(service): \(error)")
                    #expect(try await Self.exports(stack, user: user) == empty, "\(service).import wrote nothing for \(user)")
                    refused += 1
                }
            }
            #expect(refused >= 12)
        }
    }

    /// Every date and number column set to a value outside what any write accepts, on every
    /// row, as a record written before a check existed would be; then every read, with the
    /// corpus's bodies and with `{}`, and each service's export.
    @Test(arguments: [1.0, -1.0])
    func storedValuesOutsideEveryRangeNeverStopARead(sign: Double) async throws {
        let stack = try StackFixture.make(clock: .manual(at: Self.instant))
        try await withRunningServices(stack.hosts) { _ in
            try await stack.fillEveryArchivedTable(user: "ada", today: Self.today, instant: Self.instant)
            var poisoned = 0
            for (name, database) in stack.databases {
                let columns = try Self.doubleColumns(of: database)
                #expect(!columns.isEmpty, "\(name) keeps numbers")
                try database.write { session in
                    for (table, column) in columns {
                        // Seconds past Int64's range for instants; past any quantity for the rest.
                        let value = sign * (column.hasSuffix("_at") ? 9.3e18 : 1e300)
                        poisoned += try session.execute(#"UPDATE "\#(table)" SET "\#(column)" = ?"#, [value])
                    }
                }
            }
            #expect(poisoned > 50)
            let corpus = try Corpus.load()
            let session = TestSessions.token(for: "ada")
            for host in stack.hosts {
                let peer = try RawPeer(connectingTo: host.boundEndpoints.requests)
                for method in host.server.registeredReads {
                    for body in [[0x80]] + corpus.seeds(for: method) {
                        let reply = try await peer.call(method, body: body, session: session)
                        if let problem = RequestFuzzTests.problem(with: reply) {
                            Issue.record("\(host.name) \(method) with stored hostile values: \(problem)")
                        }
                    }
                }
                let health = try await stack.anyClient(SousService(rawValue: host.name)!).call(CommonAPI.health, Empty())
                #expect(health.service == host.name)
            }
            _ = try await Self.exports(stack, user: "ada")
        }
    }

    struct Exports: Equatable {
        let catalog: CatalogArchive
        let planner: PlannerArchive
        let groceries: GroceriesArchive
        let tracker: TrackerArchive
        let notifier: NotifierArchive
    }

    static func exports(_ stack: StackFixture, user: String) async throws -> Exports {
        Exports(
            catalog: try await stack.client(Catalog.self).call(CatalogAPI.exportArchive, Empty(), user: user),
            planner: try await stack.client(Planner.self).call(PlannerAPI.exportArchive, Empty(), user: user),
            groceries: try await stack.client(Groceries.self).call(GroceriesAPI.exportArchive, Empty(), user: user),
            tracker: try await stack.client(Tracker.self).call(TrackerAPI.exportArchive, Empty(), user: user),
            notifier: try await stack.client(Notifier.self).call(NotifierAPI.exportArchive, Empty(), user: user))
    }

    /// Every floating-point column of the service's own tables, as (table, column).
    static func doubleColumns(of database: SousDatabase) throws -> [(String, String)] {
        let sql =
            switch database.engine {
            case .sqlite:
                """
                SELECT m.name AS t, p.name AS c FROM sqlite_master m JOIN pragma_table_info(m.name) p
                WHERE m.type = 'table' AND upper(p.type) IN ('REAL', 'DOUBLE') ORDER BY 1, 2
                """
            case .postgres:
                """
                SELECT table_name AS t, column_name AS c FROM information_schema.columns
                WHERE table_schema = current_schema() AND data_type = 'double precision' ORDER BY 1, 2
                """
            }
        return try database.read { session in try session.rows(sql, []).map { ($0["t"], $0["c"]) } }
    }
}

extension RawPeer {
    /// One request with a hand-made body, and its reply (a 30 s bound).
    func call(_ method: String, body: [UInt8], session: String?) async throws -> Envelope.Reply {
        let id = UUID.random().uuidString
        try send(Envelope.requestFrames(RequestHeader(method: method, id: id, session: session), body: body))
        while true {
            guard let frames = try await receive(timeout: .seconds(30)) else { throw ServiceError.unavailable("\(method): no reply within 30 s") }
            let reply = try Envelope.parseReply(frames)
            if reply.header.id == id { return reply }
        }
    }
}

extension Envelope.Reply {
    /// The error it carries, if it is one.
    var error: ServiceError? {
        header.status == .error ? try? MessagePackDecoder().decode(ServiceError.self, from: body) : nil
    }
}

/// Where the timestamps are in one MessagePack value.
enum TimestampFinder {
    static func timestamps(in bytes: [UInt8]) -> [Range<Int>] {
        var found: [Range<Int>] = []
        var position = 0
        skipValue(bytes, at: &position, noting: &found)
        return found
    }

    private static func number(_ bytes: [UInt8], at position: inout Int, size: Int) -> Int {
        var value = 0
        for byte in bytes[position..<position + size] { value = value << 8 | Int(byte) }
        position += size
        return value
    }

    private static func skipValue(_ bytes: [UInt8], at position: inout Int, noting found: inout [Range<Int>]) {
        let start = position
        let byte = bytes[position]
        position += 1
        func skip(_ count: Int) { for _ in 0..<count { skipValue(bytes, at: &position, noting: &found) } }
        func ext(payload: Int) {
            let type = bytes[position]
            position += 1 + payload
            if type == 0xff { found.append(start..<position) }
        }
        switch byte {
        case 0x00...0x7f, 0xe0...0xff, 0xc0, 0xc2, 0xc3: break
        case 0x80...0x8f: skip(Int(byte & 0x0f) * 2)
        case 0x90...0x9f: skip(Int(byte & 0x0f))
        case 0xa0...0xbf: position += Int(byte & 0x1f)
        case 0xc4, 0xd9: position += number(bytes, at: &position, size: 1)
        case 0xc5, 0xda: position += number(bytes, at: &position, size: 2)
        case 0xc6, 0xdb: position += number(bytes, at: &position, size: 4)
        case 0xc7: ext(payload: number(bytes, at: &position, size: 1))
        case 0xc8: ext(payload: number(bytes, at: &position, size: 2))
        case 0xc9: ext(payload: number(bytes, at: &position, size: 4))
        case 0xca, 0xce, 0xd2: position += 4
        case 0xcb, 0xcf, 0xd3: position += 8
        case 0xcc, 0xd0: position += 1
        case 0xcd, 0xd1: position += 2
        case 0xd4: ext(payload: 1)
        case 0xd5: ext(payload: 2)
        case 0xd6: ext(payload: 4)
        case 0xd7: ext(payload: 8)
        case 0xd8: ext(payload: 16)
        case 0xdc: skip(number(bytes, at: &position, size: 2))
        case 0xdd: skip(number(bytes, at: &position, size: 4))
        case 0xde: skip(number(bytes, at: &position, size: 2) * 2)
        case 0xdf: skip(number(bytes, at: &position, size: 4) * 2)
        default: break
        }
    }
}
