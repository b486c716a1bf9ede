import ArgumentParser
import Foundation
import SousRuntime
import SousSchema
import SousWire
import Synchronization

/// How many households one machine serves: N simulated households on the five real service
/// processes (loopback TCP, CURVE, a real account and session each), living a day compressed into a few
/// seconds — search and open recipes, plan meals, build and tick off the grocery list, log meals
/// and water, read the day's summary, mark dinner cooked, ask about the reminder — with its calls
/// spread evenly over the day. N grows until a method's p99 passes the bound or a call is
/// refused `busy`; the largest N that passed is the figure, with each method's p50/p99 at that
/// N, the services' CPU per call and each one's memory (PSS, RSS beside it).
struct HouseholdsBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "households",
        abstract: "The largest number of simulated households the five service processes serve with every method's p99 within the bound."
    )

    @Option(help: "Household counts to try, in order, comma-separated; the run stops at the first that fails.")
    var households = "20,40,80,120,160,200,240,280,320,400"
    @Option(help: "Seconds a simulated day lasts.") var day = 20.0
    @Option(help: "The p99 every method must stay within, in milliseconds.") var p99Bound = 50.0
    @Option(help: "Households sharing one connection to each service (a phone each would be one).") var perConnection = 8
    @Option(help: "People in each household (1 to 4): with two or more, a second member waits on the list while the first ticks it.")
    var members = 1

    func validate() throws {
        guard (1...4).contains(members) else { throw ValidationError("--members is 1 to 4") }
    }

    func run() async throws {
        let counts = households.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sous-bench-households-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let stack = try ServiceProcess.startStack(dataDirectory: root)
        defer { for process in stack.values { process.stop() } }
        print(
            "\n### Households served (\(members) member\(members == 1 ? "" : "s") each, a day in \(Self.text(day)) s, \(Day.calls) calls per household-day, "
                + "p99 bound \(Self.text(p99Bound)) ms)\n")
        print("| households | calls | calls/s | slowest method at p99 | p99 ms | busy | other errors | services' CPU per call, µs |")
        print("|---:|---:|---:|---|---:|---:|---:|---:|")
        var passed: (households: Int, result: StepResult)?
        var failed: (households: Int, result: StepResult)?
        for (step, count) in counts.enumerated() {
            let result = try await runStep(households: count, step: step, stack: stack)
            let slowest = result.slowest
            print(
                "| \(count) | \(result.calls) | \(Self.text(Double(result.calls) / result.seconds)) | \(slowest.name) | \(Self.text(slowest.p99))"
                    + " | \(result.busy) | \(result.otherErrors) | \(Self.text(result.cpuMicrosecondsPerCall)) |")
            guard result.busy == 0, slowest.p99 <= p99Bound else {
                failed = (count, result)
                break
            }
            passed = (count, result)
        }
        guard let passed else {
            print("\nNo household count passed: every step had a p99 over \(Self.text(p99Bound)) ms or a busy refusal.")
            if let failed { Self.printMethods(failed.result, title: "Each method at \(failed.households) households (the step that failed)") }
            return
        }
        Self.printMethods(passed.result, title: "Each method at \(passed.households) households (the largest that passed)")
        print("\n### Memory of each service after that step (PSS, its share of shared pages; RSS beside it)\n")
        print("| process | PSS MiB | RSS MiB |")
        print("|---|---:|---:|")
        for service in SousService.allCases {
            guard let process = stack[service] else { continue }
            let memory = ProcessMemory.read(pid: process.pid)
            print("| sous-\(service.rawValue) | \(Self.text(Double(memory.proportional) / 1024)) | \(Self.text(Double(memory.rss) / 1024)) |")
        }
        let perSecond = Double(passed.households * Day.calls) / day
        print(
            "\n\(passed.households) households in a \(Self.text(day)) s day is \(Self.text(perSecond)) calls/s sustained. A household makes about "
                + "\(Day.calls) calls a day; if a fifth of a day's calls fall in its busiest hour, that rate serves "
                + "\(Int(perSecond * 3600 / (Double(Day.calls) / 5))) households.")
    }

    static func printMethods(_ result: StepResult, title: String) {
        print("\n### \(title)\n")
        print("| method | calls | p50 ms | p99 ms |")
        print("|---|---:|---:|---:|")
        for method in result.methods {
            print("| `\(method.name)` | \(method.count) | \(Self.text(method.p50)) | \(Self.text(method.p99)) |")
        }
    }

    static func text(_ value: Double) -> String { String(format: value >= 100 ? "%.0f" : "%.1f", value) }

    /// One step: `count` households living one day at once, each on its own users' data.
    func runStep(households count: Int, step: Int, stack: [SousService: ServiceProcess]) async throws -> StepResult {
        let recorder = Recorder()
        let connections = (0..<max(1, (count + perConnection - 1) / perConnection)).map { _ in Clients(stack) }
        let tokens = try await Self.signUp(count, members: members, step: step, planner: connections[0].planner)
        let interval = Duration.seconds(day / Double(Day.calls))
        let cpuBefore = Self.cpuTicks(stack)
        let started = ContinuousClock.now
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                // Spread over the first interval: households do not all start in the same instant.
                let offset = interval * (Double(index) / Double(count))
                let household = Day(
                    clients: connections[index / perConnection], token: tokens[index][0], partner: tokens[index].dropFirst().first,
                    recorder: recorder, interval: interval, next: started + offset)
                group.addTask {
                    var day = household
                    await day.live()
                }
            }
        }
        let seconds =
            Double((ContinuousClock.now - started).components.seconds) + Double((ContinuousClock.now - started).components.attoseconds) / 1e18
        let cpu = Double(Self.cpuTicks(stack) - cpuBefore) / Double(sysconf(Int32(_SC_CLK_TCK)))
        return recorder.result(seconds: seconds, cpuSeconds: cpu)
    }

    /// Registers and signs in the accounts of each household (the first invites the others, who
    /// join), before the day is timed (the password hashing of sign-up is the planner's heaviest
    /// work, and no part of a household's day). Returns each household's members' tokens.
    static func signUp(_ count: Int, members: Int, step: Int, planner: ServiceClient<Planner>) async throws -> [[String]] {
        try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
            var tokens = [[String]](repeating: [], count: count)
            var next = 0
            func account(_ email: String, _ password: String) async throws -> String {
                _ = try await planner.call(AccountAPI.register, Registration(email: email, password: password, name: email))
                return try await planner.call(AccountAPI.login, SignIn(email: email, password: password, device: "bench")).token
            }
            func add() {
                let index = next
                next += 1
                group.addTask {
                    var household: [String] = []
                    for member in 0..<members {
                        let token = try await account("household-\(step)-\(index)-\(member)@bench.example", "bench-password-\(index)-kitchen")
                        if member > 0 {
                            let code = try await planner.call(HouseholdAPI.invite, InvitationRequest(), session: household[0]).code
                            _ = try await planner.call(HouseholdAPI.join, JoinHousehold(code: code), session: token)
                        }
                        household.append(token)
                    }
                    return (index, household)
                }
            }
            // As many at once as the planner hashes passwords at once, and a few waiting.
            for _ in 0..<min(count, 8) { add() }
            for try await (index, household) in group {
                tokens[index] = household
                if next < count { add() }
            }
            return tokens
        }
    }

    /// User and system CPU ticks of the five processes so far.
    static func cpuTicks(_ stack: [SousService: ServiceProcess]) -> Int {
        stack.values.reduce(0) { total, process in
            guard let text = try? String(contentsOfFile: "/proc/\(process.pid)/stat", encoding: .utf8),
                let close = text.lastIndex(of: ")")
            else { return total }
            // After the command's closing parenthesis: state (field 3) … utime (14), stime (15).
            let fields = text[text.index(after: close)...].split(separator: " ")
            guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return total }
            return total + user + system
        }
    }
}

/// A client of each service, shared by the households of one connection.
struct Clients: Sendable {
    let catalog: ServiceClient<Catalog>
    let planner: ServiceClient<Planner>
    let groceries: ServiceClient<Groceries>
    let tracker: ServiceClient<Tracker>
    let notifier: ServiceClient<Notifier>

    init(_ stack: [SousService: ServiceProcess]) {
        func client<Scope: PeerService>(_ scope: Scope.Type) -> ServiceClient<Scope> {
            let process = stack[Scope.service]!
            return ServiceClient<Scope>(
                endpoint: process.endpoint, options: .init(timeout: .seconds(10), retries: 0), curve: process.curve, name: Scope.service.rawValue)
        }
        catalog = client(Catalog.self)
        planner = client(Planner.self)
        groceries = client(Groceries.self)
        tracker = client(Tracker.self)
        notifier = client(Notifier.self)
    }
}

/// One household's day, its calls one `interval` apart.
struct Day: Sendable {
    /// Calls in a day (each `call` below once, the repeated ones counted as often as made).
    static let calls = 27

    let clients: Clients
    let token: String
    /// Another member of the household. The two take turns ticking the list, the one who does
    /// not tick waiting on it (`groceries.wait`): how long a tick takes to reach the other is
    /// recorded as `groceries.wait (seen)`.
    let partner: String?
    let recorder: Recorder
    let interval: Duration
    var next: ContinuousClock.Instant

    /// Waits for this call's turn, makes it (as `member`, default the one living the day), and
    /// records how long it took (or why it failed).
    mutating func call<T: Sendable>(_ method: String, as member: String? = nil, _ body: (String) async throws -> T) async -> T? {
        try? await Task.sleep(until: next, clock: .continuous)
        next += interval
        let start = ContinuousClock.now
        do {
            let value = try await body(member ?? token)
            recorder.record(method, ContinuousClock.now - start)
            return value
        } catch let error as ServiceError {
            recorder.failed(method, error)
        } catch {
            recorder.failed(method, .internal("\(error)"))
        }
        return nil
    }

    mutating func live() async {
        let (catalog, planner, groceries, tracker, notifier) = (
            clients.catalog, clients.planner, clients.groceries, clients.tracker, clients.notifier
        )
        _ = await call("profile.update") { try await planner.call(PlannerAPI.updateProfile, ProfileUpdate(people: 2), session: $0) }
        let page = await call("recipes.search") { try await catalog.call(CatalogAPI.searchRecipes, RecipeSearch(pageSize: 20), session: $0) }
        _ = await call("recipes.search") { try await catalog.call(CatalogAPI.searchRecipes, RecipeSearch(query: "soup"), session: $0) }
        let recipes = Array((page?.recipes ?? []).map(\.id).shuffled().prefix(3))
        for recipe in recipes {
            _ = await call("recipes.get") { try await catalog.call(CatalogAPI.getRecipe, RecipeLookup(id: recipe), session: $0) }
        }
        let week = await call("plan.get") { try await planner.call(PlannerAPI.getPlan, Empty(), session: $0) }
        guard let today = week?.today, recipes.count == 3 else { return }
        let slots = [SlotRef(date: today, slot: 2), SlotRef(date: today.adding(days: 1), slot: 1), SlotRef(date: today.adding(days: 1), slot: 2)]
        for (slot, recipe) in zip(slots, recipes) {
            _ = await call("plan.put") {
                try await planner.call(PlannerAPI.putSlot, SlotAssignment(date: slot.date, slot: slot.slot, recipe: recipe), session: $0)
            }
        }
        _ = await call("plan.get") { try await planner.call(PlannerAPI.getPlan, Empty(), session: $0) }
        for recipe in recipes.prefix(2) {
            _ = await call("groceries.addRecipe") {
                try await groceries.call(GroceriesAPI.addRecipe, AddRecipeToList(recipe: recipe), session: $0)
            }
        }
        let list = await call("groceries.list") { try await groceries.call(GroceriesAPI.list, Empty(), session: $0) }
        var version = list?.version ?? 0
        for (index, line) in (list?.lines ?? []).prefix(3).enumerated() {
            // Turn about: the second line is ticked by the partner, the others by this member.
            let (ticker, watcher): (String, String?) = if let partner, index % 2 == 1 { (partner, token) } else { (token, partner) }
            // The other member is already waiting for the list to move past what they saw.
            let after = version
            let seen = watcher.map { watcher in
                Task { [recorder, groceries] () -> ContinuousClock.Instant? in
                    do {
                        let answer = try await groceries.call(GroceriesAPI.wait, ListWait(after: after, waitSeconds: 10), session: watcher)
                        return answer.changed ? ContinuousClock.now : nil
                    } catch let error as ServiceError {
                        recorder.failed("groceries.wait (seen)", error)
                    } catch {
                        recorder.failed("groceries.wait (seen)", .internal("\(error)"))
                    }
                    return nil
                }
            }
            try? await Task.sleep(until: next, clock: .continuous)
            let ticked = ContinuousClock.now
            let change = await call("groceries.check", as: ticker) {
                try await groceries.call(GroceriesAPI.check, CheckLines(lines: [line.id], checked: true), session: $0)
            }
            version = change?.version ?? version
            if let seen, let at = await seen.value { recorder.record("groceries.wait (seen)", at - ticked) }
        }
        _ = await call("groceries.list") { try await groceries.call(GroceriesAPI.list, Empty(), session: $0) }
        for (meal, food) in [(Meal.breakfast, "Porridge"), (.lunch, "Sandwich")] {
            _ = await call("diary.add") {
                try await tracker.call(
                    TrackerAPI.addEntry,
                    DiaryAdd(meal: meal, grams: 250, food: food, per100g: Macros(kcal: 120, carbohydrates: 20, protein: 5, fat: 2)), session: $0)
            }
        }
        for _ in 0..<3 {
            _ = await call("drinks.change") { try await tracker.call(TrackerAPI.changeDrink, DrinkChange(drink: .water, delta: 1), session: $0) }
        }
        _ = await call("diary.summary") { try await tracker.call(TrackerAPI.summary, DayRequest(), session: $0) }
        _ = await call("plan.cooked") { try await planner.call(PlannerAPI.cooked, CookedSlot(date: today, slot: 2), session: $0) }
        _ = await call("diary.summary") { try await tracker.call(TrackerAPI.summary, DayRequest(), session: $0) }
        _ = await call("reminders.next") { try await notifier.call(NotifierAPI.next, Empty(), session: $0) }
    }
}

/// Latencies and failures of one step, by method.
final class Recorder: Sendable {
    private struct State {
        var latencies: [String: [Duration]] = [:]
        var busy = 0
        var otherErrors: [String: Int] = [:]
        /// The first message of each kind of error, to print with its count.
        var firstMessages: [String: String] = [:]
    }

    private let state = Mutex(State())

    func record(_ method: String, _ latency: Duration) {
        state.withLock { $0.latencies[method, default: []].append(latency) }
    }

    func failed(_ method: String, _ error: ServiceError) {
        state.withLock { state in
            if error.code == .unavailable && error.message.contains("busy") {
                state.busy += 1
            } else {
                let key = "\(method): \(error.code)"
                state.otherErrors[key, default: 0] += 1
                if state.firstMessages[key] == nil { state.firstMessages[key] = error.message }
            }
        }
    }

    func result(seconds: Double, cpuSeconds: Double) -> StepResult {
        state.withLock { state in
            let methods = state.latencies.map { name, latencies in
                let sorted = latencies.map { Double($0.components.attoseconds) / 1e15 + Double($0.components.seconds) * 1000 }.sorted()
                func percentile(_ p: Double) -> Double { sorted[max(0, min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1))] }
                return StepResult.Method(name: name, count: sorted.count, p50: percentile(0.5), p99: percentile(0.99))
            }.sorted { $0.name < $1.name }
            for (key, count) in state.otherErrors.sorted(by: { $0.key < $1.key }) {
                print("errors: \(count) × \(key) (first: \(state.firstMessages[key] ?? ""))")
            }
            let calls = methods.reduce(0) { $0 + $1.count } + state.busy + state.otherErrors.values.reduce(0, +)
            return StepResult(
                methods: methods, calls: calls, busy: state.busy, otherErrors: state.otherErrors.values.reduce(0, +), seconds: seconds,
                cpuMicrosecondsPerCall: calls == 0 ? 0 : cpuSeconds * 1e6 / Double(calls))
        }
    }
}

struct StepResult: Sendable {
    struct Method: Sendable {
        let name: String
        let count: Int
        let p50: Double
        let p99: Double
    }

    let methods: [Method]
    let calls: Int
    let busy: Int
    let otherErrors: Int
    let seconds: Double
    let cpuMicrosecondsPerCall: Double

    var slowest: Method { methods.max { $0.p99 < $1.p99 } ?? Method(name: "-", count: 0, p50: 0, p99: 0) }
}
