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
///   waits (group commit). The file is in WAL mode with `synchronous = NORMAL`: a killed process
///   loses only what it acknowledged and had not committed — at most about `Limits.queuedSaves`,
///   always the newest (never a hole); a power loss may lose the last commits too.
/// - A commit that fails (a full disk, a lock, a read-only file) loses nothing: its saves are kept
///   in order, and `enqueue` refuses new ones (`StoreError.cannotWrite`) until a commit succeeds:
///   a `save` or another write tries at once, and the kept saves are tried again after
///   `Limits.retryDelay`, doubling.
/// - Every read and write first commits what is queued: a search finds what was just published.
///   Every read is bounded (ActivityStore+Reading.swift); expired activities are never returned.
/// - At most `Limits.perApplication` rows per app (the least recently used dropped); a payload
///   over `Limits.payloadBytes` is refused.
/// - Only the store's own file is used (ActivityStore+Files.swift): one SQLite finds damaged, or
///   anything that is not the store's (a link, another program's database, a layout no release
///   wrote), is renamed aside untouched, logged, and an empty store made in its place. A file
///   another process holds locked fails that call with `StoreError.locked`, and is used once free.
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

        /// The most activities a page of a listing holds.
        public var pageActivities: Int
        /// The most payload bytes a page or a search returns after its first activity's: what one
        /// read can make the daemon hold and send, whatever the store holds.
        public var pageBytes: Int

        /// How long after a failed commit its saves are tried again (doubling, up to 64 times it).
        public var retryDelay: Duration

        public init(
            perApplication: Int = 10_000, payloadBytes: Int = 64 * 1024, queuedSaves: Int = 256,
            commitDelay: Duration = .milliseconds(10), busyTimeout: Duration = .seconds(5),
            pageActivities: Int = 100, pageBytes: Int = 1024 * 1024, retryDelay: Duration = .seconds(1)
        ) {
            self.perApplication = perApplication
            self.payloadBytes = payloadBytes
            self.queuedSaves = queuedSaves
            self.commitDelay = commitDelay
            self.busyTimeout = busyTimeout
            self.pageActivities = pageActivities
            self.pageBytes = pageBytes
            self.retryDelay = retryDelay
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
    /// runs them one at a time); forgotten when expired rows are deleted, which may be any app's,
    /// and after a transaction that failed, whose counts were never written (kept, they would make
    /// the next save drop the app's rows for a cap they never reached).
    let counts: AppCounts
    /// Saves acknowledged and not yet committed (ActivityStore+Queue.swift).
    let queue = Mutex(SaveQueue())
    let writeCount = Mutex(0)
    /// What the reader's statements have read, over the store's life.
    let readTotals = Mutex(ReadCounts())

    /// How many reads and writes the store has made: the daemon hands freed memory back after bursts of them.
    public var accesses: Int { writeCount.withLock { $0 } }

    /// What reads have read so far (rows, payloads and their bytes): the difference over a call is its cost.
    public var reads: ReadCounts { readTotals.withLock { $0 } }

    /// When the store's file is first opened.
    public enum Opening: Sendable {
        /// By `init`, which sets a damaged or foreign file aside before it returns.
        case now
        /// By the first save or read, on the writer's thread, with the same care: the directory
        /// made, a damaged or foreign file set aside and an empty store made before that call
        /// goes on, a lock another process holds logged once. What a daemon that may never be
        /// asked for an activity does: its start-up opens nothing.
        case onFirstUse
    }

    /// Opens (or creates) the store at `path`, creating its directory (at `opening`).
    /// - Parameters:
    ///   - clock: the current Unix time in seconds (tests move it to expire activities).
    ///   - log: told, for the daemon's log, when a file is set aside (damaged, or not the store's), is
    ///     locked, or cannot be written, and when it is written again.
    /// - Throws: `StoreError.unavailable` when neither the file nor a new one in its place can be
    ///   used; not when another process holds it locked (logged; the next use tries again). Never
    ///   for `.onFirstUse`: the uses fail instead, each naming why.
    public init(
        path: String, limits: Limits = Limits(), clock: @escaping @Sendable () -> Int64 = ActivityStore.unixTime,
        opening: Opening = .now, log: @escaping @Sendable (String) -> Void
    ) throws(StoreError) {
        self.path = path
        self.limits = limits
        self.clock = clock
        self.log = log
        let file = OpenFile()
        self.file = file
        let counts = AppCounts()
        self.counts = counts
        let busyTimeout = limits.busyTimeout
        let reader = SerialConnection(label: "waypost.activities.reader") { () throws(SQLiteError) in
            try Self.openReader(path, busyTimeout: busyTimeout)
        }
        self.reader = reader
        let firstUse = opening == .onFirstUse ? FirstUse() : nil
        writer = SerialConnection(label: "waypost.activities.writer") { () throws(SQLiteError) in
            let connection = if let firstUse {
                try Self.openWriterAtFirstUse(
                    path, busyTimeout: busyTimeout, clock: clock, counts: counts, log: log, firstUse: firstUse,
                    settingAside: { file.withLock { $0 = ($0.generation + 1, false) }; reader.close() })
            } else {
                try Self.openWriter(path, busyTimeout: busyTimeout, now: clock(), counts: counts)
            }
            file.withLock { $0.ready = true }
            return connection
        }
        guard opening == .now else { return }
        try Self.makeDirectory(containing: path)
        switch writer.sync({ _ in }) {
        case .success: break
        case .failure(let error) where error.isBusy:
            log("the activity store \(path) is locked by another process (\(error)); it is used once the lock is gone, and stays as it is")
        case .failure(let error) where error.isDamage || error.isForeign:
            let aside = try Self.setAside(path, error, now: clock())
            log("the activity store \(path) \(error.isForeign ? "is not the store's" : "could not be read") (\(error.message)); moved it to \(aside) untouched and started an empty one")
            if case .failure(let error) = writer.sync({ _ in }) { throw .unavailable(path: path, reason: error.description) }
        case .failure(let error):
            throw .unavailable(path: path, reason: error.description)
        }
    }

    // MARK: Running statements, and a file found damaged later

    /// On the writer's queue: takes every queued save and writes them, then `body`, in one
    /// transaction, so that writes apply in the order they were asked. When it fails, the saves
    /// are kept for the next commit (`keep`), never dropped.
    func writeQueued<Value: Sendable>(
        then body: (Connection) throws(SQLiteError) -> Value
    ) -> (result: Result<Value, SQLiteError>, batch: SaveQueue.Batch) {
        let (saves, batch) = takeQueued()
        let cap = limits.perApplication
        let counts = counts
        let result = writer.withConnection { db throws(SQLiteError) in
            try db.transaction { () throws(SQLiteError) in
                try Self.write(saves, cap: cap, counts: counts, db)
                return try body(db)
            }
        }
        switch result {
        case .success: wrote()
        case .failure(let error):
            counts.withLock { $0 = [:] }
            keep(saves, error)
        }
        return (result, batch)
    }

    /// Runs a write transaction that first writes every queued save.
    func run<Value: Sendable>(_ body: @escaping @Sendable (Connection) throws(SQLiteError) -> Value) async throws(StoreError) -> Value {
        writeCount.withLock { $0 += 1 }
        let generation = file.withLock { $0.generation }
        let (result, batch) = await withCheckedContinuation { continuation in
            writer.async { continuation.resume(returning: self.writeQueued(then: body)) }
        }
        finish(batch)
        switch result {
        case .success(let value): return value
        case .failure(let error):
            let failure = recover(from: error, generation)
            guard case .database = failure, !error.isDamage, !error.isForeign else { throw failure }
            throw .cannotWrite(path: path, error, waiting: queue.withLock { $0.waiting.count })
        }
    }

    /// Reads what was committed, once every save queued before the call is, on the reader's queue.
    func read<Value: Sendable>(_ body: @escaping @Sendable (Connection) throws(SQLiteError) -> Value) async throws(StoreError) -> Value {
        await committed()
        writeCount.withLock { $0 += 1 }
        let (generation, ready) = file.withLock { ($0.generation, $0.ready) }
        let body = { @Sendable (db: Connection) throws(SQLiteError) -> Value in
            let before = db.reads
            defer { self.readTotals.withLock { $0 = $0 + (db.reads - before) } }
            return try body(db)
        }
        do { return try await reader.run(body) } catch where !ready && !error.isBusy && !error.isDamage && !error.isForeign {
            // A file the writer has not opened (set aside, or locked at start) may not exist yet or
            // lack its layout: the writer makes them, then the reader tries once more. A file that
            // is there is read at once, even while another process holds the write lock.
            _ = try? await writer.run { _ throws(SQLiteError) in }
            do { return try await reader.run(body) } catch { throw recover(from: error, generation) }
        } catch {
            throw recover(from: error, generation)
        }
    }

    /// A statement that finds the file damaged, or not the store's, sets it aside, and the next use
    /// starts an empty store (once per file: the first caller to see it does it); the statement
    /// itself still fails. A file locked by another process is only reported.
    func recover(from error: SQLiteError, _ generation: Int) -> StoreError {
        if error.isBusy { return .locked(path: path, error) }
        guard error.isDamage || error.isForeign else { return .database(error) }
        file.withLock { file in
            guard file.generation == generation else { return }
            file = (generation + 1, false)
            writer.close()
            reader.close()
            do {
                let aside = try Self.setAside(path, error, now: clock())
                log("the activity store \(path) \(error.isForeign ? "is not the store's" : "is damaged") (\(error.message)); moved it to \(aside) untouched and started an empty one")
            } catch {
                log("the activity store \(path) could not be rebuilt: \(error)")
            }
        }
        return .database(error)
    }
}

/// Whether a store opened at first use has said that another process holds its file locked.
final class FirstUse: Sendable {
    private let lockLogged = Atomic<Bool>(false)

    /// True the first time only.
    func lockIsNews() -> Bool { !lockLogged.exchange(true, ordering: .relaxed) }
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
