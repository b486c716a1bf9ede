import Foundation
import Logging
import ServiceLifecycle
import SousWire
import Synchronization

/// The methods every service answers: health, its clock, and a description of its methods.
struct CommonHandlers: Sendable {
    let name: String
    let startedAt: Date
    let clock: WallClock
    let database: DatabaseHealthProbe
    /// Weak: the server keeps these handlers, and must not be kept alive by them.
    weak let server: RPCServer?

    /// The route table.
    func register() {
        guard let server else { return }
        server.register(CommonAPI.health, use: health)
        server.register(CommonAPI.clock, use: readClock)
        server.register(CommonAPI.setClock, use: setClock)
        server.register(CommonAPI.describe, use: describe)
    }

    func health(_ request: Empty, context: RequestContext) -> HealthReport {
        var database = database.latest
        // Where the data lives, and an error's text, are for the people who run the service.
        if !context.caller.operatesServices {
            database.path = nil
            if database.status != "ok" { database.detail = nil }
        }
        return HealthReport(
            service: name,
            version: SousVersion.current,
            protocolVersion: Int(SousProtocol.version),
            startedAt: startedAt,
            uptimeSeconds: Date().timeIntervalSince(startedAt),
            database: database
        )
    }

    func readClock(_ request: Empty, context: RequestContext) -> ClockReading {
        ClockReading(now: clock.now, manual: clock.isManual)
    }

    func setClock(_ request: ClockSetting, context: RequestContext) throws -> ClockReading {
        guard clock.set(request.now) else {
            throw ServiceError.badRequest("\(name) runs on the system clock; start it with SOUS_CLOCK=manual to set it", field: "now")
        }
        return ClockReading(now: clock.now, manual: true)
    }

    func describe(_ request: Empty, context: RequestContext) throws -> ServiceDescription {
        guard let server else { throw ServiceError.unavailable("\(name) is stopping") }
        do {
            return try server.description(of: name)
        } catch {
            throw ServiceError.internal("\(name) cannot describe its methods: \(error)")
        }
    }
}

/// The database's health, checked when the host starts and then every second off the request
/// path, so `health` is answered from memory.
final class DatabaseHealthProbe: Service, Sendable {
    private let check: @Sendable () -> DatabaseHealth
    private let current: Mutex<DatabaseHealth>

    init(check: @escaping @Sendable () -> DatabaseHealth) {
        self.check = check
        current = Mutex(Self.checked(check))
    }

    var latest: DatabaseHealth { current.withLock { $0 } }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                let health = Self.checked(self.check)
                self.current.withLock { $0 = health }
            }
        }
    }

    private static func checked(_ check: () -> DatabaseHealth) -> DatabaseHealth {
        var health = check()
        health.checkedAt = Date()
        return health
    }
}

/// `account.erase`, answered by every service with a database: deletes every row naming the
/// deleted user (the planner calls it on each service once the account is gone).
struct ErasureHandler: Sendable {
    let service: String
    let database: SousDatabase

    func erase(_ request: Empty, context: RequestContext) throws -> ErasureReport {
        let user = try context.requireUser()
        let rows = try database.eraseUser(user)
        if try !database.checkpointAfterErasure() {
            context.logger.warning("a reader kept the checkpoint after an erasure from emptying the WAL; the next checkpoint will")
        }
        context.logger.notice("erased a deleted account's rows", metadata: ["rows": "\(rows.values.reduce(0, +))"])
        return ErasureReport(service: service, rows: rows)
    }

    /// `household.erase`: what a household nobody belongs to any more shared.
    func eraseHousehold(_ request: HouseholdRef, context: RequestContext) throws -> ErasureReport {
        guard !request.household.isEmpty else { throw ServiceError.badRequest("household is empty", field: "household") }
        let rows = try database.eraseHousehold(request.household)
        if try !database.checkpointAfterErasure() {
            context.logger.warning("a reader kept the checkpoint after an erasure from emptying the WAL; the next checkpoint will")
        }
        context.logger.notice("erased a dissolved household's rows", metadata: ["rows": "\(rows.values.reduce(0, +))"])
        return ErasureReport(service: service, rows: rows)
    }
}
