/// The store's tables. FTS5 indexes title and keywords as an external-content table kept in step
/// by triggers; `unicode61 remove_diacritics 2` folds case and accents as routing does ("crème"
/// finds "Creme"), and prefix indexes keep search-as-you-type fast. The index's rowid is the row's
/// `recency`, which every save renews: FTS5 walks matches newest first, so a search can rank the
/// most recent matches without reading all of them. `id` stays the row's for its whole life.
///
/// The layout's version is SQLite's `user_version`. Files written by releases that used GRDB have
/// `user_version` 0 and GRDB's own record of what it ran, `grdb_migrations`: they are read as the
/// version that record names, and the record is kept (so an older release still opens the file).
enum Schema {
    /// The layout this code reads and writes.
    static let version: Int64 = 2

    /// Brings the file's layout to `version`, in one transaction; nothing when it is there already.
    /// - Throws: `SQLiteError`; for a layout newer than this code's, one with `SQLITE_ERROR`'s code,
    ///   which is no damage: the file is left as it is.
    static func migrate(_ db: Connection) throws(SQLiteError) {
        guard try db.statement("PRAGMA user_version").value(Int64.self) != version else { return }
        try db.transaction { () throws(SQLiteError) in
            let found = try onDisk(db)
            if found > version {
                throw SQLiteError(code: 1, message: "the file's layout is version \(found), newer than this release's \(version)")
            }
            if found < 1 { try db.execute(first) }
            // Payloads became D-Bus wire bytes, which rows of the first layout (JSON) are not.
            if found < 2 {
                try db.execute("DELETE FROM activity")
                try recordForGRDB("activities-2-wire-payloads", db)
            }
            try db.execute("PRAGMA user_version = \(version)")
        }
    }

    /// The layout on disk: `user_version`, else what GRDB's record says it ran, else none (0).
    private static func onDisk(_ db: Connection) throws(SQLiteError) -> Int64 {
        let version = try db.statement("PRAGMA user_version").value(Int64.self) ?? 0
        guard version == 0, try hasTable("grdb_migrations", db) else { return version }
        let ran = Set(try db.statement("SELECT identifier FROM grdb_migrations").rows { row -> String in row[0] })
        return ran.contains("activities-2-wire-payloads") ? 2 : ran.contains("activities-1") ? 1 : 0
    }

    /// Keeps GRDB's record in step where the file has one, so that an older release finds nothing to redo.
    private static func recordForGRDB(_ identifier: String, _ db: Connection) throws(SQLiteError) {
        guard try hasTable("grdb_migrations", db) else { return }
        try db.statement("INSERT OR IGNORE INTO grdb_migrations (identifier) VALUES (?)").bind(identifier).run()
    }

    private static func hasTable(_ name: String, _ db: Connection) throws(SQLiteError) -> Bool {
        try db.statement("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").bind(name).value(Int64.self) != nil
    }

    /// The first layout, as GRDB's migration "activities-1" made it.
    static let first = """
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
        """
}
