import Foundation
import Hummingbird
import NIOCore
import SousCharts
import SousClient
import SousSchema
import SousWire

/// The profile, the household, reminders and the coeliac diary.
struct SettingsPages {
    let app: WebApp

    func addRoutes(to router: Router<WebContext>) {
        router.get("/settings") { request, context in
            try await profilePage(context, welcome: request.uri.queryParameters.get("welcome") != nil)
        }
        router.post("/settings") { _, context in
            let session = try context.signedIn()
            let form = context.form
            return try await app.submit {
                let update = try Self.profileUpdate(form)
                _ = try await app.backend.planner.call(PlannerAPI.updateProfile, update, session: session.token)
                return try await profilePage(context, notice: "Saved.")
            } orShow: { error in
                try await profilePage(context, error: error)
            }
        }
        router.get("/household") { _, context in try await householdPage(context) }
        let householdActions: [(String, @Sendable (Form, String, Backend) async throws -> String?)] = [
            (
                "invite",
                { _, token, backend in
                    try await backend.planner.call(HouseholdAPI.invite, InvitationRequest(), session: token).code
                }
            ),
            (
                "revoke",
                { form, token, backend in
                    _ = try await backend.planner.call(
                        HouseholdAPI.revokeInvitation, InvitationRef(id: try form.required("id", label: "Invitation")), session: token)
                    return nil
                }
            ),
            (
                "join",
                { form, token, backend in
                    _ = try await backend.planner.call(
                        HouseholdAPI.join, JoinHousehold(code: try form.required("code", label: "Invitation code")), session: token)
                    return nil
                }
            ),
            (
                "leave",
                { _, token, backend in
                    _ = try await backend.planner.call(HouseholdAPI.leave, Empty(), session: token)
                    return nil
                }
            ),
            (
                "remove",
                { form, token, backend in
                    _ = try await backend.planner.call(
                        HouseholdAPI.remove, MemberRef(user: try form.required("user", label: "Member")), session: token)
                    return nil
                }
            ),
            (
                "transfer",
                { form, token, backend in
                    _ = try await backend.planner.call(
                        HouseholdAPI.transfer, MemberRef(user: try form.required("user", label: "Member")), session: token)
                    return nil
                }
            ),
            (
                "update",
                { form, token, backend in
                    let people = try form.integer("people", label: "People", in: 1...20)
                    _ = try await backend.planner.call(
                        HouseholdAPI.update, HouseholdUpdate(name: form.text("name"), people: people ?? 0), session: token)
                    return nil
                }
            ),
        ]
        for (action, perform) in householdActions {
            router.post("/household/\(action)") { _, context in
                let session = try context.signedIn()
                return try await app.submit {
                    let code = try await perform(context.form, session.token, app.backend)
                    return code == nil ? Views.seeOther("/household") : try await householdPage(context, newCode: code)
                } orShow: { error in
                    try await householdPage(context, error: error)
                }
            }
        }
        router.get("/reminders") { _, context in try await remindersPage(context) }
        let channelActions: [(String, @Sendable (Form, String, Backend) async throws -> String?)] = [
            (
                "add",
                { form, token, backend in
                    let kind = try form.choice("kind", label: "Where", of: ReminderChannelKind.self)
                    let added = try await backend.notifier.call(
                        NotifierAPI.addChannel,
                        ChannelAdd(kind: kind, address: try form.required("address", label: "Address"), label: form.text("label")),
                        session: token)
                    return added.secret.map { "Added. The webhook's signing secret, shown once: \($0)" } ?? "Added."
                }
            ),
            (
                "push",
                { form, token, backend in
                    let subscription = PushSubscriptionKeys(
                        endpoint: try form.required("endpoint", label: "Endpoint"), p256dh: try form.required("p256dh", label: "Key"),
                        auth: try form.required("auth", label: "Secret"))
                    _ = try await backend.notifier.call(
                        NotifierAPI.addChannel, ChannelAdd(kind: .push, subscription: subscription, label: form.text("label")), session: token)
                    return "This browser will show your reminders."
                }
            ),
            (
                "test",
                { form, token, backend in
                    let result = try await backend.notifier.call(
                        NotifierAPI.testChannel, ChannelRef(id: try form.required("id", label: "Channel")), session: token)
                    switch result.delivery.state {
                    case .sent: return "The test message was delivered."
                    case .pending: return "Not delivered yet: \(result.delivery.reason ?? "no answer yet"). It will be tried again."
                    case .failed: return "Not delivered: \(result.delivery.reason ?? "refused"). The channel is switched off."
                    }
                }
            ),
            (
                "remove",
                { form, token, backend in
                    _ = try await backend.notifier.call(
                        NotifierAPI.removeChannel, ChannelRef(id: try form.required("id", label: "Channel")), session: token)
                    return "Removed."
                }
            ),
            (
                "quiet",
                { form, token, backend in
                    let hours: QuietHours? =
                        form.text("quiet") == "1"
                        ? QuietHours(
                            from: try form.integer("from", label: "From", in: 0...23) ?? 22, to: try form.integer("to", label: "To", in: 0...23) ?? 7)
                        : nil
                    _ = try await backend.notifier.call(NotifierAPI.setQuietHours, QuietHoursChange(quietHours: hours), session: token)
                    return "Saved."
                }
            ),
        ]
        for (action, perform) in channelActions {
            router.post("/reminders/channels/\(action)") { _, context in
                let session = try context.signedIn()
                return try await app.submit {
                    let notice = try await perform(context.form, session.token, app.backend)
                    return try await remindersPage(context, notice: notice)
                } orShow: { error in
                    try await remindersPage(context, error: error)
                }
            }
        }
        router.get("/coeliac") { _, context in try await coeliacPage(context) }
        router.post("/coeliac/predict") { _, context in
            try await coeliacAction(context) { form, token in
                _ = try await app.backend.tracker.call(
                    CoeliacAPI.predict, GlutenPredictionRequest(expectsGluten: form.text("expectsGluten") == "1"), session: token)
            }
        }
        router.post("/coeliac/result") { _, context in
            try await coeliacAction(context) { form, token in
                _ = try await app.backend.tracker.call(
                    CoeliacAPI.recordResult, GlutenResultRequest(positive: form.text("positive") == "1", replace: true), session: token)
            }
        }
        router.post("/coeliac/journal") { _, context in
            try await coeliacAction(context) { form, token in
                var draft = JournalEntryDraft(title: try form.required("title", label: "What happened"), description: form.text("description"))
                if let photo = form.file("photo") {
                    _ = try RecipePages.imageType(photo)
                    draft.photo = Data(photo.bytes)
                }
                _ = try await app.backend.tracker.call(CoeliacAPI.addEntry, draft, session: token)
            }
        }
        router.get("/coeliac/journal/:id/photo") { _, context in
            let session = try context.signedIn()
            guard let id = context.parameters.get("id", as: Int64.self) else { throw WebError.notFound }
            let detail = try await app.backend.tracker.call(CoeliacAPI.getEntry, JournalEntryID(id: id), session: session.token)
            guard let photo = detail.photo else { throw WebError.notFound }
            let type = RecipePages.sniffedImageType(Array(photo)) ?? "application/octet-stream"
            return Response(
                status: .ok, headers: [.contentType: type, .cacheControl: "private, max-age=3600"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: photo)))
        }
    }

    // MARK: Profile

    static func profileUpdate(_ form: Form) throws(WebError) -> ProfileUpdate {
        var update = ProfileUpdate()
        update.people = try form.integer("people", label: "People", in: 1...20)
        update.patience = try form.integer("patience", label: "Cooking patience", in: 1...5)
        var diets: [Diet] = []
        for value in form.all("diets") {
            guard let diet = Diet(rawValue: value) else { throw .field("diets", "\(value) is not a diet Sous knows") }
            diets.append(diet)
        }
        update.diets = diets
        var allergens: [Allergen] = []
        for value in form.all("allergens") {
            guard let allergen = Allergen(rawValue: value) else { throw .field("allergens", "\(value) is not an allergen Sous knows") }
            allergens.append(allergen)
        }
        update.allergens = allergens
        var equipment: [Appliance] = []
        for value in form.all("equipment") {
            guard let appliance = Appliance(rawValue: value) else { throw .field("equipment", "\(value) is not an appliance Sous knows") }
            equipment.append(appliance)
        }
        update.equipment = equipment
        update.dislikes = (form.text("dislikes") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        update.timeZone = form.text("timeZone")
        if let units = form.text("units") {
            guard let system = UnitSystem(rawValue: units) else { throw .field("units", "Choose metric or US units") }
            update.units = system
        }
        update.remindersEnabled = form.text("remindersEnabled") == "1"
        update.reminderHour = try form.integer("reminderHour", label: "Reminder hour", in: 0...23)
        return update
    }

    private func profilePage(_ context: WebContext, welcome: Bool = false, error: WebError? = nil, notice: String? = nil) async throws -> Response {
        let session = try context.signedIn()
        let profile = try await app.backend.planner.call(PlannerAPI.getProfile, Empty(), session: session.token)
        let data: [String: Any] = [
            "welcome": welcome,
            "profile": [
                "people": profile.people, "timeZone": profile.timeZone, "remindersEnabled": profile.remindersEnabled,
                "reminderHour": profile.reminderHour,
            ] as [String: Any],
            "patience": (1...5).map { level in
                ["value": level, "label": "\(level): \(EnergyLevel.descriptions[level] ?? "")", "selected": level == profile.patience]
                    as [String: Any]
            },
            "diets": Diet.allCases.map { ["value": $0.rawValue, "on": profile.diets.contains($0)] },
            "allergens": Allergen.allCases.map { ["value": $0.rawValue, "on": profile.allergens.contains($0)] },
            "equipment": Appliance.allCases.map { ["value": $0.rawValue, "on": profile.equipment.contains($0)] },
            "dislikes": profile.dislikes.joined(separator: ", "),
            "metric": profile.units == .metric,
            "zones": [
                "Europe/London", "Europe/Rome", "Europe/Berlin", "Europe/Paris", "America/New_York", "America/Los_Angeles", "Asia/Tokyo", "UTC",
            ],
        ]
        return app.views.page(
            "settings", title: "Your profile", section: "settings", data, context: context, status: error?.status ?? .ok, error: error, notice: notice
        )
    }

    // MARK: Household

    private func householdPage(_ context: WebContext, newCode: String? = nil, error: WebError? = nil) async throws -> Response {
        let session = try context.signedIn()
        async let invitations = app.backend.planner.call(HouseholdAPI.invitations, Empty(), session: session.token)
        let household = try await app.backend.planner.call(HouseholdAPI.get, Empty(), session: session.token)
        let isOwner = household.members.contains { $0.user == session.user && $0.role == .owner }
        var data: [String: Any] = [
            "household": ["name": household.name, "people": household.people],
            "peopleOverride": household.peopleOverride.map(String.init) ?? "",
            "members": household.members.map { member -> [String: Any] in
                [
                    "user": member.user, "name": member.name + (member.user == session.user ? " (you)" : ""), "role": member.role.rawValue,
                    "mayInvite": member.mayInvite, "removable": isOwner && member.user != session.user,
                ]
            },
            "isOwner": isOwner, "canLeave": household.members.count > 1,
            "invitations": ((try? await invitations.invitations) ?? []).map { invitation -> [String: Any] in
                ["id": invitation.id, "created": Show.dateTime(invitation.createdAt), "expires": Show.dateTime(invitation.expiresAt)]
            },
        ]
        if let newCode { data["newCode"] = newCode }
        return app.views.page(
            "household", title: "Household", section: "settings", data, context: context, status: error?.status ?? .ok, error: error)
    }

    // MARK: Reminders

    private func remindersPage(_ context: WebContext, notice: String? = nil, error: WebError? = nil) async throws -> Response {
        let session = try context.signedIn()
        async let next = app.backend.notifier.call(NotifierAPI.next, Empty(), session: session.token)
        async let channels = app.backend.notifier.call(NotifierAPI.channels, Empty(), session: session.token)
        let log = try await app.backend.notifier.call(NotifierAPI.list, ReminderLogRequest(limit: 30), session: session.token)
        let list = try await channels
        let names = Dictionary(list.channels.map { ($0.id, $0.label ?? $0.address) }, uniquingKeysWith: { first, _ in first })
        let data: [String: Any] = [
            "next": try await next.explanation,
            "log": log.entries.map { entry -> [String: Any] in
                var values: [String: Any] = ["date": entry.date.description, "outcome": entry.outcome.rawValue]
                if let reason = entry.reason { values["reason"] = reason }
                values["deliveries"] = (entry.deliveries ?? []).map { delivery -> [String: Any] in
                    [
                        "kind": delivery.kind.rawValue, "name": names[delivery.channel] ?? "removed channel", "state": delivery.state.rawValue,
                        "reason": delivery.state == .sent ? "" : delivery.reason ?? "",
                    ]
                }
                return values
            },
            "channels": list.channels.map { channel -> [String: Any] in
                [
                    "id": channel.id, "kind": channel.kind.rawValue, "address": channel.address, "label": channel.label ?? "",
                    "enabled": channel.enabled, "disabledReason": channel.disabledReason ?? "",
                ]
            },
            "kinds": ReminderChannelKind.allCases.filter { $0 != .push && ($0 != .email || list.mailConfigured) }.map(\.rawValue),
            "pushKey": list.pushKey,
            "quiet": list.quietHours != nil, "quietFrom": list.quietHours?.from ?? 22, "quietTo": list.quietHours?.to ?? 7,
        ]
        return app.views.page(
            "reminders", title: "Reminders", section: "settings", data, context: context, status: error?.status ?? .ok, error: error, notice: notice)
    }

    // MARK: Coeliac diary

    private func coeliacAction(_ context: WebContext, _ action: (Form, String) async throws -> Void) async throws -> Response {
        let session = try context.signedIn()
        return try await app.submit {
            try await action(context.form, session.token)
            return Views.seeOther("/coeliac")
        } orShow: { error in
            try await coeliacPage(context, error: error)
        }
    }

    private func coeliacPage(_ context: WebContext, error: WebError? = nil) async throws -> Response {
        let session = try context.signedIn()
        async let stats = app.backend.tracker.call(CoeliacAPI.stats, Empty(), session: session.token)
        async let calendar = app.backend.tracker.call(CoeliacAPI.calendar, GlutenCalendarRequest(), session: session.token)
        let journal = try await app.backend.tracker.call(CoeliacAPI.listEntries, JournalQuery(), session: session.token)
        let figures = try await stats
        let month = try await calendar
        let name = String(format: "%04d-%02d", month.year, month.month)
        let rate = figures.hitRate.map { " (\(Show.number($0 * 100)) % right)" } ?? ""
        let data: [String: Any] = [
            "stats": "\(figures.correct) of \(figures.scored) predictions right\(rate); streak \(figures.currentStreak), best \(figures.bestStreak).",
            "badges": figures.badges.map { ["streak": $0.streak] },
            "calendar": Views.inlineSVG(GlutenMonthChart(month, title: "Gluten tests, \(name)", width: 400, height: 320).render()),
            "journal": journal.entries.map { entry -> [String: Any] in
                var values: [String: Any] = [
                    "id": entry.id, "title": entry.title, "date": entry.date.description, "time": entry.time.description, "hasPhoto": entry.hasPhoto,
                ]
                if let description = entry.description, !description.isEmpty { values["description"] = description }
                return values
            },
        ]
        return app.views.page(
            "coeliac", title: "Coeliac diary", section: "settings", data, context: context, status: error?.status ?? .ok, error: error)
    }
}
