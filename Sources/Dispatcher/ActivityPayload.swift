import ActivityStore
import DBus
import FoundationEssentials

/// A published activity's dictionary as the store keeps it (its type is a column of its own):
/// every value with its exact D-Bus type, so that a continued activity reaches the app as it was
/// published. JSON through `JSONEncoder`, kept small since it is most of a saved row: the
/// contract's keys as one letter, strings, booleans and `x` integers bare, any other value as an
/// object naming its type code (`{"d": 1.5}`, `{"a": {"t": "s", "v": ["a", "b"]}}`).
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
        var stored = Dictionary(uniqueKeysWithValues: activity.map { key, value in (Self.codes[key] ?? "+" + key, StoredValue(value)) })
        if !title.isEmpty, stored["n"]?.variant == .string(title) { stored["n"] = nil }
        if Self.keywordsFitColumn(keywords), stored["k"]?.variant == Variant(keywords) { stored["k"] = nil }
        return try Self.encoder.encode(stored)
    }

    /// The activity as saved: the stored form, with the title and keywords its row's columns hold.
    static func decode(_ data: Data, type: String, title: String, keywords: [String]) throws -> ActivityPayload {
        let stored = try JSONDecoder().decode([String: StoredValue].self, from: data)
        var activity = Dictionary(uniqueKeysWithValues: stored.map { code, value in
            (keys[code] ?? (code.hasPrefix("+") ? String(code.dropFirst()) : code), value.variant)
        })
        if stored["n"] == nil, !title.isEmpty { activity["title"] = .string(title) }
        if stored["k"] == nil, keywordsFitColumn(keywords) { activity["keywords"] = Variant(keywords) }
        return ActivityPayload(type: type, activity: activity)
    }

    /// Keywords the store's column gives back as they were (none empty, none holding its separator).
    private static func keywordsFitColumn(_ keywords: [String]) -> Bool {
        !keywords.isEmpty && !keywords.contains { $0.isEmpty || $0.contains(SavedRecord.keywordSeparator) }
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return encoder
    }
}

/// One D-Bus value, tagged with its type code.
struct StoredValue: Codable, Sendable, Hashable {
    let variant: Variant

    init(_ variant: Variant) { self.variant = variant }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private struct Container: Codable, Hashable {
        /// Element type (arrays) or key type (dictionaries).
        var t: String
        /// Value type (dictionaries).
        var u: String?
        var v: [StoredValue]
    }

    func encode(to encoder: any Encoder) throws {
        switch variant {
        case .string(let value):
            var bare = encoder.singleValueContainer()
            return try bare.encode(value)
        case .boolean(let value):
            var bare = encoder.singleValueContainer()
            return try bare.encode(value)
        case .int64(let value):
            var bare = encoder.singleValueContainer()
            return try bare.encode(value)
        default: break
        }
        var container = encoder.container(keyedBy: Key.self)
        switch variant {
        case .byte(let value): try container.encode(value, forKey: Key("y"))
        case .boolean(let value): try container.encode(value, forKey: Key("b"))
        case .int16(let value): try container.encode(value, forKey: Key("n"))
        case .uint16(let value): try container.encode(value, forKey: Key("q"))
        case .int32(let value): try container.encode(value, forKey: Key("i"))
        case .uint32(let value): try container.encode(value, forKey: Key("u"))
        case .int64(let value): try container.encode(value, forKey: Key("x"))
        case .uint64(let value): try container.encode(value, forKey: Key("t"))
        case .double(let value): try container.encode(value, forKey: Key("d"))
        case .string(let value): try container.encode(value, forKey: Key("s"))
        case .objectPath(let value): try container.encode(value.rawValue, forKey: Key("o"))
        case .signature(let value): try container.encode(value.rawValue, forKey: Key("g"))
        case .array(let element, let elements):
            try container.encode(Container(t: element.rawValue, v: elements.map(StoredValue.init)), forKey: Key("a"))
        case .dictionary(let key, let value, let entries):
            // Entries as key, value, key, value… in a stable order, so equal dictionaries encode equally.
            let flat = entries.sorted { $0.key.description < $1.key.description }.flatMap { [StoredValue($0.key), StoredValue($0.value)] }
            try container.encode(Container(t: key.rawValue, u: value.rawValue, v: flat), forKey: Key("e"))
        case .structure(let fields): try container.encode(fields.map(StoredValue.init), forKey: Key("r"))
        case .variant(let inner): try container.encode(StoredValue(inner), forKey: Key("v"))
        }
    }

    init(from decoder: any Decoder) throws {
        // Strings, booleans and `x` integers are bare; JSONDecoder converts none into another.
        if let bare = try? decoder.singleValueContainer() {
            if let value = try? bare.decode(String.self) {
                variant = .string(value)
                return
            }
            if let value = try? bare.decode(Bool.self) {
                variant = .boolean(value)
                return
            }
            if let value = try? bare.decode(Int64.self) {
                variant = .int64(value)
                return
            }
        }
        let container = try decoder.container(keyedBy: Key.self)
        guard let key = container.allKeys.first, container.allKeys.count == 1 else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "one type code expected"))
        }
        func signature(_ text: String) throws -> Signature {
            do { return try Signature(text) } catch {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "bad signature \(text)")
            }
        }
        switch key.stringValue {
        case "y": variant = .byte(try container.decode(UInt8.self, forKey: key))
        case "b": variant = .boolean(try container.decode(Bool.self, forKey: key))
        case "n": variant = .int16(try container.decode(Int16.self, forKey: key))
        case "q": variant = .uint16(try container.decode(UInt16.self, forKey: key))
        case "i": variant = .int32(try container.decode(Int32.self, forKey: key))
        case "u": variant = .uint32(try container.decode(UInt32.self, forKey: key))
        case "x": variant = .int64(try container.decode(Int64.self, forKey: key))
        case "t": variant = .uint64(try container.decode(UInt64.self, forKey: key))
        case "d": variant = .double(try container.decode(Double.self, forKey: key))
        case "s": variant = .string(try container.decode(String.self, forKey: key))
        case "o":
            let text = try container.decode(String.self, forKey: key)
            do { variant = .objectPath(try ObjectPath(text)) } catch {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "bad object path \(text)")
            }
        case "g": variant = .signature(try signature(try container.decode(String.self, forKey: key)))
        case "a":
            let array = try container.decode(Container.self, forKey: key)
            variant = .array(element: try signature(array.t), array.v.map(\.variant))
        case "e":
            let dictionary = try container.decode(Container.self, forKey: key)
            var entries: [Variant: Variant] = [:]
            var index = 0
            while index + 1 < dictionary.v.count {
                entries[dictionary.v[index].variant] = dictionary.v[index + 1].variant
                index += 2
            }
            variant = .dictionary(key: try signature(dictionary.t), value: try signature(dictionary.u ?? "v"), entries)
        case "r": variant = .structure(try container.decode([StoredValue].self, forKey: key).map(\.variant))
        case "v": variant = .variant(try container.decode(StoredValue.self, forKey: key).variant)
        default:
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "unknown type code \(key.stringValue)")
        }
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
