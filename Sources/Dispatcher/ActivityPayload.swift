import ActivityStore
import DBus
import FoundationEssentials
import WaypostContract

/// A published activity's dictionary as the store keeps it (its type is a column of its own): an
/// `a{sv}` in D-Bus's wire format (`WireBytes`), so that a continued activity reaches the app with
/// every value of the exact type it was published with. Kept small since it is most of a saved
/// row: the contract's keys as one letter, and what the row's columns hold left to them.
struct ActivityPayload: Sendable, Hashable {
    var type: String
    var activity: [String: Variant]

    /// The contract's keys as stored; any other key is stored with a leading "+".
    private static let codes: [String: String] = [
        "target-content-identifier": "t", "webpage-url": "w", "title": "n", "user-info": "u", "keywords": "k",
        "eligible-for-search": "s", "eligible-for-handoff": "h", "expiration-date": "x", "persistent-identifier": "p",
        "required-user-info-keys": "r",
    ]
    private static let keys = Dictionary(uniqueKeysWithValues: codes.map { ($1, $0) })

    init(type: String, activity: [String: Variant]) {
        self.type = type
        self.activity = activity
    }

    var variants: [String: Variant] { activity }

    /// What the store's columns hold of a saved activity: the payload leaves these out when they
    /// say the same.
    struct Columns {
        var title: String
        var keywords: [String]
        var persistentIdentifier: String?
        var expirationDate: Int64?
    }

    /// The stored form, without what the store's columns hold as it is (a saved activity is always
    /// eligible for search, so that key goes too).
    func encoded(_ columns: Columns) throws -> Data {
        var stored = Dictionary(uniqueKeysWithValues: activity.map { key, value in (Self.codes[key] ?? "+" + key, value) })
        if !columns.title.isEmpty, stored["n"] == .string(columns.title) { stored["n"] = nil }
        if Self.keywordsFitColumn(columns.keywords), stored["k"] == Variant(columns.keywords) { stored["k"] = nil }
        if let identifier = columns.persistentIdentifier, stored["p"] == .string(identifier) { stored["p"] = nil }
        if let expiration = columns.expirationDate, stored["x"] == .int64(expiration) { stored["x"] = nil }
        if stored["s"] == .boolean(true) { stored["s"] = nil }
        return Data(try WireBytes.encode(stored))
    }

    /// At most how many bytes `encoded` makes, whatever the columns: each stored key is its code
    /// or the key after a "+" (at most one byte longer), each value as it is.
    var encodedBound: Int {
        activity.reduce(4 + 3 + 7) { total, entry in
            total + 7 + Variant.string(entry.key).wireBytesBound + 1 + Variant.variant(entry.value).wireBytesBound
        }
    }

    /// The activity as saved: the stored form, with what its row's columns hold.
    static func decode(_ data: Data, type: String, _ columns: Columns) throws -> ActivityPayload {
        let stored = try WireBytes.decode(Array(data), as: [String: Variant].self)
        var activity = Dictionary(uniqueKeysWithValues: stored.map { code, value in
            (keys[code] ?? (code.hasPrefix("+") ? String(code.dropFirst()) : code), value)
        })
        if stored["n"] == nil, !columns.title.isEmpty { activity["title"] = .string(columns.title) }
        if stored["k"] == nil, keywordsFitColumn(columns.keywords) { activity["keywords"] = Variant(columns.keywords) }
        if stored["p"] == nil, let identifier = columns.persistentIdentifier { activity["persistent-identifier"] = .string(identifier) }
        if stored["x"] == nil, let expiration = columns.expirationDate { activity["expiration-date"] = .int64(expiration) }
        if stored["s"] == nil { activity["eligible-for-search"] = .boolean(true) }
        return ActivityPayload(type: type, activity: activity)
    }

    private static let separator = SavedRecord.keywordSeparator.utf8.first!

    /// Keywords the store's column gives back as they were (none empty, none holding its separator).
    private static func keywordsFitColumn(_ keywords: [String]) -> Bool {
        // A byte (the separator is one): `String.contains(String)` goes through the string-processing
        // library, some 5,000 instructions a keyword on every publish.
        !keywords.isEmpty && !keywords.contains { $0.isEmpty || $0.utf8.contains(separator) }
    }
}

extension Variant {
    /// What the user-info limit counts: strings' UTF-8 bytes (dictionary keys too), 8 for any other value.
    var size: Int {
        switch self {
        case .string(let text): text.utf8.count
        case .objectPath(let path): path.rawValue.utf8.count
        case .signature(let signature): signature.rawValue.utf8.count
        case .array(_, let elements), .structure(let elements): elements.reduce(0) { $0 + $1.size }
        case .dictionary(_, _, let entries): entries.reduce(0) { $0 + $1.key.size + $1.value.size }
        case .variant(let inner): inner.size
        default: 8
        }
    }

    /// How many containers deep the value goes: a string is 0, `as` is 1, `a{sv}` of `as` is 3
    /// (the dictionary, the variant, the array).
    var nesting: Int {
        switch self {
        case .array(_, let elements): 1 + (elements.map(\.nesting).max() ?? 0)
        case .dictionary(_, _, let entries): 1 + (entries.values.map(\.nesting).max() ?? 0)
        case .structure(let fields): 1 + (fields.map(\.nesting).max() ?? 0)
        case .variant(let inner): 1 + inner.nesting
        default: 0
        }
    }
}

extension Dispatcher {
    /// What the store is given of a search-eligible activity. Its payload is left to the store's
    /// writer when its bound shows it within `limit` (values read off the bus always encode), so
    /// that the reply does not wait for it; else it is made here, and one over `limit` refused.
    /// - Throws: `userInfoTooLarge` when its payload is over `limit`.
    static func save(
        of activity: [String: Variant], type: String, details: Contract.ActivityDetails, app appID: String, within limit: Int
    ) throws(DispatchError) -> (activity: ActivityToSave, payload: DeferredPayload?) {
        let columns = ActivityPayload.Columns(
            title: details.title ?? "", keywords: details.keywords, persistentIdentifier: details.persistentIdentifier,
            expirationDate: details.expirationDate)
        var saved = ActivityToSave(
            appID: appID, activityType: type, title: details.title ?? "", keywords: details.keywords,
            persistentIdentifier: details.persistentIdentifier, target: details.targetContentIdentifier ?? details.webpageURL,
            expirationDate: details.expirationDate, payload: Data())
        let payload = ActivityPayload(type: type, activity: activity)
        let bound = payload.encodedBound
        if bound <= limit { return (saved, DeferredPayload(bound: bound) { try payload.encoded(columns) }) }
        do { saved.payload = try payload.encoded(columns) } catch {
            throw .invalidArgument(type, reason: "the activity cannot be stored: \(error)")
        }
        guard saved.payload.count <= limit else {
            throw .userInfoTooLarge(activityType: type, reason: "the activity takes \(saved.payload.count) bytes stored; at most \(limit)")
        }
        return (saved, nil)
    }
}
