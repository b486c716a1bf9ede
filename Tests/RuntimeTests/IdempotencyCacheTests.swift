import SousRuntime
import SousWire
import Synchronization
import Testing

struct IdempotencyCacheTests {
    @Test func concurrentAttemptsWithOneKeyRunOnce() async {
        let cache = IdempotencyCache()
        let runs = Counter()
        let outcomes = await withTaskGroup(of: IdempotencyCache.Outcome.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    await cache.perform(user: "ada", key: "k1", method: "notes.add") {
                        let run = runs.value.add(1, ordering: .relaxed).newValue
                        await Task.yield()
                        return .success([UInt8(run)])
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(runs.value.load(ordering: .relaxed) == 1)
        #expect(outcomes.allSatisfy { (try? $0.get()) == [1] })
    }

    @Test func keysAreScopedPerUser() async {
        let cache = IdempotencyCache()
        let a = await cache.perform(user: "ada", key: "k", method: "m") { .success([1]) }
        let b = await cache.perform(user: "bob", key: "k", method: "m") { .success([2]) }
        #expect((try? a.get()) == [1] && (try? b.get()) == [2])
    }

    @Test func failuresAreNotRemembered() async {
        let cache = IdempotencyCache()
        let first = await cache.perform(user: "ada", key: "k", method: "m") { .failure(.unavailable("down")) }
        #expect((try? first.get()) == nil)
        let second = await cache.perform(user: "ada", key: "k", method: "m") { .success([7]) }
        #expect((try? second.get()) == [7])
        #expect(cache.count == 1)
    }

    @Test func reusingAKeyForAnotherMethodIsAConflict() async {
        let cache = IdempotencyCache()
        _ = await cache.perform(user: "ada", key: "k", method: "recipes.create") { .success([1]) }
        let other = await cache.perform(user: "ada", key: "k", method: "recipes.delete") { .success([2]) }
        guard case .failure(let error) = other else { Issue.record("expected a conflict"); return }
        #expect(error.code == .conflict && error.field == "header.idempotencyKey")
    }

    @Test func capacityEvictsTheOldest() async {
        let cache = IdempotencyCache(capacity: 2)
        for index in 0..<3 {
            _ = await cache.perform(user: "ada", key: "k\(index)", method: "m") { .success([UInt8(index)]) }
        }
        #expect(cache.count == 2)
        let replayed = await cache.perform(user: "ada", key: "k0", method: "m") { .success([99]) }
        #expect((try? replayed.get()) == [99], "k0 was evicted, so the write runs again")
    }
}

final class Counter: Sendable {
    let value = Atomic<Int>(0)
}
