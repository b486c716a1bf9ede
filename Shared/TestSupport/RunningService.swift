public import SousRuntime

/// Runs a service in-process for the duration of `body`, then shuts it down gracefully and waits
/// until it has stopped (in-flight requests answered, sockets closed).
public func withRunningService<T: Sendable>(
    _ host: ServiceHost,
    _ body: (ServiceHost) async throws -> T
) async throws -> T {
    try await withRunningServices([host]) { _ in try await body(host) }
}

/// Runs several services in-process (e.g. the catalog and the planner a groceries test needs).
/// Teardown is bounded: services that have not stopped `stopWithin` after the body ended fail
/// the test (a hang in shutdown is a bug, not something to wait out).
public func withRunningServices<T: Sendable>(
    _ hosts: [ServiceHost],
    stopWithin limit: Duration = .seconds(60),
    _ body: ([ServiceHost]) async throws -> T
) async throws -> T {
    let running = Task {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for host in hosts {
                group.addTask { try await host.run(signals: false) }
            }
            // Cancellation is how an in-process service is told to stop; it is not a failure here.
            while let next = await group.nextResult() {
                if case .failure(let error) = next, !(error is CancellationError) {
                    throw error
                }
            }
        }
    }
    let result: Result<T, any Error>
    do {
        result = .success(try await body(hosts))
    } catch {
        result = .failure(error)
    }
    running.cancel()
    let names = hosts.map(\.name).joined(separator: ", ")
    try await withTimeout(limit, waitingFor: "\(names) to stop") { try await running.value }
    return try result.get()
}
