import Foundation
import GRDB
import SousRuntime
import SousSchema
import SousWire

/// Calendar feeds: one per user at most, kept as the digest of its secret (so the table gives
/// nobody a working address) with its owner. Its `user` column puts it in the account's erasure.
extension PlannerStore {
    /// Makes `user`'s feed the one whose secret has `digest`, replacing any other.
    func startFeed(user: String, digest: String, now: Date) throws(ServiceError) {
        try storage {
            try database.write { session in
                try session.execute(#"DELETE FROM calendar_feed WHERE "user" = ?"#, [user])
                try session.execute(
                    #"INSERT INTO calendar_feed (digest, "user", created_at) VALUES (?, ?, ?)"#, [digest, user, now.timeIntervalSince1970])
            }
        }
    }

    func stopFeed(user: String) throws(ServiceError) {
        try storage { try database.write { session in try Self.stopFeed(session, user: user) } }
    }

    /// In the transaction that changes the password or ends every session: a feed made by
    /// whoever had the account stops too.
    static func stopFeed(_ session: any SQLSession, user: String) throws {
        try session.execute(#"DELETE FROM calendar_feed WHERE "user" = ?"#, [user])
    }

    /// When `user`'s feed was made; nil without one.
    func feedCreated(user: String) throws(ServiceError) -> Date? {
        try storage {
            try database.read { session in
                try session.value(Double.self, #"SELECT created_at FROM calendar_feed WHERE "user" = ?"#, [user])
                    .map(Date.init(timeIntervalSince1970:))
            }
        }
    }

    /// Whose feed has the secret with `digest`.
    func feedOwner(digest: String) throws(ServiceError) -> String? {
        try storage {
            try database.read { session in try session.value(String.self, #"SELECT "user" FROM calendar_feed WHERE digest = ?"#, [digest]) }
        }
    }
}
