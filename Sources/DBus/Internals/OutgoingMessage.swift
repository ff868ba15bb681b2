/// A message to send, whole, in the wire format: the header in front of the arguments a
/// `MessageWriter` wrote, in the host's byte order. Its serial is filled in as it is written.
///
/// The connection writes these bytes to the bus socket itself (`SocketOutput`) rather than
/// handing libdbus a `DBusMessage`: making one from bytes means libdbus validating every byte again
/// (`dbus_message_demarshal`), a quarter of the dispatcher's instructions per `Open`. The writer
/// keeps messages valid by construction; debug builds still have libdbus check every one.
struct OutgoingMessage: Sendable {
    /// What a message says besides its arguments; the bus adds the sender.
    struct Header {
        var kind: Message.Kind
        var path: ObjectPath? = nil
        var interface: InterfaceName? = nil
        var member: MemberName? = nil
        var errorName: ErrorName? = nil
        var replySerial: UInt32? = nil
        var destination: BusName? = nil
        /// The sender wants no reply (`NO_REPLY_EXPECTED`).
        var noReply = false
    }

    let bytes: [UInt8]
    /// The arguments' signature.
    let signature: String
    /// The method called, for messages that are calls (named in a timeout's error).
    let member: MemberName?

    /// Writes `header` in front of `arguments`.
    /// - Throws: `BusError` (`InvalidArgs`) when an argument cannot travel or the message is too long.
    init(_ header: Header, arguments: borrowing MessageWriter) throws(BusError) {
        if let failure = arguments.failure { throw failure }
        guard arguments.signature.count <= 255 else {
            throw BusError(.invalidArgs, "a message carries at most 255 type codes, not \(arguments.signature.count)")
        }
        signature = String(decoding: arguments.signature, as: UTF8.self)
        member = header.member
        var message = MessageWriter(capacity: 128 + arguments.count)
        message.appendRaw(Wire.hostByteOrder)
        message.appendRaw(header.kind.wireCode)
        message.appendRaw(header.noReply ? Wire.noReplyExpected : UInt8(0))
        message.appendRaw(Wire.protocolVersion)
        message.appendRaw(UInt32(arguments.count))
        message.appendRaw(UInt32(0))  // the serial, set when sent
        // The header fields, an array of (yv) whose length is filled in once they are written.
        message.appendRaw(UInt32(0))
        message.align(to: 8)
        let fieldsStart = message.count
        if let path = header.path { message.appendHeaderField(1, TypeCode.objectPath, path.rawValue) }
        if let interface = header.interface { message.appendHeaderField(2, TypeCode.string, interface.rawValue) }
        if let member = header.member { message.appendHeaderField(3, TypeCode.string, member.rawValue) }
        if let errorName = header.errorName { message.appendHeaderField(4, TypeCode.string, errorName.rawValue) }
        if let replySerial = header.replySerial { message.appendHeaderField(5, replySerial) }
        if let destination = header.destination { message.appendHeaderField(6, TypeCode.string, destination.rawValue) }
        if !signature.isEmpty { message.appendHeaderField(8, TypeCode.signature, signature) }
        message.overwrite(UInt32(message.count - fieldsStart), at: 12)
        message.align(to: 8)
        message.appendBody(arguments)
        if let failure = message.failure { throw failure }
        guard message.count <= Wire.maximumMessageLength else {
            throw BusError(.invalidArgs, "a message of \(message.count) bytes is longer than D-Bus allows (128 MiB)")
        }
        bytes = message.withBytes { Array($0) }
        #if DEBUG
        do { _ = try libdbusMessage(serial: 1) } catch {
            preconditionFailure("MessageWriter wrote a message libdbus refuses: \(error.message)")
        }
        #endif
    }

    /// A method call carrying `arguments`.
    static func methodCall<each Argument: BusValue>(
        destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName, noReply: Bool = false,
        _ arguments: repeat each Argument
    ) throws(BusError) -> OutgoingMessage {
        let header = Header(
            kind: .methodCall, path: path, interface: interface, member: member, destination: destination, noReply: noReply)
        return try OutgoingMessage(header, arguments: MessageWriter(writing: repeat each arguments))
    }

    /// A signal carrying `arguments`, to every subscriber or only to `destination`.
    static func signal<each Argument: BusValue>(
        path: ObjectPath, interface: InterfaceName, member: MemberName, destination: BusName?,
        _ arguments: repeat each Argument
    ) throws(BusError) -> OutgoingMessage {
        let header = Header(kind: .signal, path: path, interface: interface, member: member, destination: destination)
        return try OutgoingMessage(header, arguments: MessageWriter(writing: repeat each arguments))
    }

    /// The reply to `call`, carrying `values`.
    static func reply<each Value: BusValue>(to call: Message, _ values: repeat each Value) throws(BusError) -> OutgoingMessage {
        let header = Header(kind: .methodReturn, replySerial: call.serial, destination: call.sender, noReply: true)
        return try OutgoingMessage(header, arguments: MessageWriter(writing: repeat each values))
    }

    /// The error reply to `call`: `error`'s name, and its message as the one argument.
    static func error(replyingTo call: Message, _ error: BusError) -> OutgoingMessage {
        let header = Header(
            kind: .error, errorName: error.name, replySerial: call.serial, destination: call.sender, noReply: true)
        // A D-Bus string cannot hold NUL: keep the part before it rather than lose the error.
        let text = String(error.message.split(separator: "\0", omittingEmptySubsequences: false).first ?? "")
        if let reply = try? OutgoingMessage(header, arguments: MessageWriter(writing: text)) { return reply }
        // Only a text longer than a message may be (one quoting a huge argument) fails: say so instead.
        let short = "\(text.prefix(1_000))… (the rest of this error's text, \(text.utf8.count) bytes in all, did not fit in a message)"
        do { return try OutgoingMessage(header, arguments: MessageWriter(writing: short)) } catch {
            preconditionFailure("an error reply of \(short.utf8.count) bytes cannot fail: \(error)")
        }
    }

    /// The whole message with `serial` in place.
    func bytes(serial: UInt32) -> [UInt8] {
        var bytes = bytes
        bytes.withUnsafeMutableBytes { $0.storeBytes(of: serial, toByteOffset: Wire.serialOffset, as: UInt32.self) }
        return bytes
    }

    /// libdbus's own copy of this message, with `serial`: for a send that must queue behind messages
    /// libdbus holds, and for reading values back.
    func libdbusMessage(serial: UInt32) throws(BusError) -> Message {
        try bytes(serial: serial).withUnsafeBytes { raw in
            Result { () throws(BusError) in try Message.demarshal(raw) }
        }.get()
    }
}

/// Constants of the wire format (the D-Bus specification, "Message Format").
private enum Wire {
    /// `l` on little-endian hosts, `B` on big-endian ones: the writer writes in the host's order.
    static let hostByteOrder = UInt8(ascii: 1.littleEndian == 1 ? "l" : "B")
    static let protocolVersion: UInt8 = 1
    static let noReplyExpected: UInt8 = 0x1
    /// Byte order, kind, flags, version, body length, serial: the part before the header fields.
    static let fixedHeaderLength = 16
    static let serialOffset = 8
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
