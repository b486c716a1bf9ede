import ArgumentParser
import Foundation
import SousClient
import SousSchema
import SousWire

struct ProfileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile",
        abstract: "Show and change your cooking profile (people, patience, diets, allergens, dislikes, equipment, time zone, reminders).",
        subcommands: [Show.self, SetFields.self, Reset.self]
    )

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show your cooking profile (the defaults if you never set one).")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let profile = try await global.client(Planner.self).call(PlannerAPI.getProfile, Empty(), session: global.token)
            if global.json { return try printJSON(profile) }
            Console.current.out(renderProfile(profile))
        }
    }

    struct SetFields: AsyncParsableCommand, FlagsForFields {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Change some fields of your profile; the others keep their value.",
            discussion: """
                List options (--diet, --allergen, --dislike, --equipment) are repeatable and replace the whole list; \
                --no-diets, --no-allergens and --no-dislikes empty it. Examples:
                  sous profile set --people 4 --patience 3
                  sous profile set --diet vegan --diet gluten-free --dislike coriander
                  sous profile set --time-zone Europe/Rome --reminder-hour 18
                  sous profile set --filter-patience false
                """
        )

        @Option(help: "People you cook for, 1–50.") var people: Int?
        @Option(
            help:
                "Cooking patience 1–5: \(EnergyLevel.descriptions.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))."
        )
        var patience: Int?
        @Option(name: .customLong("diet"), help: "A diet you follow (repeatable): \(Diet.allCases.map(\.rawValue).joined(separator: ", ")).")
        var diets: [Diet] = []
        @Flag(help: "Follow no particular diet.") var noDiets = false
        @Option(
            name: .customLong("allergen"), help: "An allergen to avoid (repeatable): \(Allergen.allCases.map(\.rawValue).joined(separator: ", ")).")
        var allergens: [Allergen] = []
        @Flag(help: "Avoid no allergens.") var noAllergens = false
        @Option(name: .customLong("dislike"), help: "A catalog ingredient id you dislike (repeatable; see `sous ingredients search`).") var dislikes:
            [String] = []
        @Flag(help: "Dislike nothing.") var noDislikes = false
        @Option(
            name: .customLong("equipment"), help: "An appliance you have (repeatable): \(Appliance.allCases.map(\.rawValue).joined(separator: ", "))."
        )
        var equipment: [Appliance] = []
        @Option(help: "Hide recipes that do not fit your diets: on or off (your diets are kept either way).") var filterDiets: OnOff?
        @Option(help: "Hide recipes with your allergens: on or off (the list is kept either way).") var filterAllergens: OnOff?
        @Option(help: "Hide recipes with ingredients you dislike: on or off (the list is kept either way).") var filterDislikes: OnOff?
        @Option(help: "Hide recipes needing appliances you lack: on or off.") var filterEquipment: OnOff?
        @Option(help: "Hide recipes above your patience: on or off.") var filterPatience: OnOff?
        @Option(help: "Your IANA time zone, e.g. Europe/Rome; \"today\" in your plan follows it.") var timeZone: String?
        @Option(help: "Daily reminders: on or off (true/false, yes/no).") var reminders: OnOff?
        @Option(help: "Local hour of the daily reminder, 0–23.") var reminderHour: Int?
        @Option(help: "Show quantities in metric (g, ml) or us (oz, lb, cups) units.") var units: UnitSystem?
        @OptionGroup var global: GlobalOptions

        static let flagsForFields = [
            "diets": "--diet", "allergens": "--allergen", "dislikes": "--dislike", "filterDiets": "--filter-diets",
            "filterAllergens": "--filter-allergens", "filterDislikes": "--filter-dislikes", "filterEquipment": "--filter-equipment",
            "filterPatience": "--filter-patience", "timeZone": "--time-zone", "remindersEnabled": "--reminders", "reminderHour": "--reminder-hour",
        ]

        var update: ProfileUpdate {
            ProfileUpdate(
                people: people, patience: patience,
                diets: noDiets ? [] : diets.isEmpty ? nil : diets,
                allergens: noAllergens ? [] : allergens.isEmpty ? nil : allergens,
                dislikes: noDislikes ? [] : dislikes.isEmpty ? nil : dislikes,
                equipment: equipment.isEmpty ? nil : equipment,
                filterDiets: filterDiets?.isOn, filterAllergens: filterAllergens?.isOn, filterDislikes: filterDislikes?.isOn,
                filterEquipment: filterEquipment?.isOn, filterPatience: filterPatience?.isOn,
                timeZone: timeZone, remindersEnabled: reminders?.isOn, reminderHour: reminderHour, units: units
            )
        }

        func validate() throws {
            if noDiets && !diets.isEmpty { throw ValidationError("--no-diets and --diet contradict each other") }
            if noAllergens && !allergens.isEmpty { throw ValidationError("--no-allergens and --allergen contradict each other") }
            if noDislikes && !dislikes.isEmpty { throw ValidationError("--no-dislikes and --dislike contradict each other") }
            if update == ProfileUpdate() { throw ValidationError("nothing to change: pass at least one option (see --help)") }
        }

        func run() async throws {
            let profile = try await global.client(Planner.self).call(PlannerAPI.updateProfile, update, session: global.token)
            if global.json { return try printJSON(profile) }
            Console.current.out("Profile saved.\n")
            Console.current.out(renderProfile(profile))
        }
    }

    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Put your profile back to the defaults.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let profile = try await global.client(Planner.self).call(PlannerAPI.resetProfile, Empty(), session: global.token)
            if global.json { return try printJSON(profile) }
            Console.current.out("Profile reset to the defaults.\n")
            Console.current.out(renderProfile(profile))
        }
    }
}

func renderProfile(_ profile: CookingProfile) -> String {
    func list(_ values: [String]) -> String { values.isEmpty ? "none" : values.joined(separator: ", ") }
    func onOff(_ value: Bool) -> String { value ? "on" : "off" }
    let rows: [(String, String)] = [
        ("People", "\(profile.people)"),
        ("Patience", "\(profile.patience)/5 (\(EnergyLevel.descriptions[profile.patience] ?? ""))"),
        ("Diets", list(profile.diets.map(\.rawValue))),
        ("Allergens", list(profile.allergens.map(\.rawValue))),
        ("Dislikes", list(profile.dislikes)),
        ("Equipment", list(profile.equipment.map(\.rawValue))),
        (
            "Filters",
            "diets \(onOff(profile.filterDiets)) · allergens \(onOff(profile.filterAllergens)) · dislikes \(onOff(profile.filterDislikes)) · "
                + "equipment \(onOff(profile.filterEquipment)) · patience \(onOff(profile.filterPatience))"
        ),
        ("Time zone", profile.timeZone),
        ("Reminders", profile.remindersEnabled ? String(format: "on, at %02d:00", profile.reminderHour) : "off"),
        ("Units", profile.units == .us ? "US (oz, lb, cups)" : "metric (g, kg, ml, l)"),
    ]
    let width = rows.map(\.0.count).max() ?? 0
    return rows.map { $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.1 }.joined(separator: "\n")
}

/// A switch on the command line: on/off, as the services' hints say, or true/false, yes/no.
enum OnOff: String, ExpressibleByArgument, CaseIterable {
    case on, off, `true`, `false`, yes, no

    var isOn: Bool { self == .on || self == .true || self == .yes }
}
