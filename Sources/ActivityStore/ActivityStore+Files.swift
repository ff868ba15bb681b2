// The store's file: opened only when it is the store's own, set aside untouched otherwise.
import Glibc

extension ActivityStore {
    /// The writer's connection: the file checked to be the store's (`checkedPath`, `Schema.layout`)
    /// before anything is written to it, then WAL, the pragmas below, the layout brought up to
    /// date, what expired deleted (`deleteExpired`).
    /// - Throws: `SQLiteError.notTheStore` (`isForeign`) for anything that is not the store's.
    static func openWriter(_ path: String, busyTimeout: Duration, now: Int64, counts: AppCounts) throws(SQLiteError) -> Connection {
        let db = try Connection(path: try checkedPath(path), create: true, busyTimeout: busyTimeout)
        if case .newer(let found) = try Schema.layout(of: db) {
            throw SQLiteError(code: 1, message: "the file's layout is version \(found), newer than this release's \(Schema.version)")
        }
        // Commits reach the OS (not the disk) before returning: they survive the process, not a
        // power loss. Checkpoints every 1 MiB of WAL leave it at most 1 MiB.
        try db.execute("""
            PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 256;
            PRAGMA journal_size_limit = 1048576; PRAGMA cache_size = -1024
            """)
        try Schema.migrate(db)
        try deleteExpired(at: now, counts: counts, db)
        return db
    }

    /// The reader's connection: never creates the file, never writes, and reads only a file in
    /// today's layout (until the writer has made it so, a read fails as not ready, and is tried
    /// again once the writer has opened the file). Searches are short: one reader with a 1 MiB page
    /// cache keeps the daemon's memory flat however large the store grows.
    /// The writer's connection for a store opened at first use (`Opening.onFirstUse`), with the care
    /// `init` takes for `.now`: the directory made; a file SQLite finds damaged, or not the store's,
    /// set aside (`settingAside` first, so that the reader lets go of it) and an empty store made
    /// in its place; a lock another process holds logged once, the call failing with it.
    static func openWriterAtFirstUse(
        _ path: String, busyTimeout: Duration, clock: @Sendable () -> Int64, counts: AppCounts,
        log: @Sendable (String) -> Void, firstUse: FirstUse, settingAside: () -> Void
    ) throws(SQLiteError) -> Connection {
        do { try makeDirectory(containing: path) } catch { throw SQLiteError(code: 14, message: error.description) }  // SQLITE_CANTOPEN
        do {
            return try openWriter(path, busyTimeout: busyTimeout, now: clock(), counts: counts)
        } catch where error.isBusy {
            if firstUse.lockIsNews() {
                log("the activity store \(path) is locked by another process (\(error)); it is used once the lock is gone, and stays as it is")
            }
            throw error
        } catch where error.isDamage || error.isForeign {
            settingAside()
            let aside: String
            do { aside = try setAside(path, error, now: clock()) } catch let failure {
                log("the activity store \(path) could not be rebuilt: \(failure)")
                throw SQLiteError(code: 14, message: failure.description)
            }
            log("the activity store \(path) \(error.isForeign ? "is not the store's" : "could not be read") (\(error.message)); moved it to \(aside) untouched and started an empty one")
            return try openWriter(path, busyTimeout: busyTimeout, now: clock(), counts: counts)
        }
    }

    static func openReader(_ path: String, busyTimeout: Duration) throws(SQLiteError) -> Connection {
        let db = try Connection(path: try checkedPath(path), create: false, busyTimeout: busyTimeout)
        try db.execute("PRAGMA query_only = 1; PRAGMA cache_size = -1024")
        let layout: Schema.Layout
        do { layout = try Schema.layout(of: db) } catch where error.isForeign { layout = .empty }
        guard layout == .current else { throw SQLiteError(code: 14, message: "the activity store's layout is not made yet") }  // SQLITE_CANTOPEN
        return db
    }

    /// The path SQLite opens: the store's directory resolved (a home reached through a link is the
    /// user's own layout), and the file and its WAL and shared-memory files regular files or
    /// absent, never followed through a link (nor opened when a FIFO, which would block the reader).
    /// - Throws: `SQLiteError.notTheStore` naming what is there instead.
    static func checkedPath(_ path: String) throws(SQLiteError) -> String {
        for suffix in ["", "-wal", "-shm"] {
            if case .other(let kind) = Files.kind(of: path + suffix) { throw .notTheStore("\(path + suffix) is \(kind), not a regular file") }
        }
        guard let resolved = Files.resolvingDirectory(of: path) else {
            throw SQLiteError(code: 14, message: "the directory of \(path) cannot be resolved: \(String(cString: strerror(errno)))")
        }
        return resolved
    }

    /// Renames the file (and its WAL and shared-memory files) to `<path>.damaged-<time>`, or
    /// `<path>.not-waypost-<time>` for one that is not the store's; a link is renamed, never what
    /// it leads to. A name taken already gets a number after it.
    static func setAside(_ path: String, _ reason: SQLiteError, now: Int64) throws(StoreError) -> String {
        var aside = "\(path).\(reason.isForeign ? "not-waypost" : "damaged")-\(now)"
        var number = 1
        while ["", "-wal", "-shm"].contains(where: { Files.kind(of: aside + $0) != .absent }) {
            number += 1
            aside = "\(path).\(reason.isForeign ? "not-waypost" : "damaged")-\(now)-\(number)"
        }
        for suffix in ["", "-wal", "-shm"] where Files.kind(of: path + suffix) != .absent {
            guard rename(path + suffix, aside + suffix) == 0 else {
                throw .unavailable(path: path, reason: "cannot move it aside to \(aside): \(String(cString: strerror(errno)))")
            }
        }
        return aside
    }

    static func makeDirectory(containing path: String) throws(StoreError) {
        var directory = ""
        for component in path.split(separator: "/", omittingEmptySubsequences: true).dropLast() {
            directory += "/" + component
            if mkdir(directory, 0o700) != 0 && errno != EEXIST {
                throw .unavailable(path: path, reason: "cannot create \(directory): \(String(cString: strerror(errno)))")
            }
        }
    }
}
