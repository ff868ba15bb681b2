/// The store's tables. FTS5 indexes title and keywords as an external-content table kept in step
/// by triggers; `unicode61 remove_diacritics 2` folds case and accents as routing does ("crème"
/// finds "Creme"), and prefix indexes keep search-as-you-type fast. The index's rowid is the row's
/// `recency`, which every save renews: FTS5 walks matches newest first, so a search can rank the
/// most recent matches without reading all of them. `id` stays the row's for its whole life.
///
/// The layout's version is SQLite's `user_version`. Files written by releases that used GRDB have
/// `user_version` 0 and GRDB's own record of what it ran, `grdb_migrations`: they are read as the
/// version that record names, and the record is kept (so an older release still opens the file).
/// A file is the store's only when its objects are exactly these (checked, never assumed from a
/// table's name or a version number): anything else is another program's, and is never written.
enum Schema {
    /// The layout this code reads and writes.
    static let version: Int64 = 2

    /// What a file at the store's path holds, as far as the store is concerned.
    enum Layout: Equatable {
        /// No objects and `user_version` 0: a new file (or an empty one), the store's to make.
        case empty
        /// Today's layout.
        case current
        /// A GRDB release's file: the first layout, with what its record says it ran.
        case grdb(ran: Set<String>)
        /// The store's objects under a newer `user_version`: a later release's file, left alone.
        case newer(Int64)
    }

    /// The migrations a GRDB release records, oldest first.
    static let grdbMigrations = ["activities-1", "activities-2-wire-payloads"]

    /// Reads what the file holds, without writing anything.
    /// - Throws: `SQLiteError.notTheStore` naming what differs, for any file that is not the
    ///   store's own; what SQLite reports for one it cannot read ("not a database").
    static func layout(of db: Connection) throws(SQLiteError) -> Layout {
        let version = try db.statement("PRAGMA user_version").value(Int64.self) ?? 0
        let objects = try db.statement("SELECT type, name, sql FROM sqlite_master").rows { row in
            Object(type: row[0], name: row[1], sql: row[2])
        }
        if objects.isEmpty {
            guard version == 0 else { throw .notTheStore("it holds no tables, yet its user_version is \(version)") }
            return .empty
        }
        let hasGRDBRecord = objects.contains(Self.grdbRecord)
        let ours = objects.filter { $0 != Self.grdbRecord && !$0.name.hasPrefix("sqlite_") }
        let expected = try Self.expected.get()
        if ours.sorted() != expected {
            let extra = ours.filter { !expected.contains($0) }.map(\.name)
            let missing = expected.filter { !ours.contains($0) }.map(\.name)
            throw .notTheStore("its tables are not the activity store's (its own: \(extra.sorted()); missing or different: \(missing.sorted()))")
        }
        switch version {
        case self.version: return .current
        case let newer where newer > self.version: return .newer(newer)
        case 0 where hasGRDBRecord:
            let ran = Set(try db.statement("SELECT identifier FROM grdb_migrations").rows { row -> String in row[0] })
            guard ran.contains(grdbMigrations[0]), ran.isSubset(of: grdbMigrations) else {
                throw .notTheStore("its record of migrations \(ran.sorted()) is not one a release of the store wrote")
            }
            return .grdb(ran: ran)
        default:
            throw .notTheStore("its user_version is \(version), which no release of the store wrote")
        }
    }

    /// Brings the file's layout to `version`, in one transaction that checks it again first;
    /// nothing when it is there already.
    /// - Throws: `SQLiteError`; `notTheStore` as `layout(of:)` does; for a layout newer than this
    ///   code's, one with `SQLITE_ERROR`'s code, which is no damage: the file is left as it is.
    static func migrate(_ db: Connection) throws(SQLiteError) {
        guard try layout(of: db) != .current else { return }
        try db.transaction { () throws(SQLiteError) in
            switch try layout(of: db) {
            case .current: return
            case .newer(let found):
                throw SQLiteError(code: 1, message: "the file's layout is version \(found), newer than this release's \(version)")
            case .empty:
                try db.execute(first)
            case .grdb(let ran):
                // Payloads became D-Bus wire bytes, which rows of the first layout (JSON) are not.
                if !ran.contains(grdbMigrations[1]) {
                    try db.execute("DELETE FROM activity")
                    try db.statement("INSERT OR IGNORE INTO grdb_migrations (identifier) VALUES (?)").bind(grdbMigrations[1]).run()
                }
            }
            try db.execute("PRAGMA user_version = \(version)")
        }
    }

    /// One entry of `sqlite_master`, its SQL text compared without case, spaces or quotes (SQLite
    /// keeps the text as it was written, and GRDB wrote it with other line breaks). FTS5's own
    /// tables are compared by name: their text is FTS5's, and may change with SQLite's version.
    struct Object: Hashable, Comparable {
        var type: String
        var name: String
        var sql: String?

        init(type: String, name: String, sql: String?) {
            (self.type, self.name) = (type, name)
            let fts5Own = type == "table" && name.hasPrefix("activity_text_")
            self.sql = fts5Own ? nil : sql.map { String($0.lowercased().unicodeScalars.filter { !$0.properties.isWhitespace && $0 != "\"" }) }
        }

        static func < (a: Object, b: Object) -> Bool { (a.type, a.name, a.sql ?? "") < (b.type, b.name, b.sql ?? "") }
    }

    /// GRDB's record of migrations, as GRDB makes it.
    static let grdbRecord = Object(type: "table", name: "grdb_migrations", sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")

    /// What `first` makes, as this SQLite records it (FTS5's own tables included), read once from a
    /// database in memory: the layout is stated once, in `first`.
    static let expected: Result<[Object], SQLiteError> = {
        do throws(SQLiteError) {
            let db = try Connection(path: ":memory:", create: true, busyTimeout: .zero)
            try db.execute(first)
            return .success(try db.statement("SELECT type, name, sql FROM sqlite_master").rows { row in
                Object(type: row[0], name: row[1], sql: row[2])
            }.filter { !$0.name.hasPrefix("sqlite_") }.sorted())
        } catch {
            return .failure(error)
        }
    }()

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
