import SousRuntime

/// The coeliac diary's methods, served by the tracker.
struct CoeliacHandlers: Sendable {
    let host: ServiceHost
    let database: SousDatabase

    func register() {}
}
