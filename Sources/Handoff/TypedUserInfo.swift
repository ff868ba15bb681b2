import ExternalEvents

/// One user info value with its type spelled out: `{"s": "…"}`, `{"i": 1}`, `{"d": 1.0}`, `{"b": true}`,
/// `{"x": "base64url"}` (data), `{"a": […]}`, `{"m": {…}}`. Exactly one key.
indirect enum TypedUserInfo: Codable, Sendable {
    case string(String), integer(Int64), double(Double), bool(Bool), data(String)
    case array([TypedUserInfo]), dictionary([String: TypedUserInfo])

    init(_ value: UserInfoValue, key: String) throws(HandoffError) {
        switch value {
        case .string(let value): self = .string(value)
        case .integer(let value): self = .integer(value)
        case .double(let value):
            guard value.isFinite else { throw .unencodable(key) }
            self = .double(value)
        case .bool(let value): self = .bool(value)
        case .data(let bytes): self = .data(Base64URL.encode(bytes))
        case .array(let values):
            var typed: [TypedUserInfo] = []
            for value in values { typed.append(try TypedUserInfo(value, key: key)) }
            self = .array(typed)
        case .dictionary(let entries):
            var typed: [String: TypedUserInfo] = [:]
            for (name, value) in entries { typed[name] = try TypedUserInfo(value, key: key) }
            self = .dictionary(typed)
        }
    }

    func value(depth: Int) throws(HandoffError) -> UserInfoValue {
        if depth > HandoffPayload.Limits.nesting { throw .userInfoTooDeep }
        switch self {
        case .string(let value): return .string(value)
        case .integer(let value): return .integer(value)
        case .double(let value): return .double(value)
        case .bool(let value): return .bool(value)
        case .data(let text):
            guard let bytes = Base64URL.decode(text.utf8) else { throw .malformed("user info data is not base64url") }
            return .data(bytes)
        case .array(let values):
            var result: [UserInfoValue] = []
            for value in values { result.append(try value.value(depth: depth + 1)) }
            return .array(result)
        case .dictionary(let entries):
            var result: [String: UserInfoValue] = [:]
            for (key, value) in entries { result[key] = try value.value(depth: depth + 1) }
            return .dictionary(result)
        }
    }

    private enum Kind: String, CodingKey { case s, i, d, b, x, a, m }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Kind.self)
        guard container.allKeys.count == 1, let kind = container.allKeys.first else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a typed value has exactly one key"))
        }
        switch kind {
        case .s: self = .string(try container.decode(String.self, forKey: kind))
        case .i: self = .integer(try container.decode(Int64.self, forKey: kind))
        case .d: self = .double(try container.decode(Double.self, forKey: kind))
        case .b: self = .bool(try container.decode(Bool.self, forKey: kind))
        case .x: self = .data(try container.decode(String.self, forKey: kind))
        case .a: self = .array(try container.decode([TypedUserInfo].self, forKey: kind))
        case .m: self = .dictionary(try container.decode([String: TypedUserInfo].self, forKey: kind))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Kind.self)
        switch self {
        case .string(let value): try container.encode(value, forKey: .s)
        case .integer(let value): try container.encode(value, forKey: .i)
        case .double(let value): try container.encode(value, forKey: .d)
        case .bool(let value): try container.encode(value, forKey: .b)
        case .data(let value): try container.encode(value, forKey: .x)
        case .array(let values): try container.encode(values, forKey: .a)
        case .dictionary(let entries): try container.encode(entries, forKey: .m)
        }
    }
}
