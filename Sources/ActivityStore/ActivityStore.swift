import FoundationEssentials
import GRDB
import Glibc
import Dispatch
import Synchronization

/// The saved (search-eligible) user activities, in SQLite through GRDB: one row per app and
/// persistent identifier (or app, type and target without one), an FTS5 index over title and
/// keywords, and the activity's payload kept as the daemon encoded it.
///
/// Policy:
/// - SQLite runs on GRDB's own queues, so the caller's thread (the daemon's bus connection) never
///   waits for it. `save` returns once the save is appended to the journal beside the file (one
///   `write`, no sync): a killed daemon loses no save it acknowledged, replaying the journal at its
///   next start. SQLite has the save a moment later, and every read and write waits for the saves
///   before it. The file is in WAL mode with `synchronous=NORMAL` (a power cut may lose the last saves).
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

        public init(perApplication: Int = 10_000, payloadBytes: Int = 64 * 1024) {
            self.perApplication = perApplication
            self.payloadBytes = payloadBytes
        }
    }

    /// The current time in Unix seconds.
    public static let unixTime: @Sendable () -> Int64 = { Int64(time(nil)) }

    public let path: String
    public let limits: Limits
    private let clock: @Sendable () -> Int64
    private let log: @Sendable (String) -> Void
    private let state: Mutex<Storage>

    /// The open file, and the saves journaled but not yet handed to SQLite.
    private struct Storage {
        var pool: DatabasePool
        var recency: Int64
        /// Handed to SQLite together, in one transaction, `batchDelay` after the first of them.
        var batch: [QueuedSave] = []
    }

    private struct QueuedSave {
        var activity: ActivityToSave
        var savedAt: Int64
        var recency: Int64
        var done: (@Sendable (Result<Int64, StoreError>) -> Void)?
    }

    /// How long a save waits for others to share its transaction: off the reply's way, and one
    /// commit for a burst.
    static let batchDelay: DispatchTimeInterval = .milliseconds(2)
    /// Rows per app, counted once per app and kept by the saves and deletes (the writer's queue
    /// runs them one at a time); nil after a prune, which may touch any app.
    private let counts = AppCounts()
    private let journal: Journal
    private let writeCount = Mutex(0)

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
        let opened = try Self.openOrRebuild(path, log: log, now: clock())
        journal = try Journal(path: path + ".pending")
        let replayed = try Self.replay(journal, into: opened, limits: limits, log: log)
        state = Mutex(Storage(pool: replayed.pool, recency: replayed.recency))
    }

    /// Saves a killed daemon acknowledged and SQLite did not yet have, applied in order.
    private static func replay(
        _ journal: Journal, into opened: (pool: DatabasePool, recency: Int64), limits: Limits, log: (String) -> Void
    ) throws(StoreError) -> (pool: DatabasePool, recency: Int64) {
        let entries = Journal.entries(at: journal.path)
        guard !entries.isEmpty else { return opened }
        var recency = opened.recency
        let counts = AppCounts()
        do {
            try opened.pool.write { db in
                for entry in entries where entry.activity.payload.count <= limits.payloadBytes {
                    recency += 1
                    _ = try Self.write(entry.activity, now: entry.savedAt, recency: recency, cap: limits.perApplication, counts: counts, db)
                }
            }
        } catch { throw .database("replaying \(journal.path): \(Self.reason(error))") }
        journal.clear()
        log("replayed \(entries.count) saves from \(journal.path), acknowledged before the daemon stopped")
        return (opened.pool, recency)
    }

    /// The pool and the highest recency in the file; a file that cannot be read is set aside once.
    private static func openOrRebuild(_ path: String, log: (String) -> Void, now: Int64) throws(StoreError) -> (pool: DatabasePool, recency: Int64) {
        try Self.makeDirectory(containing: path)
        do { return try Self.open(path, now: now) } catch {
            guard Self.exists(path) else { throw .unavailable(path: path, reason: "\(error)") }
            let aside = try Self.setAside(path, now: now)
            log("the activity store \(path) could not be read (\(Self.reason(error))); moved it to \(aside) and started an empty one")
            do { return try Self.open(path, now: now) } catch { throw .unavailable(path: path, reason: Self.reason(error)) }
        }
    }

    private static func open(_ path: String, now: Int64) throws -> (pool: DatabasePool, recency: Int64) {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            // Commits reach the OS before returning; checkpoints every 1 MiB of WAL leave it at most 1 MiB.
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
        let recency = try pool.write { db in
            try db.execute(sql: "DELETE FROM activity WHERE expires IS NOT NULL AND expires <= ?", arguments: [now])
            return try Int64.fetchOne(db, sql: "SELECT MAX(recency) FROM activity") ?? 0
        }
        return (pool, recency)
    }

    // MARK: Writing

    /// Saves not yet in SQLite beyond which `save` waits for SQLite: a flood of saves costs the
    /// daemon at most this many queued, whatever the disk's pace.
    public static let backlog = 500

    /// Saves the activity, replacing the app's row of the same identity (keeping its id), and drops
    /// the app's least recently used rows beyond the limit. Returns once the save is journaled;
    /// when `isBehind`, the caller should await `catchUp()` before saving more.
    /// - Throws: `payloadTooLarge`; `unavailable` when the journal cannot be written.
    public func save(_ activity: ActivityToSave) throws(StoreError) {
        try enqueue(activity, then: nil)
    }

    /// More than `backlog` saves wait for SQLite.
    public var isBehind: Bool { journal.pending > Self.backlog }

    /// Returns once SQLite has every save made so far.
    public func catchUp() async throws(StoreError) {
        flush()
        let pool = state.withLock { $0.pool }
        do { try await pool.writeWithoutTransaction { _ in } } catch { throw recover(from: error, pool) }
    }

    /// `save`, returning once SQLite has it.
    /// - Returns: the saved row's id.
    @discardableResult
    public func saveAndWait(_ activity: ActivityToSave) async throws(StoreError) -> Int64 {
        let result: Result<Int64, StoreError> = await withCheckedContinuation { continuation in
            do throws(StoreError) { try enqueue(activity) { continuation.resume(returning: $0) } } catch {
                continuation.resume(returning: .failure(error))
            }
        }
        return try result.get()
    }

    private func enqueue(_ activity: ActivityToSave, then done: (@Sendable (Result<Int64, StoreError>) -> Void)?) throws(StoreError) {
        guard activity.payload.count <= limits.payloadBytes else {
            throw .payloadTooLarge(appID: activity.appID, bytes: activity.payload.count, limit: limits.payloadBytes)
        }
        let now = clock()
        let journal = journal
        // One lock for the recency, the journal and the batch: their orders are the saves' order.
        let first = try state.withLock { state throws(StoreError) in
            try journal.append(activity, savedAt: now)
            state.recency += 1
            state.batch.append(QueuedSave(activity: activity, savedAt: now, recency: state.recency, done: done))
            return state.batch.count == 1
        }
        writeCount.withLock { $0 += 1 }
        if first { DispatchQueue.global().asyncAfter(deadline: .now() + Self.batchDelay) { [self] in flush() } }
    }

    /// Hands the batch to SQLite's writer now (before a read or write that must follow it).
    private func flush() {
        let cap = limits.perApplication
        let counts = counts
        let journal = journal
        // Under the lock: batches reach the writer's queue in the order they were made.
        state.withLock { state in
            let saves = state.batch
            guard !saves.isEmpty else { return }
            state.batch = []
            let pool = state.pool
            pool.asyncWrite({ db in
                try saves.map { save in
                    try Self.write(save.activity, now: save.savedAt, recency: save.recency, cap: cap, counts: counts, db)
                }
            }, completion: { [self] _, result in
                switch result {
                case .success(let ids):
                    for (save, id) in zip(saves, ids) {
                        journal.settled(stored: true)
                        save.done?(.success(id))
                    }
                case .failure(let error):
                    let failure = recover(from: error, pool)
                    log("\(saves.count) saves failed, kept in \(journal.path) for the next start: \(failure)")
                    for save in saves {
                        journal.settled(stored: false)
                        save.done?(.failure(failure))
                    }
                }
            })
        }
    }

    /// One save in SQLite: prunes what expired, updates the row of the same identity or inserts one,
    /// and keeps the app within `cap`.
    private static func write(
        _ activity: ActivityToSave, now: Int64, recency: Int64, cap: Int, counts: AppCounts, _ db: Database
    ) throws -> Int64 {
        try db.execute(sql: "DELETE FROM activity WHERE expires IS NOT NULL AND expires <= ?", arguments: [now])
        if db.changesCount > 0 { counts.withLock { $0 = nil } }
        let fields: [(any DatabaseValueConvertible)?] = [
            activity.activityType, activity.title, activity.keywords.joined(separator: SavedRecord.keywordSeparator),
            activity.persistentIdentifier,
            activity.expirationDate, now, recency, activity.payload, activity.appID, activity.identity,
        ]
        if let id = try Int64.fetchOne(
            db, sql: "SELECT id FROM activity WHERE app_id = ? AND identity = ?", arguments: [activity.appID, activity.identity])
        {
            try db.execute(
                sql: """
                    UPDATE activity SET activity_type = ?, title = ?, keywords = ?, persistent_identifier = ?, expires = ?,
                      last_used = ?, recency = ?, payload = ? WHERE app_id = ? AND identity = ?
                    """,
                arguments: StatementArguments(fields))
            return id
        }
        try db.execute(
            sql: """
                INSERT INTO activity (activity_type, title, keywords, persistent_identifier, expires, last_used, recency,
                                      payload, app_id, identity)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: StatementArguments(fields))
        let id = db.lastInsertedRowID
        let known = counts.withLock { $0?[activity.appID] }
        let count = try known.map { $0 + 1 }
            ?? Int.fetchOne(db, sql: "SELECT COUNT(*) FROM activity WHERE app_id = ?", arguments: [activity.appID]) ?? 0
        if count > cap {
            try db.execute(
                sql: "DELETE FROM activity WHERE id IN (SELECT id FROM activity WHERE app_id = ? ORDER BY recency LIMIT ?)",
                arguments: [activity.appID, count - cap])
        }
        counts.withLock { $0?[activity.appID] = min(count, cap) }
        return id
    }

    /// Deletes the app's saved activities with these persistent identifiers; identifiers nobody saved
    /// are ignored.
    /// - Returns: how many were deleted.
    /// - Throws: `notOwner` (and deletes nothing) when one is saved by another app only.
    @discardableResult
    public func delete(appID: String, persistentIdentifiers: [String]) async throws(StoreError) -> Int {
        guard !persistentIdentifiers.isEmpty else { return 0 }
        let pool = state.withLock { $0.pool }
        let counts = counts
        let result: Result<Int, StoreError> = try await run(pool) { db in
            let placeholders = Array(repeating: "?", count: persistentIdentifiers.count).joined(separator: ", ")
            let mine = Set(try String.fetchAll(
                db, sql: "SELECT persistent_identifier FROM activity WHERE app_id = ? AND persistent_identifier IN (\(placeholders))",
                arguments: StatementArguments([appID] + persistentIdentifiers)))
            let others = try String.fetchAll(
                db, sql: "SELECT persistent_identifier FROM activity WHERE app_id != ? AND persistent_identifier IN (\(placeholders))",
                arguments: StatementArguments([appID] + persistentIdentifiers))
            if let foreign = others.first(where: { !mine.contains($0) }) {
                return .failure(.notOwner(persistentIdentifier: foreign, appID: appID))
            }
            try db.execute(
                sql: "DELETE FROM activity WHERE app_id = ? AND persistent_identifier IN (\(placeholders))",
                arguments: StatementArguments([appID] + persistentIdentifiers))
            counts.withLock { _ = $0?.removeValue(forKey: appID) }
            return .success(db.changesCount)
        }
        return try result.get()
    }

    /// Deletes every saved activity of the app.
    /// - Returns: how many were deleted.
    @discardableResult
    public func deleteAll(appID: String) async throws(StoreError) -> Int {
        let pool = state.withLock { $0.pool }
        let counts = counts
        return try await run(pool) { db in
            try db.execute(sql: "DELETE FROM activity WHERE app_id = ?", arguments: [appID])
            counts.withLock { $0?[appID] = 0 }
            return db.changesCount
        }
    }

    // MARK: Reading (expired rows never come back)

    /// How many of the most recently used matches a search ranks: its cost stays bounded however
    /// many activities share a word (100,000 saved, a one-letter prefix).
    public static let rankedMatches = 1000

    /// The saved activities whose title or keywords hold a word starting with each word of `terms`,
    /// best first: FTS5's bm25 (a title word counts twice a keyword) over the `rankedMatches` most
    /// recently used matches, then the most recently used.
    public func search(_ terms: [String], limit: Int) async throws(StoreError) -> [SavedRecord] {
        try await search(terms, limit: limit, columns: Self.columns, Self.record)
    }

    /// `search`'s ids alone, in its order (what the desktop's search asks for first).
    public func searchIDs(_ terms: [String], limit: Int) async throws(StoreError) -> [Int64] {
        try await search(terms, limit: limit, columns: "a.id") { $0[0] }
    }

    private func search<Value: Sendable>(
        _ terms: [String], limit: Int, columns: String, _ read: @escaping @Sendable (Row) -> Value
    ) async throws(StoreError) -> [Value] {
        guard let query = SearchQuery.make(terms), limit > 0 else { return [] }
        let now = clock()
        let pool = state.withLock { $0.pool }
        return try await self.read(pool) { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(columns) FROM (
                      SELECT rowid AS recency, bm25(activity_text, 2.0, 1.0) AS score FROM activity_text
                      WHERE activity_text MATCH ? ORDER BY rowid DESC LIMIT \(Self.rankedMatches)) m
                    JOIN activity a ON a.recency = m.recency
                    WHERE a.expires IS NULL OR a.expires > ?
                    ORDER BY m.score, m.recency DESC LIMIT ?
                    """,
                arguments: [query, now, limit]
            ).map(read)
        }
    }

    /// The app's saved activities (every app's when nil), most recently used first.
    public func list(appID: String?) async throws(StoreError) -> [SavedRecord] {
        let now = clock()
        let pool = state.withLock { $0.pool }
        return try await read(pool) { db in
            let live = "(a.expires IS NULL OR a.expires > ?)"
            if let appID {
                return try Row.fetchAll(
                    db, sql: "SELECT \(Self.columns) FROM activity a WHERE a.app_id = ? AND \(live) ORDER BY a.recency DESC",
                    arguments: [appID, now]
                ).map(Self.record)
            }
            return try Row.fetchAll(
                db, sql: "SELECT \(Self.columns) FROM activity a WHERE \(live) ORDER BY a.recency DESC", arguments: [now]
            ).map(Self.record)
        }
    }

    /// The saved activity with this id, unless it was deleted or has expired.
    public func record(id: Int64) async throws(StoreError) -> SavedRecord? {
        let now = clock()
        let pool = state.withLock { $0.pool }
        return try await read(pool) { db in
            try Row.fetchOne(
                db, sql: "SELECT \(Self.columns) FROM activity a WHERE a.id = ? AND (a.expires IS NULL OR a.expires > ?)",
                arguments: [id, now]
            ).map(Self.record)
        }
    }

    /// Deletes the expired activities now.
    /// - Returns: how many.
    @discardableResult
    public func prune() async throws(StoreError) -> Int {
        let now = clock()
        let pool = state.withLock { $0.pool }
        let counts = counts
        return try await run(pool) { db in
            try db.execute(sql: "DELETE FROM activity WHERE expires IS NOT NULL AND expires <= ?", arguments: [now])
            if db.changesCount > 0 { counts.withLock { $0 = nil } }
            return db.changesCount
        }
    }

    private static let columns =
        "a.id, a.app_id, a.activity_type, a.title, a.persistent_identifier, a.expires, a.last_used, a.payload, a.keywords"

    private static func record(_ row: Row) -> SavedRecord {
        SavedRecord(
            id: row[0], appID: row[1], activityType: row[2], title: row[3], persistentIdentifier: row[4],
            expirationDate: row[5], lastUsed: row[6], payload: row[7],
            keywords: (row[8] as String).split(separator: SavedRecord.keywordSeparator).map(String.init))
    }

    // MARK: Running statements, and a file found corrupt later

    private func run<Value: Sendable>(_ pool: DatabasePool, _ body: @escaping @Sendable (Database) throws -> Value) async throws(StoreError) -> Value {
        writeCount.withLock { $0 += 1 }
        flush()
        do { return try await pool.write(body) } catch {
            throw recover(from: error, pool)
        }
    }

    /// Reads once SQLite has every save made before.
    private func read<Value: Sendable>(_ pool: DatabasePool, _ body: @escaping @Sendable (Database) throws -> Value) async throws(StoreError) -> Value {
        writeCount.withLock { $0 += 1 }
        do {
            if journal.pending > 0 {
                flush()
                try await pool.writeWithoutTransaction { _ in }
            }
            return try await pool.read(body)
        } catch {
            throw recover(from: error, pool)
        }
    }

    /// A statement that finds the file corrupt sets it aside and starts an empty store (once per
    /// pool: the first caller to see it does it); the statement itself still fails.
    private func recover(from error: any Error, _ failed: DatabasePool) -> StoreError {
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
                let opened = try Self.open(path, now: now)
                (state.pool, state.recency) = (opened.pool, opened.recency)
            } catch {
                log("the activity store \(path) could not be rebuilt: \(error)")
            }
        }
        return .database(Self.reason(error))
    }

    private static func isDamage(_ error: DatabaseError) -> Bool {
        error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB
    }

    private static func reason(_ error: any Error) -> String {
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
private final class AppCounts: Sendable {
    private let counts = Mutex<[String: Int]?>([:])

    func withLock<Value>(_ body: (inout [String: Int]?) -> Value) -> Value { counts.withLock { body(&$0) } }
}
