public import SousWire

/// The service error `call` throws, nil when it succeeds; any other error stands in as an
/// `internal` one, so a test's expectation on the code fails and shows it.
public func serviceError(_ call: () async throws -> some Any) async -> ServiceError? {
    do {
        _ = try await call()
        return nil
    } catch let error as ServiceError {
        return error
    } catch {
        return ServiceError.internal("\(error)")
    }
}
