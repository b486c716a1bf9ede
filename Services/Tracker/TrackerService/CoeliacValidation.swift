import Foundation
import SousRuntime
import SousSchema
import SousWire

/// A journal entry that passed validation, with its date and time resolved.
struct ValidJournalEntry: Sendable {
    var date: LocalDate
    var time: TimeOfDay
    var title: String
    var description: String?
    var photo: Data?
}

/// Journal changes that passed validation.
struct ValidJournalEdit: Sendable {
    enum Photo: Sendable {
        case keep, remove
        case replace(Data)
    }

    var title: String?
    /// Empty removes the description.
    var description: String?
    var date: LocalDate?
    var time: TimeOfDay?
    var photo: Photo
}

/// Checks journal input before anything is written, naming the offending field.
enum CoeliacValidation {
    /// Checks every field first; only then, if the draft leaves its date or time out, asks `now`
    /// (which may call the planner), so a bad request never waits for a peer.
    static func entry(
        _ draft: JournalEntryDraft, now: () async -> (date: LocalDate, time: TimeOfDay)
    ) async throws(ServiceError) -> ValidJournalEntry {
        let title = try title(draft.title)
        let description = try description(draft.description).flatMap { $0.isEmpty ? nil : $0 }
        let photo = try draft.photo.map { photo throws(ServiceError) in try self.photo(photo) }
        let date: LocalDate, time: TimeOfDay
        if let given = draft.date, let givenTime = draft.time {
            (date, time) = (given, givenTime)
        } else {
            let current = await now()
            (date, time) = (draft.date ?? current.date, draft.time ?? current.time)
        }
        return ValidJournalEntry(date: date, time: time, title: title, description: description, photo: photo)
    }

    static func edit(_ edit: JournalEdit) throws(ServiceError) -> ValidJournalEdit {
        let photo: ValidJournalEdit.Photo
        switch (edit.photo, edit.removePhoto ?? false) {
        case (_?, true):
            throw .badRequest("send a new photo or removePhoto, not both", field: "removePhoto")
        case (let bytes?, false):
            photo = .replace(try self.photo(bytes))
        case (nil, true):
            photo = .remove
        case (nil, false):
            photo = .keep
        }
        return ValidJournalEdit(
            title: try edit.title.map { title throws(ServiceError) in try self.title(title) },
            description: try description(edit.description), date: edit.date, time: edit.time, photo: photo
        )
    }

    static func title(_ title: String) throws(ServiceError) -> String {
        let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .badRequest("a journal entry needs a title", field: "title") }
        guard trimmed.count <= JournalLimits.maxTitleCharacters else {
            throw .badRequest("the title is longer than \(JournalLimits.maxTitleCharacters) characters", field: "title")
        }
        return trimmed
    }

    static func description(_ description: String?) throws(ServiceError) -> String? {
        guard let description else { return nil }
        let trimmed = description.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.count <= JournalLimits.maxDescriptionCharacters else {
            throw .badRequest("the description is longer than \(JournalLimits.maxDescriptionCharacters) characters", field: "description")
        }
        return trimmed
    }

    static func photo(_ bytes: Data) throws(ServiceError) -> Data {
        _ = try ImageType.checked(bytes, field: "photo", maxBytes: JournalLimits.maxPhotoBytes)
        return bytes
    }

    /// The inclusive range a `journal.list` asks for; `today` when it names none.
    static func range(_ query: JournalQuery, today: () async -> LocalDate) async throws(ServiceError) -> (from: LocalDate, to: LocalDate) {
        switch (query.date, query.from, query.to) {
        case (let date?, nil, nil):
            return (date, date)
        case (_?, _, _):
            throw .badRequest("ask for one date or a from…to range, not both", field: "date")
        case (nil, let from?, let to?):
            guard from <= to else { throw .badRequest("to (\(to)) is before from (\(from))", field: "to") }
            guard from.days(to: to) < JournalLimits.maxRangeDays else {
                throw .badRequest("a range covers at most \(JournalLimits.maxRangeDays) days", field: "to")
            }
            return (from, to)
        case (nil, _?, nil):
            throw .badRequest("a range needs both from and to", field: "to")
        case (nil, nil, _?):
            throw .badRequest("a range needs both from and to", field: "from")
        case (nil, nil, nil):
            let date = await today()
            return (date, date)
        }
    }

    /// The month a `gluten.calendar` asks for.
    static func month(_ request: GlutenCalendarRequest, today: () async -> LocalDate) async throws(ServiceError) -> (year: Int, month: Int) {
        switch (request.year, request.month) {
        case (let year?, let month?):
            guard (1...9999).contains(year) else { throw .badRequest("year must be 1 to 9999", field: "year") }
            guard (1...12).contains(month) else { throw .badRequest("month must be 1 to 12", field: "month") }
            return (year, month)
        case (nil, nil):
            let date = await today()
            return (date.year, date.month)
        case (nil, _?):
            throw .badRequest("a month needs its year", field: "year")
        case (_?, nil):
            throw .badRequest("a year needs its month", field: "month")
        }
    }
}
