/// A D-Bus value whose type is known only at run time: the content of a `v`.
///
/// As a `BusValue` it travels as a variant (`v`), so `[String: Variant]` is `a{sv}`. Containers carry
/// their element signatures, so empty ones keep their type. Literals make property maps readable:
/// `["Name": "Scene", "Count": 3, "Ready": true]` (an integer literal is an `Int32`, `i`).
public enum Variant: Hashable, Sendable, CustomStringConvertible {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(ObjectPath)
    case signature(Signature)
    /// An array of values of type `element`.
    case array(element: Signature, [Variant])
    /// A dictionary (`a{kv}`); keys are basic values.
    case dictionary(key: Signature, value: Signature, [Variant: Variant])
    case structure([Variant])
    /// A variant inside the variant. (Only this case is boxed: a scalar or a string in a variant
    /// is made for every entry of every `a{sv}`, and a box each would be an allocation each.)
    indirect case variant(Variant)

    /// Wraps any typed value, keeping its D-Bus type: `Variant(["a", "b"])` is an `as`.
    public init<Value: BusValue>(_ value: Value) {
        if let direct = Self.direct(value) {
            self = direct
            return
        }
        let scratch: Message
        // A value that cannot travel (a string holding NUL, a conformance breaking its container's
        // type) becomes its description, as a string.
        do { scratch = try Message.scratch { $0.write(value) } } catch { self = .string(String(describing: value)); return }
        var reader = scratch.reader()
        // Reading back what was just written cannot mismatch.
        self = (try? Variant.readContent(from: &reader)) ?? .string("")
    }

    /// The basic types, `as` and `a{sv}` (what the contract's dictionaries carry on every published
    /// activity) wrapped without a scratch message. Types are compared by identity: an `as?` cast
    /// per case costs a dynamic cast each, and converts a dictionary entry by entry.
    private static func direct<Value: BusValue>(_ value: Value) -> Variant? {
        func typed<Known>(_: Known.Type) -> Known { unsafeBitCast(value, to: Known.self) }
        switch ObjectIdentifier(Value.self) {
        case ObjectIdentifier(String.self): return .string(typed(String.self))
        case ObjectIdentifier(Bool.self): return .boolean(typed(Bool.self))
        case ObjectIdentifier(Int32.self): return .int32(typed(Int32.self))
        case ObjectIdentifier(UInt32.self): return .uint32(typed(UInt32.self))
        case ObjectIdentifier(Int64.self): return .int64(typed(Int64.self))
        case ObjectIdentifier(UInt64.self): return .uint64(typed(UInt64.self))
        case ObjectIdentifier(Double.self): return .double(typed(Double.self))
        case ObjectIdentifier(UInt8.self): return .byte(typed(UInt8.self))
        case ObjectIdentifier(Int16.self): return .int16(typed(Int16.self))
        case ObjectIdentifier(UInt16.self): return .uint16(typed(UInt16.self))
        case ObjectIdentifier(ObjectPath.self): return .objectPath(typed(ObjectPath.self))
        case ObjectIdentifier(Signature.self): return .signature(typed(Signature.self))
        case ObjectIdentifier(Variant.self): return .variant(typed(Variant.self))
        case ObjectIdentifier([String].self): return .array(element: .string, typed([String].self).map(Variant.string))
        case ObjectIdentifier([String: Variant].self):
            var entries: [Variant: Variant] = [:]
            entries.reserveCapacity(typed([String: Variant].self).count)
            for (key, inner) in typed([String: Variant].self) { entries[.string(key)] = .variant(inner) }
            return .dictionary(key: .string, value: .variant, entries)
        default: return nil
        }
    }

    /// The content as a typed value.
    /// - Throws: `ArgumentError` when the content is not a `Value` (e.g. `i` read as `String`).
    public func decode<Value: BusValue>(as type: Value.Type = Value.self) throws -> Value {
        if let direct = directValue(as: Value.self) { return direct }
        let scratch = try Message.scratch { writeContent(to: &$0) }
        var reader = scratch.reader()
        return try reader.read(Value.self)
    }

    /// The D-Bus type of the content: one complete type.
    public var signature: Signature {
        switch self {
        case .byte: .byte
        case .boolean: .boolean
        case .int16: .int16
        case .uint16: .uint16
        case .int32: .int32
        case .uint32: .uint32
        case .int64: .int64
        case .uint64: .uint64
        case .double: .double
        case .string: .string
        case .objectPath: .objectPath
        case .signature: .signature
        case .array(let element, _): Signature(unchecked: "a\(element)")
        case .dictionary(let key, let value, _): Signature(unchecked: "a{\(key)\(value)}")
        case .structure(let fields): Signature(unchecked: "(" + fields.map(\.signature.rawValue).joined() + ")")
        case .variant: .variant
        }
    }

    public var description: String {
        switch self {
        case .byte(let value): "\(value)"
        case .boolean(let value): "\(value)"
        case .int16(let value): "\(value)"
        case .uint16(let value): "\(value)"
        case .int32(let value): "\(value)"
        case .uint32(let value): "\(value)"
        case .int64(let value): "\(value)"
        case .uint64(let value): "\(value)"
        case .double(let value): "\(value)"
        case .string(let value): value.debugDescription
        case .objectPath(let value): "\(value)"
        case .signature(let value): "'\(value)'"
        case .array(_, let elements): "[" + elements.map(\.description).joined(separator: ", ") + "]"
        case .dictionary(_, _, let entries):
            "[" + entries.map { "\($0.key): \($0.value)" }.sorted().joined(separator: ", ") + "]"
        case .structure(let fields): "(" + fields.map(\.description).joined(separator: ", ") + ")"
        case .variant(let inner): "<\(inner)>"
        }
    }

    /// The common basic cases without going through a scratch message.
    private func directValue<Value: BusValue>(as type: Value.Type) -> Value? {
        switch self {
        case .string(let value): value as? Value
        case .boolean(let value): value as? Value
        case .int32(let value): value as? Value
        case .uint32(let value): value as? Value
        case .int64(let value): value as? Value
        case .uint64(let value): value as? Value
        case .double(let value): value as? Value
        case .objectPath(let value): value as? Value
        case .byte(let value): value as? Value
        // `as` and `a{sv}`, which the contract's dictionaries carry on every published activity.
        case .array(let element, let elements) where element == .string && Value.self == [String].self:
            elements.map { if case .string(let text) = $0 { text } else { "" } } as? Value
        case .dictionary(let key, let value, let entries)
        where key == .string && value == .variant && Value.self == [String: Variant].self:
            entries.reduce(into: [String: Variant]()) { map, entry in
                if case .string(let name) = entry.key, case .variant(let inner) = entry.value { map[name] = inner }
            } as? Value
        default: nil
        }
    }

    /// Writes the content itself (not wrapped in a `v`).
    func writeContent(to writer: inout MessageWriter) {
        switch self {
        case .byte(let value): writer.write(value)
        case .boolean(let value): writer.write(value)
        case .int16(let value): writer.write(value)
        case .uint16(let value): writer.write(value)
        case .int32(let value): writer.write(value)
        case .uint32(let value): writer.write(value)
        case .int64(let value): writer.write(value)
        case .uint64(let value): writer.write(value)
        case .double(let value): writer.write(value)
        case .string(let value): writer.write(value)
        case .objectPath(let value): writer.write(value)
        case .signature(let value): writer.write(value)
        case .array(let element, let elements):
            writer.writeArray(of: element) { array in
                for element in elements { element.writeContent(to: &array) }
            }
        case .dictionary(let key, let value, let entries):
            writer.writeArray(of: Signature(unchecked: "{\(key)\(value)}")) { array in
                for (key, value) in entries {
                    array.writeDictionaryEntry { entry in
                        key.writeContent(to: &entry)
                        value.writeContent(to: &entry)
                    }
                }
            }
        case .structure(let fields):
            writer.writeStructure { structure in
                for field in fields { field.writeContent(to: &structure) }
            }
        case .variant(let inner): inner.write(to: &writer)
        }
    }

    /// Reads whatever value is next, whatever its type. A container's signature is asked of libdbus
    /// (which allocates it) only where its first code does not say it all: a basic value needs none,
    /// an array of a basic type is told by its element's code.
    static func readContent(from reader: inout MessageReader) throws -> Variant {
        switch reader.nextTypeCode {
        case TypeCode.byte: return .byte(try reader.read())
        case TypeCode.boolean: return .boolean(try reader.read())
        case TypeCode.int16: return .int16(try reader.read())
        case TypeCode.uint16: return .uint16(try reader.read())
        case TypeCode.int32: return .int32(try reader.read())
        case TypeCode.uint32: return .uint32(try reader.read())
        case TypeCode.int64: return .int64(try reader.read())
        case TypeCode.uint64: return .uint64(try reader.read())
        case TypeCode.double: return .double(try reader.read())
        case TypeCode.string: return .string(try reader.readString(TypeCode.string, .string))
        case TypeCode.objectPath: return .objectPath(try reader.read())
        case TypeCode.signature: return .signature(try reader.read())
        case TypeCode.variant: return .variant(try reader.readVariantContent { try readContent(from: &$0) })
        case TypeCode.structure:
            return .structure(try reader.readContents { fields in
                var values: [Variant] = []
                while !fields.isAtEnd { values.append(try readContent(from: &fields)) }
                return values
            })
        case TypeCode.array:
            let code = UInt8(truncatingIfNeeded: reader.nextElementTypeCode)
            if MessageReader.isBasic(code) {
                let element = basicSignature(code)
                var elements: [Variant] = []
                try reader.readContents { array in
                    while !array.isAtEnd { elements.append(try readContent(from: &array)) }
                }
                return .array(element: element, elements)
            }
            let element = Signature(unchecked: String(reader.nextSignature.dropFirst()))
            if Int32(code) == TypeCode.dictionaryEntry {
                // A dictionary entry's key is one basic type; the value is the rest.
                let key = Signature(unchecked: String(element.rawValue.dropFirst().prefix(1)))
                let value = Signature(unchecked: String(element.rawValue.dropFirst(2).dropLast()))
                var entries: [Variant: Variant] = [:]
                try reader.readContents { array in
                    while !array.isAtEnd {
                        let (key, value) = try array.readContents { entry in
                            (try readContent(from: &entry), try readContent(from: &entry))
                        }
                        entries[key] = value
                    }
                }
                return .dictionary(key: key, value: value, entries)
            }
            var elements: [Variant] = []
            try reader.readContents { array in
                while !array.isAtEnd { elements.append(try readContent(from: &array)) }
            }
            return .array(element: element, elements)
        default:
            // Unix file descriptors, or the end of the arguments.
            throw reader.mismatch(expected: "v", detail: "no supported value here")
        }
    }

    /// The signature of a basic type's code, without making a string.
    private static func basicSignature(_ code: UInt8) -> Signature {
        switch code {
        case UInt8(ascii: "y"): .byte
        case UInt8(ascii: "b"): .boolean
        case UInt8(ascii: "n"): .int16
        case UInt8(ascii: "q"): .uint16
        case UInt8(ascii: "i"): .int32
        case UInt8(ascii: "u"): .uint32
        case UInt8(ascii: "x"): .int64
        case UInt8(ascii: "t"): .uint64
        case UInt8(ascii: "d"): .double
        case UInt8(ascii: "s"): .string
        case UInt8(ascii: "o"): .objectPath
        case UInt8(ascii: "g"): .signature
        default: Signature(unchecked: String(UnicodeScalar(code)))
        }
    }
}

extension Variant: BusValue {
    public static var busSignature: Signature { .variant }

    public func write(to writer: inout MessageWriter) {
        writer.writeVariant(of: signature) { writeContent(to: &$0) }
    }

    public init(from reader: inout MessageReader) throws {
        self = try reader.readVariantContent { try Variant.readContent(from: &$0) }
    }
}

extension Variant: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByFloatLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int32) { self = .int32(value) }
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
}
