/// A Swift type that travels over D-Bus: it names its D-Bus signature, writes itself into a message
/// and reads itself back, checking the types it finds.
///
/// Mappings are explicit conformances, one per type, never a generic encoder:
///
/// | Swift                                   | D-Bus   | code |
/// |-----------------------------------------|---------|------|
/// | `UInt8`                                 | BYTE    | `y`  |
/// | `Bool`                                  | BOOLEAN | `b`  |
/// | `Int16` / `UInt16`                      | INT16 / UINT16 | `n` / `q` |
/// | `Int32` / `UInt32`                      | INT32 / UINT32 | `i` / `u` |
/// | `Int64` / `UInt64`                      | INT64 / UINT64 | `x` / `t` |
/// | `Double`                                | DOUBLE  | `d`  |
/// | `String`                                | STRING  | `s`  |
/// | `ObjectPath`                            | OBJECT_PATH | `o` |
/// | `Signature`                             | SIGNATURE | `g` |
/// | `[Element]`                             | ARRAY   | `a` + element's |
/// | `[Key: Value]` (Key a `BasicBusValue`)  | ARRAY of DICT_ENTRY | `a{kv}` |
/// | `Structure<each Field>`, or your type with `writeStructure`/`readStructure` | STRUCT | `(…)` |
/// | `Variant` (any of the above, typed at run time) | VARIANT | `v` |
/// | `[String: Variant]` (property maps, options) | | `a{sv}` |
///
/// `Int`, `UInt` and `Float` have no conformance on purpose: pick the width the interface declares.
/// Unix file descriptors (`h`) are not supported.
public protocol BusValue: Sendable {
    /// The D-Bus signature of every value of this type: one complete type, such as `s` or `a{sv}`.
    static var busSignature: Signature { get }

    /// Appends this value to a message.
    func write(to writer: inout MessageWriter)

    /// Reads a value of this type from a received message.
    /// - Throws: `ArgumentError` when the message holds something else at this position.
    init(from reader: inout MessageReader) throws
}

/// A D-Bus basic type: the only kinds allowed as dictionary keys.
public protocol BasicBusValue: BusValue, Hashable {}

extension UInt8: BasicBusValue {
    public static var busSignature: Signature { .byte }
    public func write(to writer: inout MessageWriter) { writer.appendFixed(TypeCode.byte, self) }
    public init(from reader: inout MessageReader) throws {
        self = try reader.readFixed(TypeCode.byte, Self.busSignature, initial: 0)
    }
}

extension Bool: BasicBusValue {
    public static var busSignature: Signature { .boolean }
    // dbus_bool_t is a 32-bit integer on the wire and in memory.
    public func write(to writer: inout MessageWriter) { writer.appendFixed(TypeCode.boolean, UInt32(self ? 1 : 0)) }
    public init(from reader: inout MessageReader) throws {
        self = try reader.readFixed(TypeCode.boolean, Self.busSignature, initial: UInt32(0)) != 0
    }
}

extension Int16: BasicBusValue {
    public static var busSignature: Signature { .int16 }
    public func write(to writer: inout MessageWriter) { writer.appendFixed(TypeCode.int16, self) }
    public init(from reader: inout MessageReader) throws {
        self = try reader.readFixed(TypeCode.int16, Self.busSignature, initial: 0)
    }
}

extension UInt16: BasicBusValue {
    public static var busSignature: Signature { .uint16 }
    public func write(to writer: inout MessageWriter) { writer.appendFixed(TypeCode.uint16, self) }
    public init(from reader: inout MessageReader) throws {
        self = try reader.readFixed(TypeCode.uint16, Self.busSignature, initial: 0)
    }
}

extension Int32: BasicBusValue {
    public static var busSignature: Signature { .int32 }
    public func write(to writer: inout MessageWriter) { writer.appendFixed(TypeCode.int32, self) }
    public init(from reader: inout MessageReader) throws {
        self = try reader.readFixed(TypeCode.int32, Self.busSignature, initial: 0)
    }
}

extension UInt32: BasicBusValue {
    public static var busSignature: Signature { .uint32 }
    public func write(to writer: inout MessageWriter) { writer.appendFixed(TypeCode.uint32, self) }
    public init(from reader: inout MessageReader) throws {
        self = try reader.readFixed(TypeCode.uint32, Self.busSignature, initial: 0)
    }
}

extension Int64: BasicBusValue {
    public static var busSignature: Signature { .int64 }
    public func write(to writer: inout MessageWriter) { writer.appendFixed(TypeCode.int64, self) }
    public init(from reader: inout MessageReader) throws {
        self = try reader.readFixed(TypeCode.int64, Self.busSignature, initial: 0)
    }
}

extension UInt64: BasicBusValue {
    public static var busSignature: Signature { .uint64 }
    public func write(to writer: inout MessageWriter) { writer.appendFixed(TypeCode.uint64, self) }
    public init(from reader: inout MessageReader) throws {
        self = try reader.readFixed(TypeCode.uint64, Self.busSignature, initial: 0)
    }
}

extension Double: BasicBusValue {
    public static var busSignature: Signature { .double }
    public func write(to writer: inout MessageWriter) { writer.appendFixed(TypeCode.double, self) }
    public init(from reader: inout MessageReader) throws {
        self = try reader.readFixed(TypeCode.double, Self.busSignature, initial: 0)
    }
}

extension String: BasicBusValue {
    public static var busSignature: Signature { .string }
    /// A string containing NUL cannot be sent: building the message throws `InvalidArgs`.
    public func write(to writer: inout MessageWriter) { writer.appendString(TypeCode.string, self) }
    public init(from reader: inout MessageReader) throws {
        self = try reader.readString(TypeCode.string, Self.busSignature)
    }
}

extension ObjectPath: BasicBusValue {
    public static var busSignature: Signature { .objectPath }
    public func write(to writer: inout MessageWriter) { writer.appendString(TypeCode.objectPath, rawValue) }
    public init(from reader: inout MessageReader) throws {
        self.init(unchecked: try reader.readString(TypeCode.objectPath, Self.busSignature))
    }
}

extension Signature: BasicBusValue {
    public static var busSignature: Signature { .signature }
    public func write(to writer: inout MessageWriter) { writer.appendString(TypeCode.signature, rawValue) }
    public init(from reader: inout MessageReader) throws {
        self.init(unchecked: try reader.readString(TypeCode.signature, Self.busSignature))
    }
}

extension Array: BusValue where Element: BusValue {
    public static var busSignature: Signature { Signature(unchecked: "a\(Element.busSignature)") }
    public func write(to writer: inout MessageWriter) {
        writer.writeArray(of: Element.busSignature) { elements in
            for element in self { elements.write(element) }
        }
    }
    public init(from reader: inout MessageReader) throws {
        var elements: [Element] = []
        try reader.readArray(of: Element.busSignature) { elements.append(try $0.read(Element.self)) }
        self = elements
    }
}

extension Dictionary: BusValue where Key: BasicBusValue, Value: BusValue {
    public static var busSignature: Signature { Signature(unchecked: "a" + entrySignature.rawValue) }
    private static var entrySignature: Signature { Signature(unchecked: "{\(Key.busSignature)\(Value.busSignature)}") }

    public func write(to writer: inout MessageWriter) {
        // Property maps are most of what travels: written by specialised code, not generic per entry.
        // The bit cast is sound because the types were just found equal; `as?` would convert the
        // dictionary entry by entry (`_dictionaryDownCastConditional`), 13k instructions per `Open`.
        if Key.self == String.self, Value.self == Variant.self {
            return unsafeBitCast(self, to: [String: Variant].self).writePropertyMap(to: &writer)
        }
        writer.writeArray(of: Self.entrySignature) { entries in
            for (key, value) in self {
                entries.writeDictionaryEntry { entry in
                    entry.write(key)
                    entry.write(value)
                }
            }
        }
    }
    /// A key that occurs twice keeps its last value.
    public init(from reader: inout MessageReader) throws {
        if Key.self == String.self, Value.self == Variant.self {
            self = unsafeBitCast(try [String: Variant].readPropertyMap(from: &reader), to: Self.self)
            return
        }
        var entries: [Key: Value] = [:]
        try reader.readArray(of: Self.entrySignature) { array in
            let (key, value) = try array.readDictionaryEntry { entry in
                (try entry.read(Key.self), try entry.read(Value.self))
            }
            entries[key] = value
        }
        self = entries
    }
}

extension [String: Variant] {
    static let propertyMapEntry = Signature(unchecked: "{sv}")

    fileprivate func writePropertyMap(to writer: inout MessageWriter) {
        writer.writeArray(of: Self.propertyMapEntry) { entries in
            for (key, value) in self {
                entries.writeDictionaryEntry { entry in
                    entry.appendString(TypeCode.string, key)
                    value.write(to: &entry)
                }
            }
        }
    }

    fileprivate static func readPropertyMap(from reader: inout MessageReader) throws -> Self {
        var entries: Self = [:]
        try reader.readArray(of: propertyMapEntry) { array in
            let (key, value) = try array.readDictionaryEntry { entry in
                (try entry.readString(TypeCode.string, .string), try Variant(from: &entry))
            }
            entries[key] = value
        }
        return entries
    }
}

/// An `a{sv}` that keeps its entries in the order they were added and hashes nothing: what a sender
/// builds once, sends, and forgets (a reply made for every link). Read back, a later entry with a
/// key already read replaces it, as in the dictionary D-Bus readers make of it.
public struct PropertyList: BusValue, Sendable, Equatable {
    public private(set) var entries: [(key: String, value: Variant)]

    public init(capacity: Int = 0) {
        entries = []
        entries.reserveCapacity(capacity)
    }

    /// Adds an entry after those already added; the caller keeps the keys distinct.
    public mutating func append(_ key: String, _ value: Variant) {
        entries.append((key, value))
    }

    /// The entries as a dictionary (a later entry of a key wins).
    public var dictionary: [String: Variant] {
        Dictionary(entries, uniquingKeysWith: { _, later in later })
    }

    public static var busSignature: Signature { [String: Variant].busSignature }

    public func write(to writer: inout MessageWriter) {
        writer.writeArray(of: [String: Variant].propertyMapEntry) { array in
            for (key, value) in entries {
                array.writeDictionaryEntry { entry in
                    entry.appendString(TypeCode.string, key)
                    value.write(to: &entry)
                }
            }
        }
    }

    public init(from reader: inout MessageReader) throws {
        self.init()
        try reader.readArray(of: [String: Variant].propertyMapEntry) { array in
            let (key, value) = try array.readDictionaryEntry { entry in
                (try entry.readString(TypeCode.string, .string), try Variant(from: &entry))
            }
            if let index = entries.firstIndex(where: { $0.key == key }) { entries[index].value = value } else { append(key, value) }
        }
    }

    public static func == (lhs: PropertyList, rhs: PropertyList) -> Bool {
        lhs.entries.count == rhs.entries.count && zip(lhs.entries, rhs.entries).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}

/// A D-Bus struct of the given field types, for when a dedicated Swift type is not worth writing.
///
/// `Structure(("org.example.App", Int32(3)))` has signature `(si)`. A named Swift type can instead
/// conform to `BusValue` itself with `writeStructure` and `readStructure`.
public struct Structure<each Field: BusValue>: BusValue {
    public var fields: (repeat each Field)

    public init(_ fields: (repeat each Field)) { self.fields = fields }

    public static var busSignature: Signature {
        var signature = "("
        for field in repeat (each Field).busSignature { signature += field.rawValue }
        return Signature(unchecked: signature + ")")
    }

    public func write(to writer: inout MessageWriter) {
        writer.writeStructure { structure in
            for field in repeat each fields { structure.write(field) }
        }
    }

    public init(from reader: inout MessageReader) throws {
        fields = try reader.readStructure(Self.busSignature) { structure in
            (repeat try structure.read((each Field).self))
        }
    }
}
