import SousWire

/// What one user may store in the tracker (docs/PROTOCOL.md, "Quotas").
enum TrackerQuotas {
    static let diaryEntriesPerDay = Quota("diary entries on one day", limit: 200, field: "date")
    static let savedFoods = Quota("saved foods", limit: 500, field: "name")
    static let journalEntriesPerDay = Quota("journal entries on one day", limit: 50, field: "date")
    static let photoBytes = Quota("bytes of journal photos", limit: 100 << 20, field: "photo")
    static let ownProducts = Quota("products of your own", limit: 1000, field: "code")

    static let all = [diaryEntriesPerDay, savedFoods, journalEntriesPerDay, photoBytes, ownProducts]
}
