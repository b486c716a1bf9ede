import Foundation
import GRDB
import SousRuntime
import SousSchema
import SousWire

/// The notifier's part of a user's archive: the log of every reminder outcome. The schedule is
/// not in it: the next reminder follows from the profile and the user's activity.
extension NotifierStore {
    func archive(user: String) throws -> NotifierArchive {
        try database.read { session in
            NotifierArchive(
                log: try session.fetchAll(DeliveryRecord.self, #"SELECT * FROM delivery WHERE "user" = ? ORDER BY local_date"#, [user])
                    .map(\.logEntry))
        }
    }

    /// Writes a checked log for `user` in one transaction (nothing when `dryRun`); conflict when
    /// the user already has one. An imported day is never reminded of again (its row is there).
    func restore(_ archive: NotifierArchive, user: String, dryRun: Bool) throws -> ArchiveImported {
        try ArchiveFormat.check(archive.version)
        var days: Set<LocalDate> = []
        for (index, entry) in archive.log.enumerated() {
            guard days.insert(entry.date).inserted else {
                throw ServiceError.badRequest("\(entry.date) is logged twice", field: "archive.log.\(index)")
            }
            guard (entry.reason?.count ?? 0) <= 500 else {
                throw ServiceError.badRequest("a reason is at most 500 characters", field: "archive.log.\(index).reason")
            }
            for value in [entry.kcal, entry.kcalGoal].compactMap(\.self) where !(value.isFinite && (0...100_000).contains(value)) {
                throw ServiceError.badRequest("kcal are 0 to 100000", field: "archive.log.\(index).kcal")
            }
        }
        return try database.write { session in
            try session.requireNoRows(of: user, in: ["delivery"], what: "reminders")
            if !dryRun {
                for entry in archive.log {
                    try session.execute(
                        """
                        INSERT INTO delivery ("user", local_date, due_at, outcome, recorded_at, reason, kcal, kcal_goal) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                        [
                            user, entry.date.description, entry.dueAt.timeIntervalSince1970, entry.outcome.rawValue,
                            entry.recordedAt.timeIntervalSince1970, entry.reason, entry.kcal, entry.kcalGoal,
                        ])
                }
            }
            return ArchiveImported(counts: ["log": archive.log.count])
        }
    }
}

extension NotifierHandlers {
    func exportArchive(_ request: Empty, user: String, context: RequestContext) throws -> NotifierArchive {
        try store.archive(user: user)
    }

    func importArchive(_ request: NotifierArchiveImport, user: String, context: RequestContext) throws -> ArchiveImported {
        try store.restore(request.archive, user: user, dryRun: request.dryRun ?? false)
    }
}
