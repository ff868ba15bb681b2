internal import CDBus

// Every libdbus call on a DBusMessage goes through here.
extension Message {
    /// A new method call; `dbus_message_new_method_call` (nil only when out of memory).
    static func methodCall(
        destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName
    ) -> Message {
        let pointer = path.rawValue.withCString { path in
            member.rawValue.withCString { member in
                withOptionalCString(destination?.rawValue) { destination in
                    withOptionalCString(interface?.rawValue) { interface in
                        dbus_message_new_method_call(destination, path, interface, member)
                    }
                }
            }
        }
        return Message(adopting: pointer)
    }

    /// A new signal; `dbus_message_new_signal`.
    static func signal(path: ObjectPath, interface: InterfaceName, member: MemberName) -> Message {
        let pointer = path.rawValue.withCString { path in
            interface.rawValue.withCString { interface in
                member.rawValue.withCString { member in dbus_message_new_signal(path, interface, member) }
            }
        }
        return Message(adopting: pointer)
    }

    /// A new reply to this method call; `dbus_message_new_method_return`.
    func methodReturn() -> Message {
        Message(adopting: dbus_message_new_method_return(reference.pointer))
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

    /// An empty message only used to convert values through the wire format; `dbus_message_new`.
    static func scratch() -> Message {
        Message(adopting: dbus_message_new(Int32(DBUS_MESSAGE_TYPE_SIGNAL)))
    }

    private init(adopting pointer: OpaquePointer?) {
        // Allocation failure in libdbus, like in Swift itself, is not something a caller can handle.
        guard let pointer else { fatalError("libdbus is out of memory") }
        self.init(reference: .message(adopting: pointer))
    }

    /// Appends `values` as the message's arguments.
    /// - Throws: `BusError` (`InvalidArgs`) when a value cannot travel, e.g. a string containing NUL.
    func append<each Value: BusValue>(_ values: repeat each Value) throws(BusError) {
        var writer = MessageWriter(appendingTo: reference)
        for value in repeat each values { writer.write(value) }
        if let failure = writer.failure { throw failure }
    }

    /// Appends whatever `body` writes.
    func append(_ body: (inout MessageWriter) -> Void) throws(BusError) {
        var writer = MessageWriter(appendingTo: reference)
        body(&writer)
        if let failure = writer.failure { throw failure }
    }

    /// Sets the serial this message goes out with; `dbus_message_set_serial`.
    func setSerial(_ serial: UInt32) { dbus_message_set_serial(reference.pointer, serial) }

    /// Marks the message as not wanting a reply; `dbus_message_set_no_reply`.
    func setNoReply() { dbus_message_set_no_reply(reference.pointer, 1) }

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

private func withOptionalCString<Result>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> Result) -> Result {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}

extension Message {
    /// `dbus_message_set_destination`.
    func setDestination(_ destination: BusName) {
        _ = destination.rawValue.withCString { dbus_message_set_destination(reference.pointer, $0) }
    }
}
