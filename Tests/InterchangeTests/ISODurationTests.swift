import SousInterchange
import Testing

/// Durations as recipe sites write them.
struct ISODurationTests {
    /// (text, minutes or nil when it is not a duration).
    static let durations: [(String, Int?)] = [
        ("PT1H30M", 90),
        ("PT45M", 45),
        ("P0DT0H20M", 20),
        ("PT90M", 90),
        ("PT1H", 60),
        ("P1D", 1_440),
        ("PT0.5H", 30),
        ("PT1,5H", 90),
        ("P1W", 10_080),
        ("P0Y0M0DT0H35M0.000S", 35),
        ("pt20m", 20),
        (" PT15M\n", 15),
        ("PT30S", 1),
        ("PT29S", 0),
        ("PT0M", 0),
        ("P1DT2H", 1_560),
        // Plain text.
        ("30 minutes", 30),
        ("1 hour 20 min", 80),
        ("1 hr, 15 mins", 75),
        ("1h30m", 90),
        ("1.5 hours", 90),
        ("2 Hours and 10 Minutes", 130),
        ("45 Min", 45),
        // Not durations.
        ("", nil),
        ("P", nil),
        ("PT", nil),
        ("P1DT", nil),
        ("PT20", nil),
        ("PT-5M", nil),
        ("PT1H1H", nil),
        ("PT30M1H", nil),
        ("P1M", nil),
        ("P1Y", nil),
        ("PT1.2.3M", nil),
        ("PT99999999999999999999H", nil),
        ("30", nil),
        ("half an hour", nil),
        ("1 1/2 hours", nil),
        ("20 parsecs", nil),
    ]

    @Test(arguments: ISODurationTests.durations)
    func readsMinutes(_ text: String, _ minutes: Int?) {
        #expect(ISODuration.minutes(text) == minutes)
    }

    @Test(arguments: [(0, "PT0M"), (20, "PT20M"), (60, "PT1H"), (90, "PT1H30M"), (1_440, "PT24H"), (1_441, "PT24H1M")])
    func writesISO8601(_ minutes: Int, _ text: String) {
        #expect(ISODuration.string(minutes: minutes) == text)
        #expect(ISODuration.minutes(text) == minutes)
    }

    @Test func refusesNegativeMinutes() {
        #expect(ISODuration.string(minutes: -1) == nil)
    }
}
