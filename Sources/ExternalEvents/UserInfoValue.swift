/// A value of an activity's user info, as Swift sees it (NSUserActivity's property-list values:
/// strings, numbers, booleans, data, arrays, dictionaries): the one value type for user info
/// wherever it is read or written, on the bus (WaypostContract converts it) and as JSON (`Codable`:
/// the command line's `--user-info` and `--format json`).
///
/// Here, beside `UserActivity`, in the module every other one imports (apps through WaypostKit).
public enum UserInfoValue: Sendable, Hashable, Codable {
    case string(String)
    case integer(Int64)
    case double(Double)
    case bool(Bool)
    case data([UInt8])
    case array([UserInfoValue])
    case dictionary([String: UserInfoValue])
}

extension UserInfoValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: UserInfoValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, UserInfoValue)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension UserInfoValue {
    /// The string, when this is one.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The integer, when this is one.
    public var integerValue: Int64? { if case .integer(let value) = self { value } else { nil } }
    /// The number, when this is an integer or a double.
    public var doubleValue: Double? {
        switch self {
        case .double(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
}

extension UserInfoValue {
    /// JSON's kinds, in this order: a whole number is an `integer`, another number a `double`;
    /// `null` is refused (no D-Bus type carries it).
    /// - Throws: `DecodingError` for `null`, or a number beyond `Double`'s range.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([UserInfoValue].self) {
            self = .array(value)
        } else {
            self = .dictionary(try container.decode([String: UserInfoValue].self))
        }
    }

    /// As JSON: `data` as an array of its bytes' numbers.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .data(let bytes): try container.encode(bytes)
        case .array(let values): try container.encode(values)
        case .dictionary(let entries): try container.encode(entries)
        }
    }
}
