/// Values kept off the bus (in a file, a database) in D-Bus's own wire format, so that each comes
/// back with its exact type: written as a message is, read back through libdbus
/// (`dbus_message_demarshal`), which checks every byte, so damaged bytes are an error and never a
/// wrong value.
public enum WireBytes {
    /// `values` as the bytes of a whole message carrying them.
    /// - Throws: `BusError` (`InvalidArgs`) when a value cannot travel over D-Bus.
    public static func encode<each Value: BusValue>(_ values: repeat each Value) throws(BusError) -> [UInt8] {
        let arguments = MessageWriter(writing: repeat each values)
        let bytes = try OutgoingMessage.wire(.init(kind: .methodReturn, replySerial: 1), arguments: arguments)
        return bytes.withBytes { Array($0) }
    }

    /// The values `encode` wrote into `bytes`, as exactly these types.
    /// - Throws: `BusError` when libdbus refuses the bytes; `ArgumentError` when they hold other types.
    public static func decode<each Value: BusValue>(
        _ bytes: UnsafeRawBufferPointer, as types: repeat (each Value).Type
    ) throws -> (repeat each Value) {
        try Message.demarshal(bytes).decode(repeat (each Value).self)
    }
}
