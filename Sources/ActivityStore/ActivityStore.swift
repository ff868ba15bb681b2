import FoundationEssentials
import Glibc
import Synchronization

/// The saved (search-eligible) user activities, in SQLite through its C API (`Internals/`): one row
/// per app and persistent identifier (or app, type and target without one), an FTS5 index over
/// title and keywords, and the activity's payload kept as the daemon encoded it.
///
/// Policy:
/// - SQLite runs on two serial queues of the store's own, a writer and a reader, each with its own
///   connection, and callers await them, so no thread (the daemon's bus connection) is blocked on
///   the disk. The daemon `enqueue`s what scenes publish and answers at once; the writer commits
///   everything queued in one transaction `Limits.commitDelay` (10 ms) after the first save that
///   waits (group commit: a scene publishing on every scroll costs a commit per 10 ms, not one per
///   publish). The file is in WAL mode with `synchronous = NORMAL`: a commit is in the WAL file (the
///   kernel has it) when it returns, so a killed process loses only what it acknowledged and had not
///   committed — at most `Limits.queuedSaves`, the batch being committed included, always the newest
///   (never a hole); the WAL is not synced on each commit, so a power loss may lose the last commits
///   too. `save` (tests, tools) returns once its own save is committed.
/// - Every read and write first commits what is queued: a search finds what was just published.
/// - Expired activities are never returned, and are deleted at open and on every save.
/// - At most `Limits.perApplication` rows per app: a save beyond it drops that app's least recently
///   used ones. A payload over `Limits.payloadBytes` is refused.
/// - A file SQLite finds damaged ("corrupt", "not a database") is renamed aside with the reason
///   logged, and an empty store is made in its place, at open or when a statement finds it later.
///   Nothing else sets a file aside: a file another process holds locked past `Limits.busyTimeout`
///   fails that call with `StoreError.locked` (searches still read it, in WAL mode), and the store
///   opens it at its next use once the lock is gone.
public final class ActivityStore: Sendable {
    public struct Limits: Sendable, Hashable {
        /// Saved activities kept per app; the least recently used go first.
        public var perApplication: Int
        /// The largest payload (the activity as the daemon encodes it) kept.
        public var payloadBytes: Int

        /// Saves acknowledged and not yet committed (those queued and those of the commit running)
        /// beyond which `enqueue` asks its caller to wait: what a killed daemon can lose of what it
        /// acknowledged.
        public var queuedSaves: Int

        /// How long a queued save waits for others to share its commit: with `queuedSaves`, what a
        /// killed daemon can lose of what it acknowledged.
        public var commitDelay: Duration

        /// How long a statement waits for a lock another process holds before it fails.
        public var busyTimeout: Duration

        public init(
            perApplication: Int = 10_000, payloadBytes: Int = 64 * 1024, queuedSaves: Int = 256,
            commitDelay: Duration = .milliseconds(10), busyTimeout: Duration = .seconds(5)
        ) {
            self.perApplication = perApplication
            self.payloadBytes = payloadBytes
            self.queuedSaves = queuedSaves
            self.commitDelay = commitDelay
            self.busyTimeout = busyTimeout
        }
    }

    /// The current time in Unix seconds.
    public static let unixTime: @Sendable () -> Int64 = { Int64(time(nil)) }

    public let path: String
    public let limits: Limits
    let clock: @Sendable () -> Int64
    let log: @Sendable (String) -> Void

    /// The one connection that writes, and the one that reads (WAL lets it read beside a commit).
    let writer: SerialConnection
    let reader: SerialConnection
    /// Which file the connections have open: bumped when a damaged one is set aside, so that a
    /// failure seen on an older file sets nothing aside again. `ready` once the writer has opened
    /// this one (its layout made, what expired pruned).
    let file: OpenFile

    /// Rows per app, counted once per app and kept by the saves and deletes (the writer's queue
    /// runs them one at a time); nil after a prune, which may touch any app.
    let counts = AppCounts()
    /// Saves acknowledged and not yet committed (ActivityStore+Queue.swift).
    let queue = Mutex(SaveQueue())
    let writeCount = Mutex(0)

    /// How many reads and writes the store has made: the daemon hands freed memory back after bursts of them.
    public var accesses: Int { writeCount.withLock { $0 } }

    /// Opens (or creates) the store at `path`, creating its directory.
    /// - Parameters:
    ///   - clock: the current Unix time in seconds (tests move it to expire activities).
    ///   - log: told, for the daemon's log, when a damaged file is set aside or the file is locked.
    /// - Throws: `StoreError.unavailable` when neither the file nor a new one in its place can be
    ///   used; not when another process holds it locked (logged; the next use tries again).
    public init(
        path: String, limits: Limits = Limits(), clock: @escaping @Sendable () -> Int64 = ActivityStore.unixTime,
        log: @escaping @Sendable (String) -> Void
    ) throws(StoreError) {
        self.path = path
        self.limits = limits
        self.clock = clock
        self.log = log
        let file = OpenFile()
        self.file = file
        let busyTimeout = limits.busyTimeout
        writer = SerialConnection(label: "waypost.activities.writer") { () throws(SQLiteError) in
            let connection = try Self.openWriter(path, busyTimeout: busyTimeout, now: clock())
            file.withLock { $0.ready = true }
            return connection
        }
        reader = SerialConnection(label: "waypost.activities.reader") { () throws(SQLiteError) in
            try Self.openReader(path, busyTimeout: busyTimeout)
        }
        try Self.makeDirectory(containing: path)
        switch writer.sync({ _ in }) {
        case .success: break
        case .failure(let error) where error.isBusy:
            log("the activity store \(path) is locked by another process (\(error)); it is used once the lock is gone, and stays as it is")
        case .failure(let error) where error.isDamage:
            let aside = try Self.setAside(path, now: clock())
            log("the activity store \(path) could not be read (\(error.message)); moved it to \(aside) and started an empty one")
            if case .failure(let error) = writer.sync({ _ in }) { throw .unavailable(path: path, reason: error.description) }
        case .failure(let error):
            throw .unavailable(path: path, reason: error.description)
        }
    }

    /// The writer's connection: WAL, the pragmas below, the layout brought up to date, what expired pruned.
    private static func openWriter(_ path: String, busyTimeout: Duration, now: Int64) throws(SQLiteError) -> Connection {
        let db = try Connection(path: path, create: true, busyTimeout: busyTimeout)
        // Commits reach the OS (not the disk) before returning: they survive the process, not a
        // power loss. Checkpoints every 1 MiB of WAL leave it at most 1 MiB.
        try db.execute("""
            PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 256;
            PRAGMA journal_size_limit = 1048576; PRAGMA cache_size = -1024
            """)
        try Schema.migrate(db)
        try db.statement("DELETE FROM activity WHERE expires IS NOT NULL AND expires <= ?").bind(now).run()
        return db
    }

    /// The reader's connection: never creates the file, never writes. Searches are short: one
    /// reader with a 1 MiB page cache keeps the daemon's memory flat however large the store grows.
    private static func openReader(_ path: String, busyTimeout: Duration) throws(SQLiteError) -> Connection {
        let db = try Connection(path: path, create: false, busyTimeout: busyTimeout)
        try db.execute("PRAGMA query_only = 1; PRAGMA cache_size = -1024")
        return db
    }

    // MARK: Running statements, and a file found damaged later

    /// On the writer's queue: takes every queued save and writes them, then `body`, in one
    /// transaction, so that writes apply in the order they were asked. The saves are taken even
    /// when the file cannot be opened: a failed commit is reported, never retried in a loop.
    func writeQueued<Value: Sendable>(
        then body: (Connection) throws(SQLiteError) -> Value
    ) -> (result: Result<Value, SQLiteError>, saves: Int, batch: SaveQueue.Batch) {
        let (saves, batch) = takeQueued()
        let cap = limits.perApplication
        let counts = counts
        let result = writer.withConnection { db throws(SQLiteError) in
            try db.transaction { () throws(SQLiteError) in
                try Self.write(saves, cap: cap, counts: counts, db)
                return try body(db)
            }
        }
        return (result, saves.count, batch)
    }

    /// Runs a write transaction that first writes every queued save.
    func run<Value: Sendable>(_ body: @escaping @Sendable (Connection) throws(SQLiteError) -> Value) async throws(StoreError) -> Value {
        writeCount.withLock { $0 += 1 }
        let generation = file.withLock { $0.generation }
        let (result, saves, batch) = await withCheckedContinuation { continuation in
            writer.async { continuation.resume(returning: self.writeQueued(then: body)) }
        }
        finish(batch)
        switch result {
        case .success(let value): return value
        case .failure(let error):
            let failure = recover(from: error, generation)
            if saves > 0 { log("\(saves) acknowledged activities could not be saved: \(failure)") }
            throw failure
        }
    }

    /// Reads what was committed, once every save queued before the call is, on the reader's queue.
    func read<Value: Sendable>(_ body: @escaping @Sendable (Connection) throws(SQLiteError) -> Value) async throws(StoreError) -> Value {
        await committed()
        writeCount.withLock { $0 += 1 }
        let (generation, ready) = file.withLock { ($0.generation, $0.ready) }
        do { return try await reader.run(body) } catch where !ready && !error.isBusy && !error.isDamage {
            // A file the writer has not opened (set aside, or locked at start) may not exist yet or
            // lack its layout: the writer makes them, then the reader tries once more. A file that
            // is there is read at once, even while another process holds the write lock.
            _ = try? await writer.run { _ throws(SQLiteError) in }
            do { return try await reader.run(body) } catch { throw recover(from: error, generation) }
        } catch {
            throw recover(from: error, generation)
        }
    }

    /// A statement that finds the file damaged sets it aside, and the next use starts an empty store
    /// (once per file: the first caller to see it does it); the statement itself still fails. A
    /// file locked by another process is only reported.
    func recover(from error: SQLiteError, _ generation: Int) -> StoreError {
        if error.isBusy { return .locked(path: path, error) }
        guard error.isDamage else { return .database(error) }
        file.withLock { file in
            guard file.generation == generation else { return }
            file = (generation + 1, false)
            writer.close()
            reader.close()
            do {
                let aside = try Self.setAside(path, now: clock())
                log("the activity store \(path) is damaged (\(error.message)); moved it to \(aside) and started an empty one")
            } catch {
                log("the activity store \(path) could not be rebuilt: \(error)")
            }
        }
        return .database(error)
    }

    // MARK: Files

    /// Renames the file (and its WAL and shared-memory files) to `<path>.damaged-<time>`.
    private static func setAside(_ path: String, now: Int64) throws(StoreError) -> String {
        let aside = "\(path).damaged-\(now)"
        for suffix in ["", "-wal", "-shm"] where exists(path + suffix) {
            guard rename(path + suffix, aside + suffix) == 0 else {
                throw .unavailable(path: path, reason: "cannot move it aside to \(aside): \(String(cString: strerror(errno)))")
            }
        }
        return aside
    }

    private static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    private static func makeDirectory(containing path: String) throws(StoreError) {
        var directory = ""
        for component in path.split(separator: "/", omittingEmptySubsequences: true).dropLast() {
            directory += "/" + component
            if mkdir(directory, 0o700) != 0 && errno != EEXIST {
                throw .unavailable(path: path, reason: "cannot create \(directory): \(String(cString: strerror(errno)))")
            }
        }
    }
}

/// Which file the connections have open (see `ActivityStore.file`), shared with the writer's opening.
final class OpenFile: Sendable {
    private let state = Mutex((generation: 0, ready: false))

    func withLock<Value>(_ body: (inout (generation: Int, ready: Bool)) -> Value) -> Value { state.withLock { body(&$0) } }
}

/// Rows per app (see `ActivityStore.counts`), shared with the closures the writer runs.
final class AppCounts: Sendable {
    let counts = Mutex<[String: Int]?>([:])

    func withLock<Value>(_ body: (inout [String: Int]?) -> Value) -> Value { counts.withLock { body(&$0) } }
}
