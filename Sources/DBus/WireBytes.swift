/// Values kept off the bus (in a file, a database) in D-Bus's own wire format, so that each comes
/// back with its exact type: the body of a message carrying them, in this machine's byte order
/// (what is kept is read back where it was written). Read back through libdbus
/// (`dbus_message_demarshal`) in a message rebuilt around it, which checks every byte: bytes that
/// are not values of the types asked for are an error, never a crash. (Like any format without a
/// checksum, a damaged string's content still reads as another string.)
public enum WireBytes {
    /// `values` as the body of a message carrying them.
    /// - Throws: `BusError` (`InvalidArgs`) when a value cannot travel over D-Bus.
    public static func encode<each Value: BusValue>(_ values: repeat each Value) throws(BusError) -> [UInt8] {
        let arguments = MessageWriter(writing: repeat each values)
        if let failure = arguments.failure { throw failure }
        return arguments.withBytes { Array($0) }
    }

    /// The values `encode` wrote into `bytes`, as exactly these types.
    /// - Throws: `BusError` when libdbus refuses the bytes as those types; `ArgumentError` when
    ///   they hold other types.
    public static func decode<each Value: BusValue>(_ bytes: [UInt8], as types: repeat (each Value).Type) throws -> (repeat each Value) {
        var signature = ""
        for type in repeat (each Value).self { signature += type.busSignature.rawValue }
        return try Message.carrying(body: bytes, signature: try Signature(signature)).decode(repeat (each Value).self)
    }
}

extension Variant {
    /// At most how many bytes the content takes in the wire format, written at any offset: its own
    /// bytes and the most padding each part could need. Counted without writing anything, so that
    /// a caller can tell cheaply that an encoding stays within a limit.
    public var wireBytesBound: Int {
        switch self {
        case .byte: 1
        case .boolean, .int32, .uint32: 4 + 3
        case .int16, .uint16: 2 + 1
        case .int64, .uint64, .double: 8 + 7
        case .string(let text): 4 + 3 + text.utf8.count + 1
        case .objectPath(let path): 4 + 3 + path.rawValue.utf8.count + 1
        case .signature(let signature): 1 + signature.rawValue.utf8.count + 1
        // The length, its padding, the padding before the first element (up to 8), the elements.
        case .array(_, let elements): elements.reduce(4 + 3 + 7) { $0 + $1.wireBytesBound }
        case .dictionary(_, _, let entries): entries.reduce(4 + 3 + 7) { $0 + 7 + $1.key.wireBytesBound + $1.value.wireBytesBound }
        case .structure(let fields): fields.reduce(7) { $0 + $1.wireBytesBound }
        case .variant(let inner): 1 + inner.signatureLength + 1 + inner.wireBytesBound
        }
    }

    /// `signature.rawValue.utf8.count`, without building the signature of a container.
    var signatureLength: Int {
        switch self {
        case .array(let element, _): 1 + element.rawValue.utf8.count
        case .dictionary(let key, let value, _): 3 + key.rawValue.utf8.count + value.rawValue.utf8.count
        case .structure(let fields): fields.reduce(2) { $0 + $1.signatureLength }
        default: 1
        }
    }
}
