// Saving and deleting, each in a transaction that first commits the queued saves.
import FoundationEssentials
import GRDB
import Synchronization

extension ActivityStore {
    // MARK: Writing

    /// Saves the activity after every queued one, replacing the app's row of the same identity
    /// (keeping its id), and drops the app's least recently used rows beyond the limit. Returns once
    /// the transaction committed; the caller is suspended meanwhile, not blocked.
    /// - Returns: the saved row's id.
    /// - Throws: `payloadTooLarge`; `database` when SQLite failed it.
    @discardableResult
    public func save(_ activity: ActivityToSave) async throws(StoreError) -> Int64 {
        guard activity.payload.count <= limits.payloadBytes else {
            throw .payloadTooLarge(appID: activity.appID, bytes: activity.payload.count, limit: limits.payloadBytes)
        }
        let now = clock()
        let cap = limits.perApplication
        let counts = counts
        let pool = state.withLock { $0.pool }
        return try await run(pool) { db in try Self.write([(activity, now)], cap: cap, counts: counts, db)[0] }
    }

    /// Saves in one transaction, in order: prunes what expired, then updates each one's row of the
    /// same identity or inserts one, and keeps its app within `cap`. Recency follows the order of
    /// the saves, since the writer runs transactions one at a time.
    /// - Returns: the saved rows' ids.
    @discardableResult
    static func write(_ saves: [(activity: ActivityToSave, at: Int64)], cap: Int, counts: AppCounts, _ db: Database) throws -> [Int64] {
        guard let latest = saves.last?.at else { return [] }
        try db.cachedStatement(sql: "DELETE FROM activity WHERE expires IS NOT NULL AND expires <= ?").execute(arguments: [latest])
        if db.changesCount > 0 { counts.withLock { $0 = nil } }
        var recency = try Int64.fetchOne(db.cachedStatement(sql: "SELECT MAX(recency) FROM activity")) ?? 0
        return try saves.map { save in
            recency += 1
            return try write(save.activity, now: save.at, recency: recency, cap: cap, counts: counts, db)
        }
    }

    private static func write(_ activity: ActivityToSave, now: Int64, recency: Int64, cap: Int, counts: AppCounts, _ db: Database) throws -> Int64 {
        let fields: [(any DatabaseValueConvertible)?] = [
            activity.activityType, activity.title, activity.keywords.joined(separator: SavedRecord.keywordSeparator),
            activity.persistentIdentifier,
            activity.expirationDate, now, recency, activity.payload, activity.appID, activity.identity,
        ]
        if let id = try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT id FROM activity WHERE app_id = ? AND identity = ?"),
            arguments: [activity.appID, activity.identity])
        {
            try db.cachedStatement(sql: """
                UPDATE activity SET activity_type = ?, title = ?, keywords = ?, persistent_identifier = ?, expires = ?,
                  last_used = ?, recency = ?, payload = ? WHERE app_id = ? AND identity = ?
                """).execute(arguments: StatementArguments(fields))
            return id
        }
        try db.cachedStatement(sql: """
            INSERT INTO activity (activity_type, title, keywords, persistent_identifier, expires, last_used, recency,
                                  payload, app_id, identity)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: StatementArguments(fields))
        let id = db.lastInsertedRowID
        let known = counts.withLock { $0?[activity.appID] }
        let count = try known.map { $0 + 1 }
            ?? Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM activity WHERE app_id = ?"), arguments: [activity.appID]) ?? 0
        if count > cap {
            try db.cachedStatement(
                sql: "DELETE FROM activity WHERE id IN (SELECT id FROM activity WHERE app_id = ? ORDER BY recency LIMIT ?)"
            ).execute(arguments: [activity.appID, count - cap])
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
