import GRDB

/// The tracker's schema. Migrations are frozen once shipped: add new ones, never edit these.
enum TrackerMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: diary, goals, drinks, saved foods, products") { db in
            try db.execute(
                sql: """
                    CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
                    INSERT INTO meta (key, value) VALUES ('productSeedVersion', 0);

                    CREATE TABLE diary_entry (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        user TEXT NOT NULL,
                        date TEXT NOT NULL,
                        meal TEXT NOT NULL,
                        food TEXT NOT NULL,
                        grams REAL NOT NULL,
                        kcal REAL NOT NULL,
                        carbohydrates REAL NOT NULL,
                        protein REAL NOT NULL,
                        fat REAL NOT NULL,
                        source_kind TEXT NOT NULL,
                        source_ref TEXT,
                        logged_at REAL NOT NULL
                    );
                    CREATE INDEX diary_entry_user_date ON diary_entry(user, date);

                    -- One row per change: the goals in force on a day are the latest row with from_date <= day.
                    CREATE TABLE goal (
                        user TEXT NOT NULL,
                        from_date TEXT NOT NULL,
                        kcal REAL NOT NULL,
                        carbohydrates REAL NOT NULL,
                        protein REAL NOT NULL,
                        fat REAL NOT NULL,
                        PRIMARY KEY (user, from_date)
                    ) WITHOUT ROWID;

                    CREATE TABLE drinks (
                        user TEXT NOT NULL,
                        date TEXT NOT NULL,
                        water INTEGER NOT NULL DEFAULT 0 CHECK (water >= 0),
                        coffee INTEGER NOT NULL DEFAULT 0 CHECK (coffee >= 0),
                        PRIMARY KEY (user, date)
                    ) WITHOUT ROWID;

                    CREATE TABLE saved_food (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        user TEXT NOT NULL,
                        name TEXT NOT NULL,
                        meals TEXT NOT NULL,
                        grams REAL NOT NULL,
                        kcal REAL NOT NULL,
                        carbohydrates REAL NOT NULL,
                        protein REAL NOT NULL,
                        fat REAL NOT NULL
                    );
                    CREATE INDEX saved_food_user ON saved_food(user);

                    CREATE TABLE product (
                        code TEXT PRIMARY KEY,
                        name TEXT NOT NULL,
                        brand TEXT,
                        quantity TEXT,
                        kcal REAL NOT NULL,
                        carbohydrates REAL NOT NULL,
                        protein REAL NOT NULL,
                        fat REAL NOT NULL,
                        allergens TEXT NOT NULL,
                        usda_ndb TEXT,
                        source TEXT NOT NULL
                    ) WITHOUT ROWID;
                    """)
        }
        // The coeliac diary's tables come after ours, in their own named migrations.
        CoeliacMigrations.register(in: &migrator)
        migrator.registerMigration("v2: products users add, each their own") { db in
            // Shared products (shipped and imported by operators) stay in `product`; what a user
            // adds lives here under their id, so it never replaces anyone else's.
            try db.execute(
                sql: """
                    CREATE TABLE user_product (
                        owner TEXT NOT NULL,
                        code TEXT NOT NULL,
                        name TEXT NOT NULL,
                        brand TEXT,
                        quantity TEXT,
                        kcal REAL NOT NULL,
                        carbohydrates REAL NOT NULL,
                        protein REAL NOT NULL,
                        fat REAL NOT NULL,
                        allergens TEXT NOT NULL,
                        usda_ndb TEXT,
                        PRIMARY KEY (owner, code)
                    ) WITHOUT ROWID;
                    """)
        }
        return migrator
    }
}
