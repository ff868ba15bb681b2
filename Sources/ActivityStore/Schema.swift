import GRDB

/// The store's tables. FTS5 indexes title and keywords as an external-content table kept in step
/// by triggers; `unicode61 remove_diacritics 2` folds case and accents as routing does ("crème"
/// finds "Creme"), and prefix indexes keep search-as-you-type fast. The index's rowid is the row's
/// `recency`, which every save renews: FTS5 walks matches newest first, so a search can rank the
/// most recent matches without reading all of them. `id` stays the row's for its whole life.
enum Schema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("activities-1") { db in
            try db.execute(sql: """
                CREATE TABLE activity (
                  id INTEGER PRIMARY KEY,
                  app_id TEXT NOT NULL,
                  identity TEXT NOT NULL,
                  activity_type TEXT NOT NULL,
                  title TEXT NOT NULL,
                  keywords TEXT NOT NULL,
                  persistent_identifier TEXT,
                  expires INTEGER,
                  last_used INTEGER NOT NULL,
                  recency INTEGER NOT NULL,
                  payload BLOB NOT NULL,
                  UNIQUE (app_id, identity));
                CREATE INDEX activity_by_app ON activity (app_id, recency);
                CREATE UNIQUE INDEX activity_by_recency ON activity (recency, expires);
                CREATE INDEX activity_by_persistent_identifier ON activity (persistent_identifier)
                  WHERE persistent_identifier IS NOT NULL;
                CREATE INDEX activity_by_expiry ON activity (expires) WHERE expires IS NOT NULL;
                CREATE VIRTUAL TABLE activity_text USING fts5 (
                  title, keywords, content = 'activity', content_rowid = 'recency',
                  tokenize = 'unicode61 remove_diacritics 2', prefix = '1 2 3');
                CREATE TRIGGER activity_inserted AFTER INSERT ON activity BEGIN
                  INSERT INTO activity_text (rowid, title, keywords) VALUES (new.recency, new.title, new.keywords);
                END;
                CREATE TRIGGER activity_deleted AFTER DELETE ON activity BEGIN
                  INSERT INTO activity_text (activity_text, rowid, title, keywords)
                    VALUES ('delete', old.recency, old.title, old.keywords);
                END;
                CREATE TRIGGER activity_saved_again AFTER UPDATE ON activity BEGIN
                  INSERT INTO activity_text (activity_text, rowid, title, keywords)
                    VALUES ('delete', old.recency, old.title, old.keywords);
                  INSERT INTO activity_text (rowid, title, keywords) VALUES (new.recency, new.title, new.keywords);
                END;
                """)
        }
        // Payloads became D-Bus wire bytes, which rows of the first layout (JSON) are not.
        migrator.registerMigration("activities-2-wire-payloads") { db in
            try db.execute(sql: "DELETE FROM activity")
        }
        return migrator
    }
}
