// Saving and deleting, each in a transaction that first commits the queued saves.
import FoundationEssentials
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
        return try await run { db throws(SQLiteError) in try Self.write([(activity, now)], cap: cap, counts: counts, db)[0] }
    }

    /// Saves in one transaction, in order: prunes what expired, then updates each one's row of the
    /// same identity or inserts one, and keeps its app within `cap`. Recency follows the order of
    /// the saves, since the writer runs transactions one at a time.
    /// - Returns: the saved rows' ids.
    @discardableResult
    static func write(_ saves: [(activity: ActivityToSave, at: Int64)], cap: Int, counts: AppCounts, _ db: Connection) throws(SQLiteError) -> [Int64] {
        guard let latest = saves.last?.at else { return [] }
        try deleteExpired(at: latest, counts: counts, db)
        // MAX of no rows is NULL, which reads as 0.
        var recency = try db.statement("SELECT MAX(recency) FROM activity").value(Int64.self) ?? 0
        var ids: [Int64] = []
        ids.reserveCapacity(saves.count)
        for save in saves {
            recency += 1
            ids.append(try write(save.activity, now: save.at, recency: recency, cap: cap, counts: counts, db))
        }
        return ids
    }

    /// Deletes what expired by `now`, the one place that does: when the writer opens a file, and
    /// at the start of each commit of saves. Reads skip expired rows themselves, so none is
    /// returned in between. Any app's rows may go, so the counts are forgotten when one did.
    static func deleteExpired(at now: Int64, counts: AppCounts, _ db: Connection) throws(SQLiteError) {
        try db.statement("DELETE FROM activity WHERE expires IS NOT NULL AND expires <= ?").bind(now).run()
        if db.changes > 0 { counts.withLock { $0 = [:] } }
    }

    private static func write(
        _ activity: ActivityToSave, now: Int64, recency: Int64, cap: Int, counts: AppCounts, _ db: Connection
    ) throws(SQLiteError) -> Int64 {
        let keywords = activity.keywords.joined(separator: SavedRecord.keywordSeparator)
        let identity = activity.identity
        if let id = try db.statement("SELECT id FROM activity WHERE app_id = ? AND identity = ?").bind(activity.appID, identity).value(Int64.self) {
            try db.statement("""
                UPDATE activity SET activity_type = ?, title = ?, keywords = ?, persistent_identifier = ?, expires = ?,
                  last_used = ?, recency = ?, payload = ? WHERE app_id = ? AND identity = ?
                """).bind(
                    activity.activityType, activity.title, keywords, activity.persistentIdentifier, activity.expirationDate,
                    now, recency, activity.payload, activity.appID, identity
                ).run()
            return id
        }
        try db.statement("""
            INSERT INTO activity (activity_type, title, keywords, persistent_identifier, expires, last_used, recency,
                                  payload, app_id, identity)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).bind(
                activity.activityType, activity.title, keywords, activity.persistentIdentifier, activity.expirationDate,
                now, recency, activity.payload, activity.appID, identity
            ).run()
        let id = db.lastInsertedRowID
        let known = counts.withLock { $0?[activity.appID] }
        var count = 0
        if let known { count = known + 1 } else {
            count = try db.statement("SELECT COUNT(*) FROM activity WHERE app_id = ?").bind(activity.appID).value(Int.self) ?? 0
        }
        if count > cap {
            try db.statement("DELETE FROM activity WHERE id IN (SELECT id FROM activity WHERE app_id = ? ORDER BY recency LIMIT ?)")
                .bind(activity.appID, count - cap).run()
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
        let counts = counts
        let result: Result<Int, StoreError> = try await run { db throws(SQLiteError) in
            // The list's length varies, so these statements are prepared for this call only.
            let placeholders = Array(repeating: "?", count: persistentIdentifiers.count).joined(separator: ", ")
            func identifiers(_ sql: String) throws(SQLiteError) -> [String] {
                try db.prepare(sql).bind(appID).bind(persistentIdentifiers, from: 2).rows { row -> String in row[0] }
            }
            let mine = Set(try identifiers("SELECT persistent_identifier FROM activity WHERE app_id = ? AND persistent_identifier IN (\(placeholders))"))
            let others = try identifiers("SELECT persistent_identifier FROM activity WHERE app_id != ? AND persistent_identifier IN (\(placeholders))")
            if let foreign = others.first(where: { !mine.contains($0) }) {
                return .failure(.notOwner(persistentIdentifier: foreign, appID: appID))
            }
            try db.prepare("DELETE FROM activity WHERE app_id = ? AND persistent_identifier IN (\(placeholders))")
                .bind(appID).bind(persistentIdentifiers, from: 2).run()
            counts.withLock { _ = $0?.removeValue(forKey: appID) }
            return .success(db.changes)
        }
        return try result.get()
    }

    /// Deletes every saved activity of the app.
    /// - Returns: how many were deleted.
    @discardableResult
    public func deleteAll(appID: String) async throws(StoreError) -> Int {
        let counts = counts
        return try await run { db throws(SQLiteError) in
            try db.statement("DELETE FROM activity WHERE app_id = ?").bind(appID).run()
            counts.withLock { $0?[appID] = 0 }
            return db.changes
        }
    }
}
