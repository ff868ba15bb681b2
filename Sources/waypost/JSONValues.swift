import DBus
import FoundationEssentials

/// A JSON value as `JSONDecoder` reads it and `JSONEncoder` writes it: how the command line takes
/// user info (`--user-info`) and prints activities (`--format json`).
enum JSONValue: Codable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// A D-Bus value for user info: integers as `x`, other numbers as `d`, arrays as `av`, objects
    /// as `a{sv}`. Nil for `null`, which D-Bus cannot carry.
    var variant: Variant? {
        switch self {
        case .null: return nil
        case .bool(let value): return .boolean(value)
        case .integer(let value): return .int64(value)
        case .number(let value): return .double(value)
        case .string(let value): return .string(value)
        case .array(let values):
            var elements: [Variant] = []
            for value in values {
                guard let element = value.variant else { return nil }
                elements.append(.variant(element))
            }
            return .array(element: "v", elements)
        case .object(let members):
            var entries: [Variant: Variant] = [:]
            for (key, value) in members {
                guard let element = value.variant else { return nil }
                entries[.string(key)] = .variant(element)
            }
            return .dictionary(key: "s", value: "v", entries)
        }
    }

    /// A JSON object as user info (`a{sv}`); nil for other JSON, or one holding `null`.
    static func userInfo(_ text: String) -> [String: Variant]? {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)), case .object = value,
              case .dictionary(_, _, let entries)? = value.variant
        else { return nil }
        return entries.reduce(into: [:]) { info, entry in
            if case .string(let key) = entry.key, case .variant(let inner) = entry.value { info[key] = inner }
        }
    }

    /// A D-Bus value as JSON: numbers as numbers, containers as arrays and objects (a dictionary's
    /// keys as text), a structure as an array, a variant as its content.
    init(_ variant: Variant) {
        switch variant {
        case .byte(let value): self = .integer(Int64(value))
        case .boolean(let value): self = .bool(value)
        case .int16(let value): self = .integer(Int64(value))
        case .uint16(let value): self = .integer(Int64(value))
        case .int32(let value): self = .integer(Int64(value))
        case .uint32(let value): self = .integer(Int64(value))
        case .int64(let value): self = .integer(value)
        case .uint64(let value): self = value <= UInt64(Int64.max) ? .integer(Int64(value)) : .number(Double(value))
        case .double(let value): self = .number(value)
        case .string(let value): self = .string(value)
        case .objectPath(let value): self = .string(value.rawValue)
        case .signature(let value): self = .string(value.rawValue)
        case .array(_, let elements), .structure(let elements): self = .array(elements.map(JSONValue.init))
        case .dictionary(_, _, let entries):
            self = .object(entries.reduce(into: [:]) { object, entry in
                let key = if case .string(let text) = entry.key { text } else { entry.key.description }
                object[key] = JSONValue(entry.value)
            })
        case .variant(let inner): self = JSONValue(inner)
        }
    }
}
