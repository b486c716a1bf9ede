import Foundation
import SousSchema
import SousWire

/// The visible week of a plan: today in the user's time zone and the six days after it. Pure,
/// so the rolling rule is tested without sockets.
struct PlanWindow: Sendable, Equatable {
    static let length = 7

    let today: LocalDate
    let timeZone: TimeZone

    init(now: Date, timeZone: TimeZone) {
        self.timeZone = timeZone
        today = LocalDate(now, in: timeZone)
    }

    /// The window for `profile` (its zone was validated when saved; UTC if it no longer resolves).
    init(now: Date, profile: CookingProfile) {
        self.init(now: now, timeZoneIdentifier: profile.timeZone)
    }

    init(now: Date, timeZoneIdentifier: String) {
        self.init(now: now, timeZone: TimeZone(identifier: timeZoneIdentifier) ?? TimeZone(identifier: "UTC")!)
    }

    var last: LocalDate { today.adding(days: Self.length - 1) }
    /// The instant the window moves on a day: the next midnight in its zone.
    var moves: Date { today.adding(days: 1).instant(hour: 0, in: timeZone) }
    var dates: [LocalDate] { (0..<Self.length).map { today.adding(days: $0) } }

    func contains(_ date: LocalDate) -> Bool { date >= today && date <= last }

    /// Throws badRequest naming `field` for a date outside the week or a slot other than 1–2.
    func check(_ ref: SlotRef, field prefix: String = "") throws(ServiceError) {
        guard contains(ref.date) else {
            throw .badRequest("\(ref.date) is outside the plan's week \(today) … \(last)", field: "\(prefix)date")
        }
        try Self.check(slot: ref.slot, field: "\(prefix)slot")
    }

    static func check(slot: Int, field: String = "slot") throws(ServiceError) {
        guard PlanSlotKind.slots.contains(slot) else {
            throw .badRequest("slot must be 1 (lunch) or 2 (dinner), got \(slot)", field: field)
        }
    }
}
