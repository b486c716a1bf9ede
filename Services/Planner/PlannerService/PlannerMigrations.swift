import GRDB

/// The planner's schema. Migrations are frozen once shipped: add new ones, never edit these.
enum PlannerMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: profiles, selection, slots") { db in
            try db.execute(
                sql: """
                    CREATE TABLE profile (
                        user TEXT PRIMARY KEY,
                        people INTEGER NOT NULL,
                        patience INTEGER NOT NULL,
                        diets TEXT NOT NULL,
                        allergens TEXT NOT NULL,
                        dislikes TEXT NOT NULL,
                        equipment TEXT NOT NULL,
                        filter_diets INTEGER NOT NULL,
                        filter_equipment INTEGER NOT NULL,
                        filter_patience INTEGER NOT NULL,
                        time_zone TEXT NOT NULL,
                        reminders_enabled INTEGER NOT NULL,
                        reminder_hour INTEGER NOT NULL,
                        updated_at REAL NOT NULL
                    );

                    -- The carousel: recipes a user added, in the order added (rowid).
                    CREATE TABLE selection (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        user TEXT NOT NULL,
                        recipe TEXT NOT NULL,
                        name TEXT NOT NULL,
                        added_at REAL NOT NULL,
                        UNIQUE (user, recipe)
                    );

                    -- Filled slots only; an empty slot has no row. Dates are local "YYYY-MM-DD", which
                    -- sort as text. The recipe name is kept so past days read without the catalog.
                    CREATE TABLE slot (
                        user TEXT NOT NULL,
                        date TEXT NOT NULL,
                        slot INTEGER NOT NULL CHECK (slot IN (1, 2)),
                        recipe TEXT NOT NULL,
                        recipe_name TEXT NOT NULL,
                        cooked_at REAL,
                        diary_entry INTEGER,
                        PRIMARY KEY (user, date, slot)
                    ) WITHOUT ROWID;
                    CREATE INDEX slot_recipe ON slot(user, recipe, date);
                    """)
        }
        migrator.registerMigration("v2: accounts, sessions, revocations, erasures") { db in
            try db.execute(
                sql: """
                    CREATE TABLE account (
                        user TEXT PRIMARY KEY,
                        email TEXT NOT NULL UNIQUE,
                        name TEXT NOT NULL,
                        password_hash TEXT NOT NULL,
                        role TEXT NOT NULL,
                        created_at REAL NOT NULL
                    );
                    CREATE TABLE session (
                        id TEXT PRIMARY KEY,
                        user TEXT NOT NULL,
                        device TEXT NOT NULL,
                        created_at REAL NOT NULL,
                        expires_at REAL NOT NULL
                    );
                    CREATE INDEX session_by_user ON session(user);
                    -- Ended sessions whose tokens have not expired: what every service refuses.
                    -- Session ids only, so nothing here names a deleted user.
                    CREATE TABLE revocation (
                        sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                        session TEXT NOT NULL,
                        expires_at INTEGER NOT NULL
                    );
                    -- Deleted accounts whose rows a service has not confirmed erasing yet. The column
                    -- is not named user, so erasing the planner's own rows keeps it until then.
                    CREATE TABLE erasure (
                        deleted_user TEXT NOT NULL,
                        service TEXT NOT NULL,
                        requested_at REAL NOT NULL,
                        PRIMARY KEY (deleted_user, service)
                    );
                    """)
        }
        migrator.registerMigration("v3: allergen and dislike filter switches") { db in
            try db.execute(
                sql: """
                    ALTER TABLE profile ADD COLUMN filter_allergens INTEGER NOT NULL DEFAULT 1;
                    ALTER TABLE profile ADD COLUMN filter_dislikes INTEGER NOT NULL DEFAULT 1;
                    """)
        }
        return migrator
    }
}
