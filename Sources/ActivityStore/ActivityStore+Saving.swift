// Saving: journaled at once, handed to SQLite in batches; deleting.
import Dispatch
import FoundationEssentials
import GRDB
import Glibc
import Synchronization

extension ActivityStore {
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
    func flush() {
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
    static func write(
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
}
