internal import CDBus

// Every libdbus call on a DBusMessage goes through here.
extension Message {
    /// What a message says besides its arguments; the bus adds the sender, `ConnectionCore` the serial.
    struct Header {
        var kind: Kind
        var path: ObjectPath? = nil
        var interface: InterfaceName? = nil
        var member: MemberName? = nil
        var replySerial: UInt32? = nil
        var destination: BusName? = nil
        /// The sender wants no reply (`NO_REPLY_EXPECTED`).
        var noReply = false
    }

    /// A new method call carrying `arguments`.
    /// - Throws: `BusError` (`InvalidArgs`) when a value cannot travel, e.g. a string containing NUL.
    static func methodCall<each Argument: BusValue>(
        destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName, noReply: Bool = false,
        _ arguments: repeat each Argument
    ) throws(BusError) -> Message {
        let header = Header(
            kind: .methodCall, path: path, interface: interface, member: member, destination: destination, noReply: noReply)
        return try build(header, arguments: MessageWriter(writing: repeat each arguments))
    }

    /// A new signal carrying `arguments`, to every subscriber or only to `destination`.
    static func signal<each Argument: BusValue>(
        path: ObjectPath, interface: InterfaceName, member: MemberName, destination: BusName?,
        _ arguments: repeat each Argument
    ) throws(BusError) -> Message {
        let header = Header(kind: .signal, path: path, interface: interface, member: member, destination: destination)
        return try build(header, arguments: MessageWriter(writing: repeat each arguments))
    }

    /// A new reply to this method call, carrying `values`.
    func methodReturn<each Value: BusValue>(_ values: repeat each Value) throws(BusError) -> Message {
        let arguments = MessageWriter(writing: repeat each values)
        // An empty acknowledgement: the call's own libdbus constructor makes it for less than it
        // takes to validate one (`dbus_message_new_method_return`).
        if arguments.signature.isEmpty { return Message(adopting: dbus_message_new_method_return(reference.pointer)) }
        let header = Header(kind: .methodReturn, replySerial: serial, destination: sender, noReply: true)
        return try Self.build(header, arguments: arguments)
    }

    /// A message only used to convert values through the wire format.
    static func scratch(_ body: (inout MessageWriter) -> Void) throws(BusError) -> Message {
        var arguments = MessageWriter()
        body(&arguments)
        return try build(Header(kind: .methodReturn, replySerial: 1), arguments: arguments)
    }

    /// Writes `header` in front of `arguments` and has libdbus read the result
    /// (`dbus_message_demarshal`, which validates all of it). The serial is a placeholder until sent.
    private static func build(_ header: Header, arguments: borrowing MessageWriter) throws(BusError) -> Message {
        if let failure = arguments.failure { throw failure }
        guard arguments.signature.count <= 255 else {
            throw BusError(.invalidArgs, "a message carries at most 255 type codes, not \(arguments.signature.count)")
        }
        var message = MessageWriter(capacity: 128 + arguments.count)
        message.appendRaw(Wire.hostByteOrder)
        message.appendRaw(header.kind.wireCode)
        message.appendRaw(header.noReply ? Wire.noReplyExpected : UInt8(0))
        message.appendRaw(Wire.protocolVersion)
        message.appendRaw(UInt32(arguments.count))
        message.appendRaw(UInt32(1))
        // The header fields, an array of (yv) whose length is filled in once they are written.
        message.appendRaw(UInt32(0))
        message.align(to: 8)
        let fieldsStart = message.count
        if let path = header.path { message.appendHeaderField(1, TypeCode.objectPath, path.rawValue) }
        if let interface = header.interface { message.appendHeaderField(2, TypeCode.string, interface.rawValue) }
        if let member = header.member { message.appendHeaderField(3, TypeCode.string, member.rawValue) }
        if let replySerial = header.replySerial { message.appendHeaderField(5, replySerial) }
        if let destination = header.destination { message.appendHeaderField(6, TypeCode.string, destination.rawValue) }
        if !arguments.signature.isEmpty {
            message.appendHeaderField(8, TypeCode.signature, String(decoding: arguments.signature, as: UTF8.self))
        }
        message.overwrite(UInt32(message.count - fieldsStart), at: 12)
        message.align(to: 8)
        message.appendBody(arguments)
        if let failure = message.failure { throw failure }
        guard message.count <= Wire.maximumMessageLength else {
            throw BusError(.invalidArgs, "a message of \(message.count) bytes is longer than D-Bus allows (128 MiB)")
        }
        let (pointer, error) = message.withBytes { bytes in
            withScratchError { error in
                dbus_message_demarshal(bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count), error)
            }
        }
        guard let pointer else {
            if error?.name == ErrorName.noMemory.rawValue { fatalError("libdbus is out of memory") }
            throw BusError(.invalidArgs, "libdbus refused the message: \(error?.message ?? "unknown reason")")
        }
        return Message(adopting: pointer)
    }

    /// A new error reply to this method call; `dbus_message_new_error`.
    func errorReply(_ error: BusError) -> Message {
        // libdbus takes the message as a C string: cut it at a NUL rather than lose the error.
        let text = String(error.message.split(separator: "\0", omittingEmptySubsequences: false).first ?? "")
        let pointer = error.name.rawValue.withCString { name in
            text.withCString { dbus_message_new_error(reference.pointer, name, $0) }
        }
        return Message(adopting: pointer)
    }

    private init(adopting pointer: OpaquePointer?) {
        // Allocation failure in libdbus, like in Swift itself, is not something a caller can handle.
        guard let pointer else { fatalError("libdbus is out of memory") }
        self.init(reference: .message(adopting: pointer))
    }

    /// Sets the serial this message goes out with; `dbus_message_set_serial`.
    func setSerial(_ serial: UInt32) { dbus_message_set_serial(reference.pointer, serial) }

    /// The serial of the call this message answers; `dbus_message_get_reply_serial`.
    var replySerial: UInt32 { dbus_message_get_reply_serial(reference.pointer) }

    var typeCode: Int32 { dbus_message_get_type(reference.pointer) }

    func string(_ get: (OpaquePointer?) -> UnsafePointer<CChar>?) -> String? {
        get(reference.pointer).map { String(cString: $0) }
    }

    func isSignal(_ interface: String, _ member: String) -> Bool {
        dbus_message_is_signal(reference.pointer, interface, member) != 0
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

/// Constants of the wire format (the D-Bus specification, "Message Format").
private enum Wire {
    /// `l` on little-endian hosts, `B` on big-endian ones: the writer writes in the host's order.
    static let hostByteOrder = UInt8(ascii: 1.littleEndian == 1 ? "l" : "B")
    static let protocolVersion: UInt8 = 1
    static let noReplyExpected: UInt8 = 0x1
    /// The specification's limit on a whole message.
    static let maximumMessageLength = 1 << 27
}

extension Message.Kind {
    var wireCode: UInt8 {
        switch self {
        case .methodCall: 1
        case .methodReturn: 2
        case .error: 3
        case .signal: 4
        }
    }
}
