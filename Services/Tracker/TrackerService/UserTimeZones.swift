import Foundation
import Logging
import SousRuntime
import SousSchema
import SousWire

/// Each user's time zone, which decides what "today" is for their diary: the saved profile's,
/// read from the profiles the tracker keeps (``PeerValueCache``). When the planner cannot say
/// (unreachable, or a zone name this system does not know), the zone it last gave is used, else
/// UTC, and the note says so: the diary keeps working without the planner.
struct UserTimeZones: Sendable {
    let profiles: PeerValueCache<Planner, CookingProfile>

    struct Resolved: Sendable {
        var name: String
        var zone: TimeZone
        /// Why the zone is not the profile's, when it is not.
        var note: String?
    }

    func zone(of user: String, context: RequestContext) async -> Resolved {
        let problem: String
        do {
            // Optional: a planner outage slows a dateless request by a third of its time at most.
            let profile = try await profiles.value(for: user, context: context, need: .optional)
            if let zone = TimeZone(identifier: profile.timeZone) { return Resolved(name: profile.timeZone, zone: zone) }
            problem = "the profile's time zone \(profile.timeZone) is unknown"
        } catch {
            problem = "the planner could not be asked for the time zone (\(error.code))"
        }
        let resolved: Resolved
        if let name = profiles.lastKnown(for: user)?.timeZone, let zone = TimeZone(identifier: name) {
            resolved = Resolved(name: name, zone: zone, note: "\(problem); using the last known zone \(name)")
        } else {
            resolved = Resolved(name: "UTC", zone: .gmt, note: "\(problem); using UTC")
        }
        context.logger.warning("\(resolved.note ?? "")")
        return resolved
    }
}
