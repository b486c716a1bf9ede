import GRDB

/// The coeliac diary's tables, registered into the tracker's migrator.
enum CoeliacMigrations {
    static func register(in migrator: inout DatabaseMigrator) {}
}
