import FoundationEssentials

/// The parts of a JSON document the applinks format defines, as JSONDecoder reads them, to be
/// interpreted key by key with the path of each value at hand, so that a refusal can say where.
///
/// Only what the format defines is decoded: a key Waypost ignores (`comment`, `webcredentials`, any
/// unknown key) is never decoded, and a value of an unexpected kind is only named (`unread`), its
/// contents never decoded. So the work is bounded by the format's own few levels, whatever is
/// nested in what is ignored (JSONDecoder only scans it once). Not a general JSON value (that is
/// `UserInfoValue`, which this module, importing nothing of ours, does not see): a hostile file must
/// never be decoded whole.
enum AppLinksValue: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([AppLinksValue])
    case object([String: AppLinksValue])
    /// An array or object where the format holds neither: its kind only.
    case unread(Container)

    enum Container: Sendable {
        case array, object
    }

    /// What the value is, as a refusal names it ("found a number").
    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "true or false"
        case .number: "a number"
        case .string: "a string"
        case .array, .unread(.array): "an array"
        case .object, .unread(.object): "an object"
        }
    }

    /// The value `decoder` holds, decoded as far as `expected` says the format goes.
    /// - Throws: `DecodingError` from JSONDecoder: not JSON, a string that is not Unicode, a
    ///   number beyond Double's range.
    static func decode(_ decoder: any Decoder, _ expected: Expectation) throws -> AppLinksValue {
        switch expected {
        case .document, .appLinks, .entry, .component, .variables, .queryItems:
            guard let container = try? decoder.container(keyedBy: Key.self) else { return try other(decoder) }
            var fields: [String: AppLinksValue] = [:]
            for key in container.allKeys {
                guard let member = expected.member(key.stringValue) else { continue }
                fields[key.stringValue] = try container.member(key, member)
            }
            return .object(fields)
        case .entries, .components, .strings:
            guard var container = try? decoder.unkeyedContainer() else { return try other(decoder) }
            let element: Expectation = expected == .entries ? .entry : expected == .components ? .component : .string
            var items: [AppLinksValue] = []
            while !container.isAtEnd { items.append(try container.member(element)) }
            return .array(items)
        case .string, .query:
            let single = try decoder.singleValueContainer()
            do { return .string(try single.decode(String.self)) } catch DecodingError.typeMismatch {} catch DecodingError.valueNotFound {}
            return expected == .query ? try decode(decoder, .queryItems) : try other(decoder)
        case .bool:
            let single = try decoder.singleValueContainer()
            do { return .bool(try single.decode(Bool.self)) } catch DecodingError.typeMismatch {} catch DecodingError.valueNotFound {}
            return try other(decoder)
        }
    }

    /// A value that is not what the format holds at its place: named, a container never entered.
    /// Each guess is a type mismatch at one place, whose coding path is the format's few levels.
    private static func other(_ decoder: any Decoder) throws -> AppLinksValue {
        let single = try decoder.singleValueContainer()
        if single.decodeNil() { return .null }
        if let text = try? single.decode(String.self) { return .string(text) }
        if let flag = try? single.decode(Bool.self) { return .bool(flag) }
        if let number = try? single.decode(Double.self) { return .number(number) }
        if (try? decoder.unkeyedContainer()) != nil { return .unread(.array) }
        if (try? decoder.container(keyedBy: Key.self)) != nil { return .unread(.object) }
        // What is left: a number beyond Double's range, or a string that is not valid Unicode.
        throw DecodingError.dataCorrupted(.init(
            codingPath: decoder.codingPath, debugDescription: "a number out of range or a string that is not valid Unicode"))
    }

    /// What the format holds at a place.
    enum Expectation: Sendable {
        /// The top level, `applinks`, a `details` entry, a component (or defaults).
        case document, appLinks, entry, component
        /// `substitutionVariables`: every member an array of strings.
        case variables
        /// `details`, `components`.
        case entries, components
        /// An array of strings, or one string (`"opener": "org.example.Chat"`).
        case strings
        case string, bool
        /// `"?"`: a string, or an object of query items.
        case query, queryItems

        /// What the format holds under `key` of an object of this kind; nil for a key it ignores.
        func member(_ key: String) -> Expectation? {
            switch (self, key) {
            case (.document, "applinks"): .appLinks
            case (.document, "hosts"), (.document, "scheme"): .strings
            case (.appLinks, "substitutionVariables"): .variables
            case (.appLinks, "defaults"), (.entry, "defaults"): .component
            case (.appLinks, "details"): .entries
            case (.entry, "appIDs"), (.entry, "paths"): .strings
            case (.entry, "appID"): .string
            case (.entry, "components"): .components
            case (.component, "/"), (.component, "#"): .string
            case (.component, "?"): .query
            case (.component, "exclude"), (.component, "caseSensitive"), (.component, "percentEncoded"): .bool
            case (.component, "opener"): .strings
            case (.variables, _): .strings
            case (.queryItems, _): .string
            default: nil
            }
        }
    }

    struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

// Each expectation as a concrete type, so that JSONDecoder can be asked for a value expected to be
// one; concrete rather than generic, whose metadata the runtime would look up on every value.
private protocol Expecting: Decodable {
    static var expectation: AppLinksValue.Expectation { get }
    var value: AppLinksValue { get }
    init(value: AppLinksValue)
}

extension Expecting {
    init(from decoder: any Decoder) throws { self.init(value: try AppLinksValue.decode(decoder, Self.expectation)) }
}

private struct ExpectingAppLinks: Expecting { static let expectation = AppLinksValue.Expectation.appLinks; let value: AppLinksValue }
private struct ExpectingEntry: Expecting { static let expectation = AppLinksValue.Expectation.entry; let value: AppLinksValue }
private struct ExpectingComponent: Expecting { static let expectation = AppLinksValue.Expectation.component; let value: AppLinksValue }
private struct ExpectingVariables: Expecting { static let expectation = AppLinksValue.Expectation.variables; let value: AppLinksValue }
private struct ExpectingEntries: Expecting { static let expectation = AppLinksValue.Expectation.entries; let value: AppLinksValue }
private struct ExpectingComponents: Expecting { static let expectation = AppLinksValue.Expectation.components; let value: AppLinksValue }
private struct ExpectingStrings: Expecting { static let expectation = AppLinksValue.Expectation.strings; let value: AppLinksValue }
private struct ExpectingString: Expecting { static let expectation = AppLinksValue.Expectation.string; let value: AppLinksValue }
private struct ExpectingBool: Expecting { static let expectation = AppLinksValue.Expectation.bool; let value: AppLinksValue }
private struct ExpectingQuery: Expecting { static let expectation = AppLinksValue.Expectation.query; let value: AppLinksValue }
private struct ExpectingQueryItems: Expecting { static let expectation = AppLinksValue.Expectation.queryItems; let value: AppLinksValue }
private struct ExpectingDocument: Expecting { static let expectation = AppLinksValue.Expectation.document; let value: AppLinksValue }

extension AppLinksValue.Expectation {
    fileprivate var type: any Expecting.Type {
        switch self {
        case .document: ExpectingDocument.self
        case .appLinks: ExpectingAppLinks.self
        case .entry: ExpectingEntry.self
        case .component: ExpectingComponent.self
        case .variables: ExpectingVariables.self
        case .entries: ExpectingEntries.self
        case .components: ExpectingComponents.self
        case .strings: ExpectingStrings.self
        case .string: ExpectingString.self
        case .bool: ExpectingBool.self
        case .query: ExpectingQuery.self
        case .queryItems: ExpectingQueryItems.self
        }
    }
}

extension KeyedDecodingContainer where Key == AppLinksValue.Key {
    fileprivate func member(_ key: Key, _ expectation: AppLinksValue.Expectation) throws -> AppLinksValue {
        try decode(expectation.type, forKey: key).value
    }
}

extension UnkeyedDecodingContainer {
    fileprivate mutating func member(_ expectation: AppLinksValue.Expectation) throws -> AppLinksValue {
        try decode(expectation.type).value
    }
}

/// The document: the format's top-level object, decoded as `AppLinksValue.decode` says.
struct JSONDocument: Decodable {
    let value: AppLinksValue
    init(from decoder: any Decoder) throws { value = try AppLinksValue.decode(decoder, .document) }
}
