import GRDB

/// The catalog's schema. Migrations are frozen once shipped: add new ones, never edit these.
enum CatalogMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: ingredients, recipes, favorites, search") { db in
            try db.execute(
                sql: """
                    CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
                    INSERT INTO meta (key, value) VALUES ('version', 0), ('seedVersion', 0);

                    CREATE TABLE ingredient (
                        id TEXT PRIMARY KEY,
                        name TEXT NOT NULL,
                        folded TEXT NOT NULL,
                        usda_ndb TEXT,
                        unit TEXT NOT NULL,
                        grams_per_piece REAL,
                        grams_per_ml REAL,
                        price_amount REAL NOT NULL,
                        price_per TEXT NOT NULL,
                        category TEXT NOT NULL,
                        kcal REAL NOT NULL,
                        carbohydrates REAL NOT NULL,
                        protein REAL NOT NULL,
                        fat REAL NOT NULL,
                        fibre REAL NOT NULL,
                        sugar REAL NOT NULL,
                        salt REAL NOT NULL,
                        contains INTEGER NOT NULL,
                        allergens INTEGER NOT NULL,
                        source TEXT NOT NULL,
                        version INTEGER NOT NULL
                    );
                    CREATE INDEX ingredient_version ON ingredient(version);

                    CREATE TABLE recipe (
                        key TEXT PRIMARY KEY,
                        id TEXT NOT NULL,
                        origin TEXT NOT NULL,
                        owner TEXT,
                        based_on TEXT,
                        name TEXT NOT NULL,
                        summary TEXT NOT NULL,
                        servings INTEGER NOT NULL,
                        prep_minutes INTEGER NOT NULL,
                        cook_minutes INTEGER NOT NULL,
                        energy_level INTEGER NOT NULL,
                        equipment INTEGER NOT NULL,
                        dish_types INTEGER NOT NULL,
                        link TEXT,
                        image TEXT,
                        steps TEXT NOT NULL,
                        diets INTEGER NOT NULL,
                        allergens INTEGER NOT NULL,
                        contains INTEGER NOT NULL,
                        cost REAL NOT NULL,
                        cost_per_serving REAL NOT NULL,
                        kcal_per_serving REAL NOT NULL,
                        shared INTEGER NOT NULL DEFAULT 0,
                        deleted INTEGER NOT NULL DEFAULT 0,
                        version INTEGER NOT NULL,
                        created_at REAL NOT NULL
                    );
                    CREATE INDEX recipe_by_id ON recipe(id);
                    CREATE INDEX recipe_by_owner ON recipe(owner, origin);
                    CREATE INDEX recipe_by_version ON recipe(version);
                    CREATE INDEX recipe_by_name ON recipe(deleted, name);
                    CREATE INDEX recipe_shared ON recipe(shared) WHERE shared = 1;

                    CREATE TABLE recipe_ingredient (
                        recipe_key TEXT NOT NULL REFERENCES recipe(key) ON DELETE CASCADE,
                        position INTEGER NOT NULL,
                        ingredient_id TEXT NOT NULL REFERENCES ingredient(id),
                        quantity REAL NOT NULL,
                        unit TEXT NOT NULL,
                        PRIMARY KEY (recipe_key, position)
                    ) WITHOUT ROWID;
                    CREATE INDEX recipe_ingredient_by_ingredient ON recipe_ingredient(ingredient_id, recipe_key);

                    -- rowid of each row = rowid of its recipe
                    CREATE VIRTUAL TABLE recipe_fts USING fts5(name, summary, tokenize = "unicode61 remove_diacritics 2");

                    CREATE TABLE favorite (
                        user TEXT NOT NULL,
                        recipe_id TEXT NOT NULL,
                        created_at REAL NOT NULL,
                        PRIMARY KEY (user, recipe_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX favorite_by_recipe ON favorite(recipe_id);
                    """)
        }
        migrator.registerMigration("v2: covering index for filtered search") { db in
            // Every column a filter tests, in name order: a filtered page or count walks this
            // index alone instead of seeking each (wide) recipe row.
            try db.execute(
                sql: """
                    CREATE INDEX recipe_search ON recipe(deleted, name, origin, owner, diets, allergens, equipment, energy_level, dish_types, key, id)
                    """)
        }
        migrator.registerMigration("v3: personal versions keyed without collisions") { db in
            // "<id>@<user>" let user "example.com" reach "soup@alice" = alice@example.com's soup.
            // Now "personal:<length of user>:<user>:<id>" (see RecipeKey). Foreign keys are
            // checked once the migration is done.
            let newKey = "'personal:' || length(owner) || ':' || owner || ':' || id"
            try db.execute(
                sql: """
                    UPDATE recipe_ingredient SET recipe_key = (
                        SELECT \(newKey) FROM recipe WHERE recipe.key = recipe_ingredient.recipe_key
                    ) WHERE recipe_key IN (SELECT key FROM recipe WHERE origin = 'personal');
                    UPDATE recipe SET key = \(newKey) WHERE origin = 'personal';
                    """)
        }
        migrator.registerMigration("v4: ingredient uses, synonyms, tap water, ingredients in recipe search") { db in
            // The search table gains a column with the names and synonyms of each recipe's
            // ingredients, weighted half as much as the name or summary, and English stemming
            // (porter), so "courgettes" finds "courgette". FTS5 cannot add a column, so it is
            // rebuilt; the seed load that follows a new release fills in the synonyms (and
            // re-indexes the recipes whose ingredients gained some).
            try db.execute(
                sql: """
                    ALTER TABLE recipe_ingredient ADD COLUMN purpose TEXT NOT NULL DEFAULT 'eaten';
                    ALTER TABLE recipe_ingredient ADD COLUMN eaten_share REAL;
                    ALTER TABLE ingredient ADD COLUMN synonyms TEXT NOT NULL DEFAULT '[]';
                    ALTER TABLE ingredient ADD COLUMN folded_synonyms TEXT NOT NULL DEFAULT '';
                    ALTER TABLE ingredient ADD COLUMN bought INTEGER NOT NULL DEFAULT 1;
                    DROP TABLE recipe_fts;
                    CREATE VIRTUAL TABLE recipe_fts USING fts5(name, summary, ingredients, tokenize = "porter unicode61 remove_diacritics 2");
                    INSERT INTO recipe_fts (recipe_fts, rank) VALUES ('rank', 'bm25(1.0, 1.0, 0.5)');
                    INSERT INTO recipe_fts (rowid, name, summary, ingredients)
                        SELECT r.rowid, r.name, r.summary, coalesce((
                            SELECT group_concat(i.name, ' ') FROM recipe_ingredient ri JOIN ingredient i ON i.id = ri.ingredient_id
                            WHERE ri.recipe_key = r.key
                        ), '')
                        FROM recipe r WHERE r.deleted = 0;
                    """)
        }
        migrator.registerMigration("v5: the covering index in the order names are listed") { db in
            // Names are listed regardless of case (`ORDER BY name COLLATE NOCASE, name`), which
            // the binary-ordered index of v2 cannot serve: every filtered page sorted all its
            // matches (32 ms for 20 000 recipes). This index is walked in that order and stops at
            // the page.
            try db.execute(
                sql: """
                    DROP INDEX recipe_search;
                    CREATE INDEX recipe_search ON recipe(
                        deleted, name COLLATE NOCASE, name, origin, owner, diets, allergens, equipment, energy_level, dish_types, key, id
                    )
                    """)
        }
        migrator.registerMigration("v6: prefix indexes for short search words") { db in
            // Every search word is a prefix query ("pea"*). A short one matches many indexed
            // words (pea, peas, peanut, pear), and FTS5 merged all their lists before counting
            // the first thousand matches: 2-3 ms at 100 000 recipes. Indexes of every word's
            // first 2, 3 and 4 characters answer those from one list (about a quarter more
            // index). FTS5 cannot add them to a table, so the entries are copied into a new one.
            try db.execute(
                sql: """
                    ALTER TABLE recipe_fts RENAME TO recipe_fts_v5;
                    CREATE VIRTUAL TABLE recipe_fts USING fts5(
                        name, summary, ingredients, tokenize = "porter unicode61 remove_diacritics 2", prefix = '2 3 4'
                    );
                    INSERT INTO recipe_fts (recipe_fts, rank) VALUES ('rank', 'bm25(1.0, 1.0, 0.5)');
                    INSERT INTO recipe_fts (rowid, name, summary, ingredients) SELECT rowid, name, summary, ingredients FROM recipe_fts_v5;
                    DROP TABLE recipe_fts_v5;
                    """)
        }
        return migrator
    }
}
