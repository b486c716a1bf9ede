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
public func withRunningServices<T: Sendable>(
    _ hosts: [ServiceHost],
    _ body: ([ServiceHost]) async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for host in hosts {
            group.addTask { try await host.run(signals: false) }
        }
        let result: Result<T, any Error>
        do {
            result = .success(try await body(hosts))
        } catch {
            result = .failure(error)
        }
        group.cancelAll()
        // Cancellation is how an in-process service is told to stop; it is not a failure here.
        while let next = await group.nextResult() {
            if case .failure(let error) = next, !(error is CancellationError) {
                throw error
            }
        }
        return try result.get()
    }
}
