public import FoundationEssentials

/// An activity to save: what the store indexes beside the payload it keeps untouched.
public struct ActivityToSave: Sendable, Hashable, Codable {
    public var appID: String
    public var activityType: String
    public var title: String
    public var keywords: [String]
    /// With it, the saved activity is the app's one with this identifier; without it, the app's one
    /// of this type and `target`.
    public var persistentIdentifier: String?
    /// The target content identifier, else the webpage URL: what identifies it without a persistent one.
    public var target: String?
    /// Unix seconds; nil never expires.
    public var expirationDate: Int64?
    /// The activity as it will be handed back (the daemon's encoding of its dictionary).
    public var payload: Data

    public init(
        appID: String, activityType: String, title: String, keywords: [String], persistentIdentifier: String?,
        target: String?, expirationDate: Int64?, payload: Data
    ) {
        (self.appID, self.activityType, self.title, self.keywords) = (appID, activityType, title, keywords)
        (self.persistentIdentifier, self.target, self.expirationDate, self.payload) =
            (persistentIdentifier, target, expirationDate, payload)
    }

    /// What makes two saves the same row of the app's.
    var identity: String {
        if let persistentIdentifier { return "p\u{1F}" + persistentIdentifier }
        return "t\u{1F}" + activityType + "\u{1F}" + (target ?? "")
    }
}

/// A payload the store's writer makes when it commits, off the thread that queued it.
public struct DeferredPayload: Sendable {
    /// What the caller proved the payload cannot exceed: what `enqueue` checks against the limit.
    public var bound: Int
    public var make: @Sendable () throws -> Data

    public init(bound: Int, make: @escaping @Sendable () throws -> Data) {
        self.bound = bound
        self.make = make
    }
}

/// A saved activity as the store returns it.
public struct SavedRecord: Sendable, Hashable {
    /// Stable for the row's life: replacing it (same identity) keeps the id.
    public var id: Int64
    public var appID: String
    public var activityType: String
    public var title: String
    public var persistentIdentifier: String?
    public var expirationDate: Int64?
    /// Unix seconds of the last save.
    public var lastUsed: Int64
    public var payload: Data
    public var keywords: [String]

    /// Between keywords in their column: a character no word holds, which FTS5 splits words at.
    public static let keywordSeparator = "\u{1F}"
}

/// What a menu shows of a saved activity, read without its payload.
public struct SavedSummary: Sendable, Hashable {
    public var id: Int64
    public var appID: String
    public var activityType: String
    /// Empty when it has none.
    public var title: String
}

/// One page of a listing, most recently used first.
public struct SavedPage: Sendable, Hashable {
    public var records: [SavedRecord]
    /// Where the next page starts (`list(appID:after:limit:)`); nil when nothing is left.
    public var next: Int64?
}

/// What the store's reads have read so far: rows stepped to, and blobs (payloads) taken with their
/// bytes. What one read costs is the difference before and after it.
public struct ReadCounts: Sendable, Hashable {
    public var rows = 0
    public var blobs = 0
    public var blobBytes = 0

    public init() {}

    public static func - (a: ReadCounts, b: ReadCounts) -> ReadCounts {
        var difference = ReadCounts()
        (difference.rows, difference.blobs, difference.blobBytes) = (a.rows - b.rows, a.blobs - b.blobs, a.blobBytes - b.blobBytes)
        return difference
    }

    static func + (a: ReadCounts, b: ReadCounts) -> ReadCounts {
        var sum = ReadCounts()
        (sum.rows, sum.blobs, sum.blobBytes) = (a.rows + b.rows, a.blobs + b.blobs, a.blobBytes + b.blobBytes)
        return sum
    }
}

/// Why the store refused or failed; each case carries the offending value.
public enum StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The payload is over `Limits.payloadBytes`.
    case payloadTooLarge(appID: String, bytes: Int, limit: Int)
    /// The persistent identifier is saved by another app only, not by `appID`.
    case notOwner(persistentIdentifier: String, appID: String)
    /// The file could not be opened or created, even after setting a damaged one aside.
    case unavailable(path: String, reason: String)
    /// Another process held the file locked for longer than `Limits.busyTimeout`; the file is kept.
    case locked(path: String, SQLiteError)
    /// SQLite refused a statement.
    case database(SQLiteError)
    /// The last commit failed (a full disk, a lock, a read-only file): nothing new is queued until
    /// one succeeds. `waiting` acknowledged saves are kept, and saved by the first commit that can.
    case cannotWrite(path: String, SQLiteError, waiting: Int)
    /// A search's terms hold more distinct words than a search takes (`SearchQuery.words`).
    case tooManyWords(count: Int, limit: Int)
    /// A search word longer than a search takes (`SearchQuery.wordBytes`).
    case wordTooLong(String, limit: Int)

    public var description: String {
        switch self {
        case .payloadTooLarge(let app, let bytes, let limit):
            "an activity of \(app) takes \(bytes) bytes stored; at most \(limit) are kept"
        case .notOwner(let identifier, let app): "\"\(identifier)\" is another application's saved activity, not \(app)'s"
        case .unavailable(let path, let reason): "the activity store \(path) cannot be used: \(reason)"
        case .locked(let path, let error): "the activity store \(path) is locked by another process (\(error))"
        case .database(let error): "the activity store failed: \(error)"
        case .cannotWrite(let path, let error, let waiting):
            "\(path) cannot be written now (\(error)); \(waiting) acknowledged activities are kept and saved once it can"
        case .tooManyWords(let count, let limit): "the terms hold \(count) different words; a search takes at most \(limit)"
        case .wordTooLong(let word, let limit): "the word \"\(word.prefix(64))…\" takes \(word.utf8.count) bytes; a search word at most \(limit)"
        }
    }
}
