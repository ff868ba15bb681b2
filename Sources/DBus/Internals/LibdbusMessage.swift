internal import CDBus

// Every libdbus call on a DBusMessage goes through here.
extension Message {
    /// A message only used to convert values through the wire format: written, then read by libdbus.
    static func scratch(_ body: (inout MessageWriter) -> Void) throws(BusError) -> Message {
        var arguments = MessageWriter()
        body(&arguments)
        let header = OutgoingMessage.Header(kind: .methodReturn, replySerial: 1)
        return try OutgoingMessage.read(header, arguments: arguments)
    }

    /// An error reply to `call` (`dbus_message_new_error`); `text` holds no NUL.
    static func error(replyingTo call: Message, name: ErrorName, text: String) -> Message {
        Message(adopting: text.withCString { dbus_message_new_error(call.reference.pointer, name.rawValue, $0) })
    }

    /// A reply to `call` that carries nothing (`dbus_message_new_method_return`, addressed to the
    /// call's sender), made by libdbus without a body to read back.
    static func emptyReply(to call: Message) -> Message {
        Message(adopting: dbus_message_new_method_return(call.reference.pointer))
    }

    /// A copy of this message with serial 0, which libdbus numbers when it is sent: a message read
    /// from bytes carries the serial written there, and `dbus_message_set_serial` may be called only
    /// once on a message (`dbus_message_copy`, which resets the serial).
    func unnumberedCopy() -> Message {
        Message(adopting: dbus_message_copy(reference.pointer))
    }

    /// A reply carrying `body`, values of `signature` in this machine's byte order, as libdbus
    /// reads it (checking every byte).
    static func carrying(body: [UInt8], signature: Signature) throws(BusError) -> Message {
        let arguments = MessageWriter(body: body, signature: signature)
        let message = try OutgoingMessage.wire(.init(kind: .methodReturn, replySerial: 1), arguments: arguments)
        return try message.withBytes { raw in Result { () throws(BusError) in try Message.demarshal(raw) } }.get()
    }

    /// libdbus's reading of `bytes`, a whole message (`dbus_message_demarshal`, which validates it).
    static func demarshal(_ bytes: UnsafeRawBufferPointer) throws(BusError) -> Message {
        // libdbus reports bytes that end before the message does as out of memory: refuse them first.
        let needed = bytes.count < 16 ? 0
            : Int(dbus_message_demarshal_bytes_needed(bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count)))
        guard needed == bytes.count else {
            throw BusError(.invalidArgs, "\(bytes.count) bytes are not one whole message (its header says \(needed < 0 ? "nothing valid" : "\(needed) bytes"))")
        }
        let (pointer, error) = withScratchError { error in
            dbus_message_demarshal(bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count), error)
        }
        guard let pointer else {
            // libdbus also says "out of memory" when it read no message: one of a type it ignores.
            if error?.name == ErrorName.noMemory.rawValue { throw BusError(.invalidArgs, "libdbus read no message from these bytes") }
            throw BusError(.invalidArgs, "libdbus refused the message: \(error?.message ?? "unknown reason")")
        }
        return Message(adopting: pointer)
    }

    private init(adopting pointer: OpaquePointer?) {
        // Allocation failure in libdbus, like in Swift itself, is not something a caller can handle.
        guard let pointer else { fatalError("libdbus is out of memory") }
        self.init(reference: .message(adopting: pointer))
    }

    /// The serial of the call this message answers; `dbus_message_get_reply_serial`.
    var replySerial: UInt32 { dbus_message_get_reply_serial(reference.pointer) }

    var typeCode: Int32 { dbus_message_get_type(reference.pointer) }

    func string(_ get: (OpaquePointer?) -> UnsafePointer<CChar>?) -> String? {
        get(reference.pointer).map { String(cString: $0) }
    }
}

extension Message {
    public var kind: Kind {
        switch typeCode {
        case Int32(DBUS_MESSAGE_TYPE_METHOD_CALL): .methodCall
        case Int32(DBUS_MESSAGE_TYPE_METHOD_RETURN): .methodReturn
        case Int32(DBUS_MESSAGE_TYPE_ERROR): .error
        default: .signal
        }
    }

    public var sender: BusName? { string(dbus_message_get_sender).map(BusName.init(unchecked:)) }
    public var destination: BusName? { string(dbus_message_get_destination).map(BusName.init(unchecked:)) }
    public var path: ObjectPath? { string(dbus_message_get_path).map(ObjectPath.init(unchecked:)) }
    public var interface: InterfaceName? { string(dbus_message_get_interface).map(InterfaceName.init(unchecked:)) }
    public var member: MemberName? { string(dbus_message_get_member).map(MemberName.init(unchecked:)) }
    public var errorName: ErrorName? { string(dbus_message_get_error_name).map(ErrorName.init(unchecked:)) }
    public var signature: Signature { Signature(unchecked: string(dbus_message_get_signature) ?? "") }
    /// The serial the sender gave this message; 0 before it is sent.
    public var serial: UInt32 { dbus_message_get_serial(reference.pointer) }
    /// Whether the sender asked for no reply (a method call sent with the no-reply flag).
    public var expectsReply: Bool { dbus_message_get_no_reply(reference.pointer) == 0 }
}
