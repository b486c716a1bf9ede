import GRDB

/// The groceries schema. Migrations are frozen once shipped: add new ones, never edit these.
enum GroceriesMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: lists, shares, items, checks, orders") { db in
            try db.execute(
                sql: """
                    -- The catalog's facts about every ingredient a list uses, refreshed on each add.
                    CREATE TABLE ingredient (
                        id TEXT PRIMARY KEY,
                        name TEXT NOT NULL,
                        unit TEXT NOT NULL,
                        grams_per_piece REAL,
                        grams_per_ml REAL,
                        price_amount REAL NOT NULL,
                        price_per TEXT NOT NULL,
                        category TEXT NOT NULL
                    );

                    -- A recipe on a user's list; the list's order is the rowid (order of first add).
                    CREATE TABLE list_recipe (
                        user TEXT NOT NULL,
                        recipe TEXT NOT NULL,
                        name TEXT NOT NULL,
                        multiplier INTEGER NOT NULL CHECK (multiplier BETWEEN 1 AND 100),
                        people INTEGER NOT NULL,
                        servings INTEGER NOT NULL,
                        added_at REAL NOT NULL,
                        UNIQUE (user, recipe)
                    );

                    -- A recipe's quantities for one multiplier, snapshot when it was first added.
                    CREATE TABLE recipe_share (
                        user TEXT NOT NULL,
                        recipe TEXT NOT NULL,
                        position INTEGER NOT NULL,
                        ingredient TEXT NOT NULL REFERENCES ingredient(id),
                        quantity REAL NOT NULL,
                        unit TEXT NOT NULL,
                        excluded INTEGER NOT NULL DEFAULT 0,
                        PRIMARY KEY (user, recipe, position),
                        FOREIGN KEY (user, recipe) REFERENCES list_recipe(user, recipe) ON DELETE CASCADE
                    ) WITHOUT ROWID;

                    -- Manual items: edible (ingredient, quantity, unit) or non-edible (text, count).
                    CREATE TABLE manual_item (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        user TEXT NOT NULL,
                        ingredient TEXT REFERENCES ingredient(id),
                        quantity REAL,
                        unit TEXT,
                        text TEXT,
                        count INTEGER,
                        added_at REAL NOT NULL,
                        CHECK ((ingredient IS NOT NULL AND quantity IS NOT NULL AND unit IS NOT NULL AND text IS NULL)
                            OR (ingredient IS NULL AND text IS NOT NULL))
                    );
                    CREATE INDEX manual_item_by_user ON manual_item(user, id);

                    CREATE TABLE checked_line (
                        user TEXT NOT NULL,
                        line TEXT NOT NULL,
                        PRIMARY KEY (user, line)
                    ) WITHOUT ROWID;

                    CREATE TABLE grocery_order (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        user TEXT NOT NULL,
                        placed_at REAL NOT NULL,
                        phone TEXT NOT NULL,
                        street TEXT NOT NULL,
                        postal_code TEXT NOT NULL,
                        city TEXT NOT NULL,
                        note TEXT,
                        total REAL NOT NULL,
                        recipes TEXT NOT NULL
                    );
                    CREATE INDEX grocery_order_by_user ON grocery_order(user, id);

                    CREATE TABLE order_line (
                        order_id INTEGER NOT NULL REFERENCES grocery_order(id) ON DELETE CASCADE,
                        position INTEGER NOT NULL,
                        ingredient TEXT,
                        name TEXT NOT NULL,
                        category TEXT NOT NULL,
                        quantity REAL,
                        unit TEXT,
                        count INTEGER,
                        price REAL,
                        checked INTEGER NOT NULL,
                        PRIMARY KEY (order_id, position)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v2: ingredients that are not bought") { db in
            // Refreshed from the catalog on the next add of a recipe using the ingredient.
            try db.execute(sql: "ALTER TABLE ingredient ADD COLUMN bought INTEGER NOT NULL DEFAULT 1")
        }
        migrator.registerMigration("v3: list versions") { db in
            // A list's version is the last value of the 'list' counter its writes drew, so a
            // version is never reused (not after an erasure either); 'facts' counts changes to the
            // ingredient facts every list shares.
            try db.execute(
                sql: """
                    CREATE TABLE list_version (
                        user TEXT PRIMARY KEY,
                        version INTEGER NOT NULL
                    ) WITHOUT ROWID;

                    CREATE TABLE list_counter (
                        name TEXT PRIMARY KEY,
                        value INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    INSERT INTO list_counter (name, value) VALUES ('list', 0), ('facts', 0);
                    """)
        }
        return migrator
    }
}
