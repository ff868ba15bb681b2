import ActivityStore
import DBus
import FoundationEssentials

/// A published activity's dictionary as the store keeps it (its type is a column of its own): an
/// `a{sv}` in D-Bus's wire format (`WireBytes`), so that a continued activity reaches the app with
/// every value of the exact type it was published with. Kept small since it is most of a saved
/// row: the contract's keys as one letter, and the title and keywords left to the row's columns.
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

    /// The stored form, without the title and keywords when the store's columns hold them as they
    /// are (`title`, `keywords`: what the row was saved with).
    func encoded(title: String, keywords: [String]) throws -> Data {
        var stored = Dictionary(uniqueKeysWithValues: activity.map { key, value in (Self.codes[key] ?? "+" + key, value) })
        if !title.isEmpty, stored["n"] == .string(title) { stored["n"] = nil }
        if Self.keywordsFitColumn(keywords), stored["k"] == Variant(keywords) { stored["k"] = nil }
        return Data(try WireBytes.encode(stored))
    }

    /// The activity as saved: the stored form, with the title and keywords its row's columns hold.
    static func decode(_ data: Data, type: String, title: String, keywords: [String]) throws -> ActivityPayload {
        let stored = try data.withUnsafeBytes { try WireBytes.decode($0, as: [String: Variant].self) }
        var activity = Dictionary(uniqueKeysWithValues: stored.map { code, value in
            (keys[code] ?? (code.hasPrefix("+") ? String(code.dropFirst()) : code), value)
        })
        if stored["n"] == nil, !title.isEmpty { activity["title"] = .string(title) }
        if stored["k"] == nil, keywordsFitColumn(keywords) { activity["keywords"] = Variant(keywords) }
        return ActivityPayload(type: type, activity: activity)
    }

    /// Keywords the store's column gives back as they were (none empty, none holding its separator).
    private static func keywordsFitColumn(_ keywords: [String]) -> Bool {
        !keywords.isEmpty && !keywords.contains { $0.isEmpty || $0.contains(SavedRecord.keywordSeparator) }
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
