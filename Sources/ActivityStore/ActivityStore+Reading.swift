// Reading: the desktop's searches, lists and menus. Every read is bounded whatever the store holds
// (any process may ask): a page or a menu steps through at most the rows it may show, a search
// ranks a bounded set of matches by index alone, and payloads are read only for what is returned,
// up to `Limits.pageBytes`. Expired rows never come back: a read steps over them (they count
// towards its rows, so the bound holds), and the next save deletes them.
import FoundationEssentials
import Synchronization

extension ActivityStore {
    /// How many of the most recently used matches a search ranks: its cost stays bounded however
    /// many activities share a word (100,000 saved, a one-letter prefix).
    public static let rankedMatches = 1000

    /// The saved activities whose title or keywords hold a word starting with each word of `terms`,
    /// best first: FTS5's bm25 (a title word counts twice a keyword) over the `rankedMatches` most
    /// recently used matches, then the most recently used. At most `limit` (and `rankedMatches`),
    /// and payloads of at most `Limits.pageBytes` after the first: the rest are left out.
    /// - Throws: `tooManyWords`, `wordTooLong` (`SearchQuery`), before anything is read.
    public func search(_ terms: [String], limit: Int) async throws(StoreError) -> [SavedRecord] {
        guard let query = try SearchQuery.make(terms), limit > 0 else { return [] }
        let (now, count, bytes) = (clock(), min(limit, Self.rankedMatches), limits.pageBytes)
        return try await read { db throws(SQLiteError) in
            let ids = try Self.ranked(query, now: now, limit: count, db)
            var records: [SavedRecord] = []
            var taken = 0
            for id in ids {
                var within = true
                try db.statement("SELECT \(Self.columns), length(a.payload) FROM activity a WHERE a.id = ?").bind(id).forEachRow { row in
                    let size: Int = row[9]
                    within = records.isEmpty || taken + size <= bytes
                    if within { records.append(Self.record(row)) }
                    taken += size
                    return false
                }
                if !within { break }
            }
            return records
        }
    }

    /// `search`'s ids alone, in its order (what the desktop's search asks for first): no row is read.
    public func searchIDs(_ terms: [String], limit: Int) async throws(StoreError) -> [Int64] {
        guard let query = try SearchQuery.make(terms), limit > 0 else { return [] }
        let (now, count) = (clock(), min(limit, Self.rankedMatches))
        return try await read { db throws(SQLiteError) in try Self.ranked(query, now: now, limit: count, db) }
    }

    /// The ids of the best matches, from FTS5's index and `activity_by_recency` alone (it holds the
    /// id and expiry): the ranking reads no row of `activity`, whatever its payloads weigh.
    private static func ranked(_ query: String, now: Int64, limit: Int, _ db: Connection) throws(SQLiteError) -> [Int64] {
        try db.statement(
            """
                SELECT a.id FROM (
                  SELECT rowid AS recency, bm25(activity_text, 2.0, 1.0) AS score FROM activity_text
                  WHERE activity_text MATCH ? ORDER BY rowid DESC LIMIT \(rankedMatches)) m
                JOIN activity a INDEXED BY activity_by_recency ON a.recency = m.recency
                WHERE a.expires IS NULL OR a.expires > ?
                ORDER BY m.score, m.recency DESC LIMIT ?
                """
        ).bind(query, now, limit).rows { row -> Int64 in row[0] }
    }

    /// One page of the app's saved activities (every app's when nil), most recently used first:
    /// those used before the page that ended at `after` (nil: from the most recent), at most
    /// `limit` (and `Limits.pageActivities`) and payloads of at most `Limits.pageBytes` after the
    /// first. It steps through at most `limit` rows: an expired one is skipped, not replaced, so a
    /// page may hold fewer, even none, and still have a next one.
    public func list(appID: String?, after: Int64? = nil, limit: Int) async throws(StoreError) -> SavedPage {
        let (now, count, bytes) = (clock(), max(1, min(limit, limits.pageActivities)), limits.pageBytes)
        let start = after ?? Int64.max
        return try await read { db throws(SQLiteError) in
            let columns = "\(Self.columns), length(a.payload), a.recency"
            let statement = if let appID {
                try db.statement("SELECT \(columns) FROM activity a WHERE a.app_id = ? AND a.recency < ? ORDER BY a.recency DESC LIMIT ?")
                    .bind(appID, start, count)
            } else {
                try db.statement("SELECT \(columns) FROM activity a WHERE a.recency < ? ORDER BY a.recency DESC LIMIT ?").bind(start, count)
            }
            var page = SavedPage(records: [], next: nil)
            var (stepped, taken, last, full) = (0, 0, Int64?.none, false)
            try statement.forEachRow { row in
                let (expires, size, recency): (Int64?, Int, Int64) = (row[5], row[9], row[10])
                if (expires ?? .max) > now {
                    guard page.records.isEmpty || taken + size <= bytes else {
                        full = true
                        return false
                    }
                    page.records.append(Self.record(row))
                    taken += size
                }
                stepped += 1
                last = recency
                return true
            }
            if full || stepped == count { page.next = last }
            return page
        }
    }

    /// The app's `limit` most recently used saved activities, as a menu shows them: no payload is
    /// read, and no more than `limit` rows (an expired one is skipped, not replaced).
    public func recent(appID: String, limit: Int) async throws(StoreError) -> [SavedSummary] {
        let now = clock()
        return try await read { db throws(SQLiteError) in
            try db.statement("SELECT \(Self.summaryColumns) FROM activity a WHERE a.app_id = ? ORDER BY a.recency DESC LIMIT ?")
                .bind(appID, max(0, limit)).rows(Self.summary).filter { ($0.expires ?? .max) > now }.map(\.summary)
        }
    }

    /// What menus and result lists show of these saved activities, in the order asked; ids that are
    /// not (or no longer) saved are left out. One row each, no payload.
    public func summaries(ids: [Int64]) async throws(StoreError) -> [SavedSummary] {
        let now = clock()
        return try await read { db throws(SQLiteError) in
            var summaries: [SavedSummary] = []
            for id in ids {
                let row = try db.statement("SELECT \(Self.summaryColumns) FROM activity a WHERE a.id = ?").bind(id).rows(Self.summary).first
                if let row, (row.expires ?? .max) > now { summaries.append(row.summary) }
            }
            return summaries
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

    private static let columns =
        "a.id, a.app_id, a.activity_type, a.title, a.persistent_identifier, a.expires, a.last_used, a.payload, a.keywords"

    private static func record(_ row: Row) -> SavedRecord {
        SavedRecord(
            id: row[0], appID: row[1], activityType: row[2], title: row[3], persistentIdentifier: row[4],
            expirationDate: row[5], lastUsed: row[6], payload: row[7],
            keywords: (row[8] as String).split(separator: SavedRecord.keywordSeparator).map(String.init))
    }

    private static let summaryColumns = "a.id, a.app_id, a.activity_type, a.title, a.expires"

    private static func summary(_ row: Row) -> (summary: SavedSummary, expires: Int64?) {
        (SavedSummary(id: row[0], appID: row[1], activityType: row[2], title: row[3]), row[4])
    }
}
