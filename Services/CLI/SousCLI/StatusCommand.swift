import ArgumentParser
import Foundation
import SousClient
import SousSchema
import SousWire

/// `sous status`: every service's health in one table; exits 5 if any is down.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show each service's version, uptime and database; fail if any is down.")

    @OptionGroup var global: GlobalOptions

    struct Row: Codable {
        var service: String
        var endpoint: String
        var up: Bool
        var version: String?
        var uptimeSeconds: Double?
        var database: String?
        /// What the database check says (e.g. "2 migrations applied").
        var detail: String?
        /// Why the service is down; nil when it is up.
        var error: String?
    }

    func run() async throws {
        let rows = await withTaskGroup(of: Row.self) { group in
            for service in SousService.allCases {
                group.addTask {
                    let endpoint = global.endpoint(of: service)
                    do {
                        let report = try await global.anyClient(service).call(
                            CommonAPI.health, Empty(), timeout: .milliseconds(global.timeoutMs ?? 1_500))
                        let up = report.database.status != "error"
                        return Row(
                            service: service.rawValue, endpoint: endpoint, up: up, version: report.version, uptimeSeconds: report.uptimeSeconds,
                            database: report.database.status, detail: report.database.detail,
                            error: up ? nil : report.database.detail ?? "database error")
                    } catch let error as ServiceError {
                        return Row(service: service.rawValue, endpoint: endpoint, up: false, error: error.message)
                    } catch {
                        return Row(service: service.rawValue, endpoint: endpoint, up: false, error: "\(error)")
                    }
                }
            }
            var rows: [Row] = []
            for await row in group { rows.append(row) }
            return rows.sorted { SousService(rawValue: $0.service)!.defaultPort < SousService(rawValue: $1.service)!.defaultPort }
        }
        if global.json {
            try printJSON(rows)
        } else {
            var table = Table([
                ("SERVICE", .left), ("STATE", .left), ("VERSION", .left), ("UPTIME", .right), ("DATABASE", .left), ("ENDPOINT", .left),
            ])
            for row in rows {
                table.add([
                    row.service, row.up ? "up" : "DOWN", row.version ?? "-", row.uptimeSeconds.map(Self.duration) ?? "-", row.database ?? "-",
                    row.endpoint,
                ])
            }
            Console.current.out(table.render())
            for row in rows where !row.up {
                Console.current.err("\(row.service): \(row.error ?? "not healthy")")
            }
        }
        if rows.contains(where: { !$0.up }) { throw ExitCode(ExitCodes.unavailable) }
    }

    static func duration(_ seconds: Double) -> String {
        let total = seconds.isFinite ? Int(min(max(seconds, 0), 1e12)) : 0
        if total < 60 { return "\(total)s" }
        if total < 3600 { return "\(total / 60)m \(total % 60)s" }
        if total < 86400 { return "\(total / 3600)h \(total % 3600 / 60)m" }
        return "\(total / 86400)d \(total % 86400 / 3600)h"
    }
}
