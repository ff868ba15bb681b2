/// A D-Bus value whose type is known only at run time: the content of a `v`.
///
/// As a `BusValue` it travels as a variant (`v`), so `[String: Variant]` is `a{sv}`. Containers carry
/// their element signatures, so empty ones keep their type. Literals make property maps readable:
/// `["Name": "Scene", "Count": 3, "Ready": true]` (an integer literal is an `Int32`, `i`).
public indirect enum Variant: Hashable, Sendable, CustomStringConvertible {
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
    /// A variant inside the variant.
    case variant(Variant)

    /// Wraps any typed value, keeping its D-Bus type: `Variant(["a", "b"])` is an `as`.
    public init<Value: BusValue>(_ value: Value) {
        let scratch: Message
        // A value that cannot travel (a string holding NUL, a conformance breaking its container's
        // type) becomes its description, as a string.
        do { scratch = try Message.scratch { $0.write(value) } } catch { self = .string(String(describing: value)); return }
        var reader = scratch.reader()
        // Reading back what was just written cannot mismatch.
        self = (try? Variant.readContent(from: &reader)) ?? .string("")
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

    /// Reads whatever value is next, whatever its type.
    static func readContent(from reader: inout MessageReader) throws -> Variant {
        let signature = Signature(unchecked: reader.nextSignature)
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
        case TypeCode.string: return .string(try reader.read())
        case TypeCode.objectPath: return .objectPath(try reader.read())
        case TypeCode.signature: return .signature(try reader.read())
        case TypeCode.variant: return .variant(try reader.read(Variant.self))
        case TypeCode.structure:
            return .structure(try reader.readStructure(signature) { fields in
                var values: [Variant] = []
                while !fields.isAtEnd { values.append(try readContent(from: &fields)) }
                return values
            })
        case TypeCode.array:
            let element = Signature(unchecked: String(signature.rawValue.dropFirst()))
            if element.rawValue.hasPrefix("{") {
                let parts = completeTypes(of: String(element.rawValue.dropFirst().dropLast()))
                var entries: [Variant: Variant] = [:]
                try reader.readArray(of: element) { array in
                    let (key, value) = try array.readDictionaryEntry { entry in
                        (try readContent(from: &entry), try readContent(from: &entry))
                    }
                    entries[key] = value
                }
                return .dictionary(
                    key: Signature(unchecked: parts[0]), value: Signature(unchecked: parts[1]), entries)
            }
            var elements: [Variant] = []
            try reader.readArray(of: element) { elements.append(try readContent(from: &$0)) }
            return .array(element: element, elements)
        default:
            // Unix file descriptors, or the end of the arguments.
            throw reader.mismatch(expected: "v", detail: "no supported value here")
        }
    }
}

extension Variant: BusValue {
    public static var busSignature: Signature { .variant }

    public func write(to writer: inout MessageWriter) {
        writer.writeVariant(of: signature) { writeContent(to: &$0) }
    }

    public init(from reader: inout MessageReader) throws {
        self = try reader.readVariant { _, content in try Variant.readContent(from: &content) }
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
