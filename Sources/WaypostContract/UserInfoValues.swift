public import DBus
public import ExternalEvents

// User info as the contract carries it (`user-info`, `a{sv}`), and back.

extension UserInfoValue {
    /// On the bus: `string` is `s`, `integer` `x`, `double` `d`, `bool` `b`, `data` `ay`, `array`
    /// `av`, `dictionary` `a{sv}`.
    public var variant: Variant {
        switch self {
        case .string(let value): .string(value)
        case .integer(let value): .int64(value)
        case .double(let value): .double(value)
        case .bool(let value): .boolean(value)
        case .data(let bytes): .array(element: "y", bytes.map(Variant.byte))
        case .array(let values): .array(element: "v", values.map { .variant($0.variant) })
        case .dictionary(let entries):
            .dictionary(key: "s", value: "v", entries.reduce(into: [:]) { $0[.string($1.key)] = .variant($1.value.variant) })
        }
    }

    /// Read back, every D-Bus integer is an `integer` (a `uint64` over `Int64.max` a `double`),
    /// object paths and signatures `string`s, structures `array`s, a variant its content.
    public init(_ variant: Variant) {
        switch variant {
        case .string(let value): self = .string(value)
        case .objectPath(let value): self = .string(value.rawValue)
        case .signature(let value): self = .string(value.rawValue)
        case .boolean(let value): self = .bool(value)
        case .byte(let value): self = .integer(Int64(value))
        case .int16(let value): self = .integer(Int64(value))
        case .uint16(let value): self = .integer(Int64(value))
        case .int32(let value): self = .integer(Int64(value))
        case .uint32(let value): self = .integer(Int64(value))
        case .int64(let value): self = .integer(value)
        case .uint64(let value): self = value <= UInt64(Int64.max) ? .integer(Int64(value)) : .double(Double(value))
        case .double(let value): self = .double(value)
        case .array(let element, let values) where element == "y":
            self = .data(values.map { if case .byte(let byte) = $0 { byte } else { 0 } })
        case .array(_, let values), .structure(let values): self = .array(values.map(UserInfoValue.init))
        case .dictionary(_, _, let entries):
            self = .dictionary(entries.reduce(into: [:]) { result, entry in
                let key = if case .string(let text) = entry.key { text } else { entry.key.description }
                result[key] = UserInfoValue(entry.value)
            })
        case .variant(let inner): self = UserInfoValue(inner)
        }
    }

    public static func variants(_ info: [String: UserInfoValue]) -> [String: Variant] { info.mapValues(\.variant) }
}
