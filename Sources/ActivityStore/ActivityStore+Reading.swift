// Reading: the desktop's searches and lists; expired rows never come back.
import FoundationEssentials
import Synchronization

extension ActivityStore {
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
        try await search(terms, limit: limit, columns: "a.id") { row -> Int64 in row[0] }
    }

    private func search<Value: Sendable>(
        _ terms: [String], limit: Int, columns: String, _ read: @escaping @Sendable (Row) -> Value
    ) async throws(StoreError) -> [Value] {
        guard let query = SearchQuery.make(terms), limit > 0 else { return [] }
        let now = clock()
        return try await self.read { db throws(SQLiteError) in
            try db.statement(
                """
                    SELECT \(columns) FROM (
                      SELECT rowid AS recency, bm25(activity_text, 2.0, 1.0) AS score FROM activity_text
                      WHERE activity_text MATCH ? ORDER BY rowid DESC LIMIT \(Self.rankedMatches)) m
                    JOIN activity a ON a.recency = m.recency
                    WHERE a.expires IS NULL OR a.expires > ?
                    ORDER BY m.score, m.recency DESC LIMIT ?
                    """
            ).bind(query, now, limit).rows(read)
        }
    }

    /// The app's saved activities (every app's when nil), most recently used first.
    public func list(appID: String?) async throws(StoreError) -> [SavedRecord] {
        let now = clock()
        return try await read { db throws(SQLiteError) in
            let live = "(a.expires IS NULL OR a.expires > ?)"
            if let appID {
                return try db.statement("SELECT \(Self.columns) FROM activity a WHERE a.app_id = ? AND \(live) ORDER BY a.recency DESC")
                    .bind(appID, now).rows(Self.record)
            }
            return try db.statement("SELECT \(Self.columns) FROM activity a WHERE \(live) ORDER BY a.recency DESC")
                .bind(now).rows(Self.record)
        }
    }

    /// The saved activity with this id, unless it was deleted or has expired.
    public func record(id: Int64) async throws(StoreError) -> SavedRecord? {
        let now = clock()
        return try await read { db throws(SQLiteError) in
            try db.statement("SELECT \(Self.columns) FROM activity a WHERE a.id = ? AND (a.expires IS NULL OR a.expires > ?)")
                .bind(id, now).rows(Self.record).first
        }
    }

    /// Deletes the expired activities now.
    /// - Returns: how many.
    @discardableResult
    public func prune() async throws(StoreError) -> Int {
        let now = clock()
        let counts = counts
        return try await run { db throws(SQLiteError) in
            try db.statement("DELETE FROM activity WHERE expires IS NOT NULL AND expires <= ?").bind(now).run()
            let deleted = db.changes
            if deleted > 0 { counts.withLock { $0 = nil } }
            return deleted
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
}
