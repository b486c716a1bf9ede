import GRDB

/// The coeliac diary's tables, registered into the tracker's migrator. Frozen once shipped: add
/// new named migrations, never edit these. Tables are prefixed `coeliac_` so they cannot clash
/// with the macro diary's.
enum CoeliacMigrations {
    static func register(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("coeliac v1: journal, photos, gluten tests, badges") { db in
            try db.execute(
                sql: """
                    CREATE TABLE coeliac_journal_entry (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        user TEXT NOT NULL,
                        date TEXT NOT NULL,            -- YYYY-MM-DD in the user's time zone
                        time TEXT NOT NULL,            -- HH:MM on the user's wall clock
                        title TEXT NOT NULL,
                        description TEXT,
                        photo_bytes INTEGER NOT NULL DEFAULT 0,
                        created_at REAL NOT NULL,      -- Unix seconds
                        updated_at REAL NOT NULL
                    );
                    CREATE INDEX coeliac_journal_entry_by_day ON coeliac_journal_entry(user, date, time, id);

                    -- Photos apart from the entries, so listing a month never reads megabytes of images.
                    CREATE TABLE coeliac_journal_photo (
                        entry_id INTEGER PRIMARY KEY REFERENCES coeliac_journal_entry(id) ON DELETE CASCADE,
                        bytes BLOB NOT NULL
                    );

                    CREATE TABLE coeliac_gluten_day (
                        user TEXT NOT NULL,
                        date TEXT NOT NULL,
                        expects_gluten INTEGER,        -- 0/1, NULL without a prediction
                        predicted_at REAL,
                        positive INTEGER,              -- 0/1, NULL until the result is recorded
                        result_at REAL,
                        PRIMARY KEY (user, date)
                    ) WITHOUT ROWID;

                    -- Badges are kept once earned, even if a back-dated result later changes the history.
                    CREATE TABLE coeliac_gluten_badge (
                        user TEXT NOT NULL,
                        streak INTEGER NOT NULL,
                        reached_on TEXT NOT NULL,
                        earned_at REAL NOT NULL,
                        PRIMARY KEY (user, streak)
                    ) WITHOUT ROWID;
                    """)
        }
    }
}
