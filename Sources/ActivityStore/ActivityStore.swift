import FoundationEssentials
import GRDB
import Glibc
import Synchronization

/// The saved (search-eligible) user activities, in SQLite through GRDB: one row per app and
/// persistent identifier (or app, type and target without one), an FTS5 index over title and
/// keywords, and the activity's payload kept as the daemon encoded it.
///
/// Policy:
/// - SQLite runs on GRDB's own queues (one writer, writes in the order they were asked), and callers
///   await it, so no thread (the daemon's bus connection) is blocked on the disk. The daemon
///   `enqueue`s what scenes publish and answers at once; the writer commits everything queued in one
///   transaction `Limits.commitDelay` (10 ms) after the first save that waits (group commit: a scene publishing on every
///   scroll costs a commit per 10 ms, not one per publish). The file is in WAL mode with
///   `synchronous = NORMAL`: a commit is in the WAL file (the kernel has it) when it returns, so a
///   killed process loses only what was queued since the last commit began — the last 10 ms of
///   saves, at most `Limits.queuedSaves`, always the newest (never a hole); the WAL is not synced on
///   each commit, so a power loss may lose the last commits too. `save` (tests, tools) returns once
///   its own save is committed.
/// - Every read and write first commits what is queued: a search finds what was just published.
/// - Expired activities are never returned, and are deleted at open and on every save.
/// - At most `Limits.perApplication` rows per app: a save beyond it drops that app's least recently
///   used ones. A payload over `Limits.payloadBytes` is refused.
/// - A file SQLite cannot read (not a database, corrupt) is renamed aside with the reason logged,
///   and an empty store is made in its place, at open or when a statement finds it corrupt later.
public final class ActivityStore: Sendable {
    public struct Limits: Sendable, Hashable {
        /// Saved activities kept per app; the least recently used go first.
        public var perApplication: Int
        /// The largest payload (the activity as the daemon encodes it) kept.
        public var payloadBytes: Int

        /// Saves queued and not yet committed beyond which `enqueue` asks its caller to wait: what a
        /// killed daemon can lose of what it acknowledged.
        public var queuedSaves: Int

        /// How long a queued save waits for others to share its commit: with `queuedSaves`, what a
        /// killed daemon can lose of what it acknowledged.
        public var commitDelay: Duration

        public init(
            perApplication: Int = 10_000, payloadBytes: Int = 64 * 1024, queuedSaves: Int = 256,
            commitDelay: Duration = .milliseconds(10)
        ) {
            self.perApplication = perApplication
            self.payloadBytes = payloadBytes
            self.queuedSaves = queuedSaves
            self.commitDelay = commitDelay
        }
    }

    /// The current time in Unix seconds.
    public static let unixTime: @Sendable () -> Int64 = { Int64(time(nil)) }

    public let path: String
    public let limits: Limits
    let clock: @Sendable () -> Int64
    let log: @Sendable (String) -> Void
    let state: Mutex<Storage>

    /// The open file: replaced when a damaged one is set aside.
    struct Storage {
        var pool: DatabasePool
    }

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
    ///   - log: told, for the daemon's log, when a damaged file is set aside.
    /// - Throws: `StoreError.unavailable` when neither the file nor a new one in its place can be used.
    public init(
        path: String, limits: Limits = Limits(), clock: @escaping @Sendable () -> Int64 = ActivityStore.unixTime,
        log: @escaping @Sendable (String) -> Void
    ) throws(StoreError) {
        self.path = path
        self.limits = limits
        self.clock = clock
        self.log = log
        state = Mutex(Storage(pool: try Self.openOrRebuild(path, log: log, now: clock())))
    }

    /// The pool; a file that cannot be read is set aside once.
    private static func openOrRebuild(_ path: String, log: (String) -> Void, now: Int64) throws(StoreError) -> DatabasePool {
        try Self.makeDirectory(containing: path)
        do { return try Self.open(path, now: now) } catch {
            guard Self.exists(path) else { throw .unavailable(path: path, reason: "\(error)") }
            let aside = try Self.setAside(path, now: now)
            log("the activity store \(path) could not be read (\(Self.reason(error))); moved it to \(aside) and started an empty one")
            do { return try Self.open(path, now: now) } catch { throw .unavailable(path: path, reason: Self.reason(error)) }
        }
    }

    private static func open(_ path: String, now: Int64) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            // Commits reach the OS (not the disk) before returning: they survive the process, not a
            // power loss. Checkpoints every 1 MiB of WAL leave it at most 1 MiB.
            try db.execute(sql: """
                PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 256; PRAGMA journal_size_limit = 1048576;
                PRAGMA cache_size = -1024
                """)
        }
        configuration.busyMode = .timeout(5)
        // Searches are short: two readers beside the writer, each with a 1 MiB page cache, keep the
        // daemon's memory flat however large the store grows.
        configuration.maximumReaderCount = 2
        let pool = try DatabasePool(path: path, configuration: configuration)
        try Schema.migrator.migrate(pool)
        try pool.write { db in
            try db.execute(sql: "DELETE FROM activity WHERE expires IS NOT NULL AND expires <= ?", arguments: [now])
        }
        return pool
    }

    // MARK: Running statements, and a file found corrupt later

    /// Runs a write transaction that first writes every queued save, so that writes apply in the
    /// order they were asked.
    func run<Value: Sendable>(_ pool: DatabasePool, _ body: @escaping @Sendable (Database) throws -> Value) async throws(StoreError) -> Value {
        writeCount.withLock { $0 += 1 }
        let cap = limits.perApplication
        let counts = counts
        let taken = Mutex<(count: Int, upTo: UInt64)>((0, 0))
        do {
            let value = try await pool.write { db in
                let batch = self.takeQueued()
                taken.withLock { $0 = (batch.saves.count, batch.upTo) }
                try Self.write(batch.saves, cap: cap, counts: counts, db)
                return try body(db)
            }
            finish(upTo: taken.withLock { $0.upTo })
            return value
        } catch {
            let (count, upTo) = taken.withLock { $0 }
            let failure = recover(from: error, pool)
            if count > 0 { log("\(count) acknowledged activities could not be saved: \(failure)") }
            finish(upTo: upTo)
            throw failure
        }
    }

    /// Reads what was committed, once every save queued before the call is, on one of the pool's readers.
    func read<Value: Sendable>(_ pool: DatabasePool, _ body: @escaping @Sendable (Database) throws -> Value) async throws(StoreError) -> Value {
        await committed()
        writeCount.withLock { $0 += 1 }
        do { return try await pool.read(body) } catch {
            throw recover(from: error, pool)
        }
    }

    /// A statement that finds the file corrupt sets it aside and starts an empty store (once per
    /// pool: the first caller to see it does it); the statement itself still fails.
    func recover(from error: any Error, _ failed: DatabasePool) -> StoreError {
        guard let error = error as? DatabaseError, Self.isDamage(error) else { return .database(Self.reason(error)) }
        let now = clock()
        let log = log
        let path = path
        state.withLock { state in
            guard state.pool === failed else { return }
            try? failed.close()
            do {
                let aside = try Self.setAside(path, now: now)
                log("the activity store \(path) is damaged (\(Self.reason(error))); moved it to \(aside) and started an empty one")
                state.pool = try Self.open(path, now: now)
            } catch {
                log("the activity store \(path) could not be rebuilt: \(error)")
            }
        }
        return .database(Self.reason(error))
    }

    private static func isDamage(_ error: DatabaseError) -> Bool {
        error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB
    }

    static func reason(_ error: any Error) -> String {
        if let error = error as? DatabaseError { return error.message ?? "\(error.resultCode)" }
        return "\(error)"
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

/// Rows per app (see `ActivityStore.counts`), shared with the closures the writer runs.
final class AppCounts: Sendable {
    let counts = Mutex<[String: Int]?>([:])

    func withLock<Value>(_ body: (inout [String: Int]?) -> Value) -> Value { counts.withLock { body(&$0) } }
}
