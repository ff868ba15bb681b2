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
