public import SousRuntime

extension DatabaseLocation {
    /// Where a test keeps `service`'s data: the test PostgreSQL server when
    /// `SOUS_TEST_DATABASE_URL` is set (a schema of its own, the same one again for the same
    /// `dataDirectory`), else SQLite in `dataDirectory`, or in memory without one. Tests open
    /// stores here so that the whole suite runs on both engines.
    public static func testing(_ service: SousService, dataDirectory: String? = nil) -> DatabaseLocation {
        ServiceConfiguration.inProcess(service, dataDirectory: dataDirectory).database
    }
}
