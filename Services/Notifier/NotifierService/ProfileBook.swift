import Foundation
import Logging
import SousRuntime
import SousSchema
import SousWire

/// Where the notifier gets a user's time zone, reminder hour and opt-out: its own cache,
/// refreshed from the planner when stale and on every `planner.profile.changed`.
///
/// When the planner cannot be reached, the last known profile is used (or the planner's
/// defaults, UTC 19:00, for a user never seen), so reminders keep working through an outage.
struct ProfileBook: Sendable {
    let store: NotifierStore
    let planner: Peer<Planner>
    /// Older cached profiles are read again from the planner on the user's next activity, in
    /// case a `planner.profile.changed` was published while the notifier was down.
    let maximumAge: TimeInterval
    let logger: Logger

    func profile(of user: String, now: Date) async throws -> ReminderProfile {
        let cached = try store.profile(of: user)
        if let cached, now.timeIntervalSince(cached.fetchedAt) < maximumAge, cached.fetchedAt <= now {
            return cached
        }
        do {
            let profile = ReminderProfile(try await planner.call(PlannerAPI.getProfile, Empty(), user: user, for: nil), fetchedAt: now)
            try store.saveProfile(profile, of: user)
            return profile
        } catch let error as ServiceError {
            logger.warning(
                "profile not read from the planner; using the last known one",
                metadata: [
                    "user": "\(user)", "error": "\(error.message)", "cached": "\(cached != nil)",
                ])
            return cached ?? .defaults(at: now)
        }
    }

    /// For answering a caller (`reminders.next`): the cached profile whatever its age, else the
    /// planner's within part of the caller's time (an optional peer call), else the defaults.
    func profileForAnswer(of user: String, now: Date, context: RequestContext) async throws -> ReminderProfile {
        if let cached = try store.profile(of: user) { return cached }
        do {
            let profile = ReminderProfile(
                try await planner.call(PlannerAPI.getProfile, Empty(), user: user, for: context, need: .optional), fetchedAt: now)
            try store.saveProfile(profile, of: user)
            return profile
        } catch let error as ServiceError {
            logger.warning(
                "profile not read from the planner; answering with the defaults", metadata: ["user": "\(user)", "error": "\(error.message)"])
            return .defaults(at: now)
        }
    }
}
