import SousSchema
import SousTestSupport
import Testing
import TrackerService

/// Hit rate, streaks, badges and the calendar as plain functions over a hand-built history.
@Suite(.closesItsSockets)
struct CoeliacScoringTests {

    /// A day: `p` the prediction ("gluten"/"none"/nil), `r` the result ("+"/"-"/nil).
    static func day(_ text: String, _ prediction: Bool?, _ positive: Bool?) -> GlutenDay {
        GlutenDay(date: localDate(text), expectsGluten: prediction, positive: positive)
    }

    @Test func anEmptyHistoryHasNoHitRateAndNoStreak() {
        let stats = GlutenScoring.stats([])
        #expect(stats.hitRate == nil)
        #expect(stats.results == 0 && stats.scored == 0 && stats.correct == 0)
        #expect(stats.currentStreak == 0 && stats.bestStreak == 0)
        #expect(stats.badges.isEmpty && stats.nextBadge == 3)
    }

    @Test func hitRateCountsOnlyResultsThatHadAPrediction() {
        let history = [
            Self.day("2026-03-01", true, true),  // correct
            Self.day("2026-03-02", false, true),  // wrong
            Self.day("2026-03-03", nil, false),  // result without prediction: not scored
            Self.day("2026-03-04", false, false),  // correct
            Self.day("2026-03-05", true, nil),  // prediction waiting for its result: not scored
        ]
        let stats = GlutenScoring.stats(history)
        #expect(stats.results == 4)
        #expect(stats.scored == 3)
        #expect(stats.correct == 2)
        #expect(stats.hitRate == 2.0 / 3.0)
    }

    @Test func aWrongPredictionResetsTheStreakAndGapsDoNot() {
        // Given out of order on purpose: streaks follow dates, not insertion.
        let history = [
            Self.day("2026-03-10", false, false),
            Self.day("2026-03-01", true, true),
            Self.day("2026-03-02", false, false),
            Self.day("2026-03-03", false, false),
            Self.day("2026-03-04", false, true),  // wrong: streak back to 0 after a best of 3
            Self.day("2026-03-06", false, false),  // 05 has nothing: no break
            Self.day("2026-03-07", nil, true),  // no prediction: skipped, no break
            Self.day("2026-03-08", true, nil),  // no result yet: skipped, no break
        ]
        let stats = GlutenScoring.stats(history)
        #expect(stats.bestStreak == 3)
        #expect(stats.currentStreak == 2)
        #expect(GlutenScoring.currentStreak(history) == 2)
    }

    @Test func badgesAreEarnedOnceOnTheDateTheStreakReachedThem() {
        var history: [GlutenDay] = []
        var date = localDate("2026-01-01")
        // 3 correct, a miss, then 31 correct: the 3-badge dates from the first run, not the second.
        for index in 0..<35 {
            let wrong = index == 3
            history.append(GlutenDay(date: date, expectsGluten: wrong ? true : false, positive: false))
            date = date.adding(days: 1)
        }
        let badges = GlutenScoring.badgesReached(history)
        #expect(
            badges == [
                GlutenBadge(streak: 3, reachedOn: localDate("2026-01-03")),
                GlutenBadge(streak: 7, reachedOn: localDate("2026-01-11")),
                GlutenBadge(streak: 30, reachedOn: localDate("2026-02-03")),
            ])
        let stats = GlutenScoring.stats(history)
        #expect(stats.currentStreak == 31 && stats.bestStreak == 31)
        #expect(stats.nextBadge == nil)
    }

    @Test func earnedBadgesAreKeptEvenWhenTheHistoryNoLongerReachesThem() {
        let history = [Self.day("2026-03-01", true, false)]
        let kept = [GlutenBadge(streak: 3, reachedOn: localDate("2026-02-20"))]
        let stats = GlutenScoring.stats(history, earned: kept)
        #expect(stats.badges == kept)
        #expect(stats.nextBadge == 7)
        #expect(stats.currentStreak == 0)
    }

    @Test func theCalendarListsEveryDayOfTheMonthWithItsStatus() throws {
        let history = [
            Self.day("2026-02-01", true, true),
            Self.day("2026-02-02", false, false),
            Self.day("2026-02-03", true, nil),
            Self.day("2026-02-04", nil, false),
            Self.day("2026-02-05", false, true),
            Self.day("2026-03-01", true, true),  // another month: ignored
        ]
        let calendar = try #require(GlutenScoring.calendar(year: 2026, month: 2, history: history))
        #expect(calendar.days.count == 28)
        #expect(calendar.days.first?.date == localDate("2026-02-01"))
        #expect(calendar.days.last?.date == localDate("2026-02-28"))
        #expect(calendar.days.prefix(6).map(\.status) == [.positive, .negative, .predicted, .negative, .positive, .nothing])
        #expect(calendar.days.prefix(6).map(\.correct) == [true, true, nil, nil, false, nil])
        #expect(calendar.days[2].expectsGluten == true)
        #expect(GlutenScoring.calendar(year: 2028, month: 2, history: [])?.days.count == 29, "leap year")
        #expect(GlutenScoring.calendar(year: 2026, month: 13, history: []) == nil)
    }
}
