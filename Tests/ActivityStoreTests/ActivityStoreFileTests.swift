@testable import ActivityStore
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

/// The store beside what else touches its file: another process's lock, a file an earlier release wrote.
@Suite("the activity store's file")
struct ActivityStoreFileTests {
    typealias Place = ActivityStoreTests.Place

    @Test("a file another process holds locked is never set aside: searches still read it, a save fails with the lock named, and the store writes again once the lock is gone")
    func lockedByAnotherProcess() async throws {
        let place = try Place()
        let kept = try await place.open().save(ActivityStoreTests.activity("org.example.A", "Kept ice cream", id: "k"))
        // Python's sqlite3 module, as any other program would: the write lock held until it is killed.
        let holder = try await ChildProcess.start(
            "/usr/bin/python3",
            ["-c", "import signal, sqlite3, sys\nc = sqlite3.connect(sys.argv[1], isolation_level=None)\nc.execute('BEGIN EXCLUSIVE')\nprint('locked', flush=True)\nsignal.pause()", place.path],
            environment: [:])
        #expect(try await holder.nextLine("the other process holds the lock") == "locked")

        let store = try place.open(.init(busyTimeout: .milliseconds(50)))
        #expect(place.logged.withLock { $0 }.contains { $0.contains("is locked by another process") })
        #expect(try await store.search(["ice"], limit: 5).map(\.id) == [kept])
        await #expect {
            try await store.save(ActivityStoreTests.activity("org.example.A", "While locked", id: "w"))
        } throws: { error in
            guard case .locked(let path, let sqlite) = error as? StoreError else { return false }
            return path == place.path && sqlite.isBusy
        }
        // Opened at first use, the store finds the lock then: each use fails with it, said once.
        let later = try place.open(.init(busyTimeout: .milliseconds(50)), opening: .onFirstUse)
        for title in ["Later while locked", "Again while locked"] {
            await #expect {
                try await later.save(ActivityStoreTests.activity("org.example.A", title, id: "l"))
            } throws: { error in
                guard case .locked(let path, let sqlite) = error as? StoreError else { return false }
                return path == place.path && sqlite.isBusy
            }
        }
        #expect(place.logged.withLock { $0 }.filter { $0.contains("is locked by another process") }.count == 2)
        holder.kill()
        _ = try await withDeadline("the lock's holder exits") { try await holder.status() }

        try await store.save(ActivityStoreTests.activity("org.example.A", "After the lock", id: "a"))
        #expect(try await store.list(appID: nil).map(\.title) == ["After the lock", "Kept ice cream"])
        let directory = (place.path as NSString).deletingLastPathComponent
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains("damaged") }.isEmpty)
        #expect(!place.logged.withLock { $0 }.contains { $0.contains("moved it to") })
    }

    @Test("the saves a running commit took count towards the bound: while they are not on disk, a save beyond it is told to wait")
    func committingSavesCount() async throws {
        let place = try Place()
        let store = try place.open(.init(queuedSaves: 3, commitDelay: .seconds(3600)))
        let (started, taken) = AsyncStream<Void>.makeStream()
        let release = DispatchSemaphore(value: 0)
        // Made by the writer inside the commit: holds it open until the test has queued another save.
        let held = DeferredPayload(bound: 16) {
            taken.yield()
            release.wait()
            return Data("held".utf8)
        }
        #expect(try store.enqueue(ActivityStoreTests.activity("org.example.A", "One", id: "1"), payload: held) == false)
        #expect(try store.enqueue(ActivityStoreTests.activity("org.example.A", "Two", id: "2")) == false)
        #expect(try store.enqueue(ActivityStoreTests.activity("org.example.A", "Three", id: "3")) == false)
        let commit = Task { await store.committed() }
        _ = try await next(started, "the commit starts")
        // Three acknowledged saves are in the running transaction, none on disk yet: a fourth is over.
        #expect(try store.enqueue(ActivityStoreTests.activity("org.example.A", "Four", id: "4")) == true)
        release.signal()
        try await withDeadline("the commit ends") { await commit.value }
        try await withDeadline("the fourth save is committed") { await store.committed() }
        #expect(try await store.list(appID: "org.example.A").map(\.title) == ["Four", "Three", "Two", "One"])
        #expect(try store.enqueue(ActivityStoreTests.activity("org.example.A", "Five", id: "5")) == false)
    }

    @Test("a file written by the release that used GRDB keeps its activities: its layout, its ids and GRDB's record are read as they are")
    func fileOfTheGRDBRelease() async throws {
        let place = try Place()
        try FileManager.default.createDirectory(
            atPath: (place.path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        // What GRDB 7's DatabasePool and DatabaseMigrator wrote: WAL, GRDB's record of the two
        // migrations that ran, the tables as "activities-1" made them, and user_version left at 0.
        do {
            let db = try Connection(path: place.path, create: true, busyTimeout: .seconds(1))
            try db.execute("""
                PRAGMA journal_mode = WAL;
                CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                CREATE TABLE activity (
                  id INTEGER PRIMARY KEY, app_id TEXT NOT NULL, identity TEXT NOT NULL, activity_type TEXT NOT NULL,
                  title TEXT NOT NULL, keywords TEXT NOT NULL, persistent_identifier TEXT, expires INTEGER,
                  last_used INTEGER NOT NULL, recency INTEGER NOT NULL, payload BLOB NOT NULL, UNIQUE (app_id, identity));
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
                INSERT INTO grdb_migrations VALUES ('activities-1'), ('activities-2-wire-payloads');
                INSERT INTO activity (id, app_id, identity, activity_type, title, keywords, persistent_identifier, expires,
                                      last_used, recency, payload)
                  VALUES (41, 'org.example.Notes', 'p' || char(31) || 'n1', 'org.example.edit', 'Shopping list',
                          'groceries' || char(31) || 'milk', 'n1', NULL, 1700000000, 7, x'6c000000');
                """)
        }
        let store = try place.open()
        let found = try await store.search(["milk"], limit: 5)
        #expect(found.map(\.id) == [41])
        #expect(found.first?.keywords == ["groceries", "milk"])
        #expect(found.first?.payload == Data([0x6C, 0, 0, 0]))
        #expect(place.logged.withLock { $0 }.isEmpty)
        // The same identity saved again keeps its id, and is the most recent.
        #expect(try await store.save(ActivityStoreTests.activity("org.example.Notes", "Shopping list", id: "n1", type: "org.example.edit")) == 41)
        try await store.save(ActivityStoreTests.activity("org.example.Notes", "Later", id: "n2"))
        #expect(try await store.list(appID: nil).map(\.title) == ["Later", "Shopping list"])

        let db = try Connection(path: place.path, create: false, busyTimeout: .seconds(1))
        #expect(try db.statement("PRAGMA user_version").value(Int64.self) == Schema.version)
        #expect(try db.statement("SELECT COUNT(*) FROM grdb_migrations").value(Int.self) == 2)
    }

    @Test("a file of the first layout (payloads as JSON) is emptied once, as the second layout's migration did")
    func fileOfTheFirstLayout() async throws {
        let place = try Place()
        try FileManager.default.createDirectory(
            atPath: (place.path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        do {
            let db = try Connection(path: place.path, create: true, busyTimeout: .seconds(1))
            try db.execute("CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY); " + Schema.first + """
                INSERT INTO grdb_migrations VALUES ('activities-1');
                INSERT INTO activity (app_id, identity, activity_type, title, keywords, last_used, recency, payload)
                  VALUES ('org.example.A', 'tx', 't', 'JSON era', '', 1, 1, x'7b7d');
                """)
        }
        let store = try place.open()
        #expect(try await store.list(appID: nil).isEmpty)
        let db = try Connection(path: place.path, create: false, busyTimeout: .seconds(1))
        #expect(try db.statement("SELECT COUNT(*) FROM grdb_migrations").value(Int.self) == 2)
    }
}

/// The C wrapper's own promises.
@Suite("SQLite through its C API")
struct ConnectionTests {
    /// Descriptors of this process open on `path` (its WAL and shared memory count too).
    static func descriptors(on path: String) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").filter { fd in
            ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")) ?? "").hasPrefix(path)
        }.count
    }

    @Test("a connection released with its statements cached and used closes its file")
    func closesWhenReleased() throws {
        let place = try ActivityStoreTests.Place()
        try FileManager.default.createDirectory(
            atPath: (place.path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        do {
            let db = try Connection(path: place.path, create: true, busyTimeout: .seconds(1))
            try db.execute("PRAGMA journal_mode = WAL; CREATE TABLE t (x)")
            try db.statement("INSERT INTO t VALUES (?)").bind(Int64(1)).run()
            #expect(try db.statement("SELECT x FROM t").value(Int64.self) == 1)
            #expect(try db.prepare("SELECT count(*) FROM t").value(Int.self) == 1)
            #expect(try Self.descriptors(on: place.path) > 0)
        }
        #expect(try Self.descriptors(on: place.path) == 0)
    }

    @Test("values keep what they are: a NUL inside a text, an empty text and blob (not NULL), NULL for nil")
    func values() throws {
        let place = try ActivityStoreTests.Place()
        try FileManager.default.createDirectory(
            atPath: (place.path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let db = try Connection(path: place.path, create: true, busyTimeout: .seconds(1))
        try db.execute("CREATE TABLE v (t TEXT, e TEXT, b BLOB, n INTEGER)")
        try db.statement("INSERT INTO v VALUES (?, ?, ?, ?)").bind("a\u{0}b", "", Data(), Int64?.none).run()
        let row = try db.statement("SELECT t, e, b, n, typeof(e), typeof(b) FROM v").rows { row in
            (row[0] as String, row[1] as String, row[2] as Data, row[3] as Int64?, row[4] as String, row[5] as String)
        }
        #expect(row.count == 1)
        #expect(row.first?.0 == "a\u{0}b")
        #expect(row.first?.1 == "" && row.first?.4 == "text")
        #expect(row.first?.2 == Data() && row.first?.5 == "blob")
        #expect(row.first?.3 == nil)
        #expect(throws: SQLiteError.self) { try db.execute("SELECT * FROM missing") }
    }
}

/// What is at the store's path and is not the store's: never written, set aside untouched.
@Suite("files that are not the store's")
struct ForeignFileTests {
    typealias Place = ActivityStoreTests.Place

    /// Another program's database: a table named `activity` (not the store's), `user_version` 1, rows.
    static func otherProgramsDatabase(at path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let db = try Connection(path: path, create: true, busyTimeout: .seconds(1))
        try db.execute("""
            CREATE TABLE activity (id INTEGER PRIMARY KEY, note TEXT NOT NULL);
            INSERT INTO activity (note) VALUES ('keep me'), ('and me');
            PRAGMA user_version = 1;
            """)
    }

    static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// The names in the store's directory set aside as not the store's.
    static func setAside(_ place: Place) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: (place.path as NSString).deletingLastPathComponent)
            .filter { $0.hasPrefix("activities.sqlite.not-waypost-") }
    }

    @Test("a link to another program's database with a table activity and user_version 1: the link is set aside, the database untouched")
    func linkToAnotherProgramsDatabase() async throws {
        let place = try Place()
        let victim = place.directory + "/other/program.sqlite"
        try Self.otherProgramsDatabase(at: victim)
        let before = try Self.bytes(victim)
        try FileManager.default.createDirectory(atPath: (place.path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: place.path, withDestinationPath: victim)

        let store = try place.open()
        try await store.save(ActivityStoreTests.activity("org.example.A", "Mine", id: "m"))
        #expect(try await store.list(appID: nil).map(\.title) == ["Mine"])
        #expect(try Self.bytes(victim) == before)
        let db = try Connection(path: victim, create: false, busyTimeout: .seconds(1))
        #expect(try db.statement("SELECT COUNT(*) FROM activity").value(Int.self) == 2)
        let aside = try Self.setAside(place)
        #expect(aside.count == 1)
        let directory = (place.path as NSString).deletingLastPathComponent
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + aside[0]) == victim)
        #expect(try FileManager.default.attributesOfItem(atPath: place.path)[.type] as? FileAttributeType == .typeRegular)
        #expect(place.logged.withLock { $0 }.contains { $0.contains("is not the store's") && $0.contains("symbolic link") })
    }

    @Test("another program's database copied to the path, or the store's layout with a table of someone else's, is set aside byte for byte")
    func anotherLayout() async throws {
        for variant in ["another program's", "the store's and more"] {
            let place = try Place()
            if variant == "another program's" {
                try Self.otherProgramsDatabase(at: place.path)
            } else {
                try await place.open().save(ActivityStoreTests.activity("org.example.A", "Old", id: "o"))
                let db = try Connection(path: place.path, create: false, busyTimeout: .seconds(1))
                try db.execute("PRAGMA wal_checkpoint(TRUNCATE); CREATE TABLE notes (text TEXT); PRAGMA journal_mode = DELETE")
            }
            let before = try Self.bytes(place.path)
            let store = try place.open()
            #expect(try await store.list(appID: nil).isEmpty, "\(variant)")
            let aside = try Self.setAside(place)
            #expect(aside.count == 1, "\(variant)")
            let directory = (place.path as NSString).deletingLastPathComponent
            #expect(try Self.bytes(directory + "/" + (aside.first ?? "")) == before, "\(variant)")
        }
    }

    @Test("a WAL file that is a link is never written through: the store's files are set aside, what it leads to untouched")
    func linkedWAL() async throws {
        let place = try Place()
        let victim = place.directory + "/victim"
        try FileManager.default.createDirectory(atPath: place.directory, withIntermediateDirectories: true)
        try Data("the victim's own bytes".utf8).write(to: URL(fileURLWithPath: victim))
        try await place.open().save(ActivityStoreTests.activity("org.example.A", "Old", id: "o"))
        do {
            let db = try Connection(path: place.path, create: false, busyTimeout: .seconds(1))
            try db.execute("PRAGMA journal_mode = DELETE")
        }
        try? FileManager.default.removeItem(atPath: place.path + "-wal")
        try FileManager.default.createSymbolicLink(atPath: place.path + "-wal", withDestinationPath: victim)

        let store = try place.open()
        try await store.save(ActivityStoreTests.activity("org.example.A", "New", id: "n"))
        #expect(try Self.bytes(victim) == Data("the victim's own bytes".utf8))
        #expect(try Self.setAside(place).count == 2, "the file and its linked WAL")
        #expect(try await store.list(appID: nil).map(\.title) == ["New"])
    }

    @Test("a store reached through a linked directory (a home under /var/home) is the store, used as it is")
    func linkedDirectory() async throws {
        let place = try Place()
        try FileManager.default.createDirectory(atPath: place.directory + "/real/waypost", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: place.directory + "/state", withDestinationPath: place.directory + "/real")
        try await place.open().save(ActivityStoreTests.activity("org.example.A", "Kept", id: "k"))
        #expect(try await place.open().list(appID: nil).map(\.title) == ["Kept"])
        #expect(place.logged.withLock { $0 }.isEmpty)
    }
}
