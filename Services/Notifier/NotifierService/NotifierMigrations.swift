import GRDB
import SousRuntime

/// The notifier's schema on SQLite and on PostgreSQL. Migrations are frozen once shipped: add
/// new ones, never edit these.
enum NotifierMigrations {
    static var schema: DatabaseSchema { DatabaseSchema(sqlite: migrator, postgres: postgres) }

    /// The same tables as SQLite's, as they stand after all of its migrations.
    static let postgres = [
        PostgresMigration(
            "v1: profiles, schedule by due time, delivery log",
            [
                """
                CREATE TABLE profile (
                    "user" TEXT PRIMARY KEY,
                    time_zone TEXT NOT NULL,
                    reminder_hour BIGINT NOT NULL,
                    enabled BIGINT NOT NULL,
                    fetched_at DOUBLE PRECISION NOT NULL
                )
                """,
                """
                CREATE TABLE schedule (
                    "user" TEXT PRIMARY KEY,
                    local_date TEXT NOT NULL,
                    due_at DOUBLE PRECISION NOT NULL
                )
                """,
                "CREATE INDEX schedule_due ON schedule (due_at, local_date)",
                """
                CREATE TABLE delivery (
                    "user" TEXT NOT NULL,
                    local_date TEXT NOT NULL,
                    due_at DOUBLE PRECISION NOT NULL,
                    outcome TEXT NOT NULL CHECK (outcome IN ('sent', 'skipped', 'missed')),
                    recorded_at DOUBLE PRECISION NOT NULL,
                    reason TEXT,
                    kcal DOUBLE PRECISION,
                    kcal_goal DOUBLE PRECISION,
                    PRIMARY KEY ("user", local_date)
                )
                """,
            ]),
        PostgresMigration(
            "v2: the schedule walked by wake time (claims across replicas)",
            [
                "ALTER TABLE schedule ADD COLUMN wake_at DOUBLE PRECISION",
                "UPDATE schedule SET wake_at = due_at",
                "ALTER TABLE schedule ALTER COLUMN wake_at SET NOT NULL",
                "DROP INDEX schedule_due",
                "CREATE INDEX schedule_wake ON schedule (wake_at)",
            ]),
        PostgresMigration(
            "v3: the outbox of sent reminders not yet published",
            [
                """
                CREATE TABLE outbox (
                    "user" TEXT NOT NULL,
                    local_date TEXT NOT NULL,
                    PRIMARY KEY ("user", local_date)
                )
                """
            ]),
        PostgresMigration("v4: reminder channels, quiet hours, the VAPID key and the delivery outbox", NotifierMigrations.channelTables),
    ]

    /// Where a user's reminders go, their quiet hours, the server's VAPID key (made on first
    /// start), and the runtime's outbox the deliveries leave by: the same on both engines.
    static let channelTables =
        [
            """
            CREATE TABLE channel (
                id TEXT PRIMARY KEY,
                "user" TEXT NOT NULL,
                kind TEXT NOT NULL,
                address TEXT NOT NULL,
                label TEXT,
                push_p256dh TEXT,
                push_auth TEXT,
                secret TEXT,
                created_at DOUBLE PRECISION NOT NULL,
                disabled_at DOUBLE PRECISION,
                disabled_reason TEXT
            )
            """,
            #"CREATE INDEX channel_by_user ON channel ("user", created_at)"#,
            """
            CREATE TABLE quiet_hours (
                "user" TEXT PRIMARY KEY,
                from_hour BIGINT NOT NULL,
                to_hour BIGINT NOT NULL
            )
            """,
            """
            CREATE TABLE vapid_key (
                id BIGINT PRIMARY KEY CHECK (id = 1),
                private_key TEXT NOT NULL,
                created_at DOUBLE PRECISION NOT NULL
            )
            """,
        ] + Outbox.tables

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: profiles, schedule by due time, delivery log") { db in
            try db.execute(
                sql: """
                    -- The last profile the planner gave (or announced) per user: used when the planner
                    -- cannot be reached, and refreshed on planner.profile.changed.
                    CREATE TABLE profile (
                        user TEXT PRIMARY KEY,
                        time_zone TEXT NOT NULL,
                        reminder_hour INTEGER NOT NULL,
                        enabled INTEGER NOT NULL,
                        fetched_at REAL NOT NULL
                    ) WITHOUT ROWID;

                    -- At most one pending reminder per user; due_at is Unix seconds.
                    CREATE TABLE schedule (
                        user TEXT PRIMARY KEY,
                        local_date TEXT NOT NULL,
                        due_at REAL NOT NULL
                    ) WITHOUT ROWID;
                    -- The scheduler walks this index in due order (covering: user is the row key).
                    CREATE INDEX schedule_due ON schedule(due_at, local_date);

                    -- One row per user and local date, written before a reminder is published: the
                    -- primary key is what makes a second send for the same user-day impossible.
                    CREATE TABLE delivery (
                        user TEXT NOT NULL,
                        local_date TEXT NOT NULL,
                        due_at REAL NOT NULL,
                        outcome TEXT NOT NULL CHECK (outcome IN ('sent', 'skipped', 'missed')),
                        recorded_at REAL NOT NULL,
                        reason TEXT,
                        kcal REAL,
                        kcal_goal REAL,
                        PRIMARY KEY (user, local_date)
                    ) WITHOUT ROWID;
                    """)
        }
        // wake_at is when the scheduler next looks at a reminder: its due time, or, while a
        // replica handles it, the end of that replica's claim (PostgreSQL; on SQLite one process
        // handles every reminder and wake_at stays the due time).
        migrator.registerMigration("v2: the schedule walked by wake time (claims across replicas)") { db in
            try db.execute(
                sql: """
                    ALTER TABLE schedule ADD COLUMN wake_at REAL NOT NULL DEFAULT 0;
                    UPDATE schedule SET wake_at = due_at;
                    DROP INDEX schedule_due;
                    CREATE INDEX schedule_wake ON schedule(wake_at, local_date, due_at);
                    """)
        }
        // A sent reminder is written here with its delivery row, in one transaction, and taken
        // out once published: a notifier killed in between publishes it when it starts again.
        migrator.registerMigration("v3: the outbox of sent reminders not yet published") { db in
            try db.execute(
                sql: """
                    CREATE TABLE outbox (
                        user TEXT NOT NULL,
                        local_date TEXT NOT NULL,
                        PRIMARY KEY (user, local_date)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v4: reminder channels, quiet hours, the VAPID key and the delivery outbox") { db in
            for statement in channelTables { try db.execute(sql: statement) }
        }
        return migrator
    }
}
