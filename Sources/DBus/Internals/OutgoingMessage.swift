/// A message to send, built and checked by libdbus; it is sent once, and libdbus numbers it then.
///
/// The arguments are written in the wire format by `MessageWriter` and the header put in front
/// here; libdbus then reads the whole once (`dbus_message_demarshal`), which validates every byte
/// — so a value that cannot travel, or a mistake of the writer's, is an `InvalidArgs` error for the
/// caller and never a malformed message on the bus. This measured cheaper than building the
/// message through libdbus's append iterators, which rewrite the header's signature after every
/// argument.
struct OutgoingMessage: Sendable {
    /// What a message says besides its arguments; the bus adds the sender, libdbus the serial.
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
        /// The bus must not start the destination's service for it (`NO_AUTO_START`).
        var noAutoStart = false
    }

    /// libdbus's message, serial 0 until sent.
    let message: Message
    /// The method called, for messages that are calls (named in a timeout's error).
    let member: MemberName?
    /// The arguments' signature as it was given to libdbus. Asking libdbus instead
    /// (`dbus_message_get_signature`) re-reads the whole header of a message it has just made (an
    /// empty reply's), on the path of every acknowledgement.
    let signature: String

    /// Writes `header` in front of `arguments` and has libdbus read and check the whole.
    /// - Throws: `BusError` (`InvalidArgs`) when an argument cannot travel or the message is too long.
    init(_ header: Header, arguments: borrowing MessageWriter) throws(BusError) {
        member = header.member
        message = try Self.read(header, arguments: arguments).unnumberedCopy()
        signature = arguments.signature
    }

    /// libdbus's reading of `header` in front of `arguments`, numbered 1 (it reads no message
    /// numbered 0): what gets sent is a copy without that serial.
    /// - Throws: `BusError` (`InvalidArgs`) when an argument cannot travel or the message is too long.
    static func read(_ header: Header, arguments: borrowing MessageWriter) throws(BusError) -> Message {
        let bytes = try wire(header, arguments: arguments)
        return try bytes.withBytes { raw in Result { () throws(BusError) in try Message.demarshal(raw) } }.get()
    }

    /// `header` in front of `arguments`, numbered 1, in the wire format, unchecked by libdbus.
    /// - Throws: `BusError` (`InvalidArgs`) when an argument cannot travel or the message is too long.
    static func wire(_ header: Header, arguments: borrowing MessageWriter) throws(BusError) -> MessageWriter {
        if let failure = arguments.failure { throw failure }
        guard arguments.signature.utf8.count <= 255 else {
            throw BusError(.invalidArgs, "a message carries at most 255 type codes, not \(arguments.signature.utf8.count)")
        }
        var bytes = MessageWriter(capacity: 128 + arguments.count)
        bytes.appendRaw(Wire.hostByteOrder)
        bytes.appendRaw(header.kind.wireCode)
        bytes.appendRaw((header.noReply ? Wire.noReplyExpected : 0) | (header.noAutoStart ? Wire.noAutoStart : 0))
        bytes.appendRaw(Wire.protocolVersion)
        bytes.appendRaw(UInt32(arguments.count))
        bytes.appendRaw(UInt32(1))  // the serial
        // The header fields, an array of (yv) whose length is filled in once they are written.
        bytes.appendRaw(UInt32(0))
        bytes.align(to: 8)
        let fieldsStart = bytes.count
        if let path = header.path { bytes.appendHeaderField(1, TypeCode.objectPath, path.rawValue) }
        if let interface = header.interface { bytes.appendHeaderField(2, TypeCode.string, interface.rawValue) }
        if let member = header.member { bytes.appendHeaderField(3, TypeCode.string, member.rawValue) }
        if let errorName = header.errorName { bytes.appendHeaderField(4, TypeCode.string, errorName.rawValue) }
        if let replySerial = header.replySerial { bytes.appendHeaderField(5, replySerial) }
        if let destination = header.destination { bytes.appendHeaderField(6, TypeCode.string, destination.rawValue) }
        if !arguments.signature.isEmpty {
            bytes.appendHeaderField(8, TypeCode.signature, arguments.signature)
        }
        bytes.overwrite(UInt32(bytes.count - fieldsStart), at: 12)
        bytes.align(to: 8)
        bytes.appendBody(arguments)
        if let failure = bytes.failure { throw failure }
        guard bytes.count <= Wire.maximumMessageLength else {
            throw BusError(.invalidArgs, "a message of \(bytes.count) bytes is longer than D-Bus allows (128 MiB)")
        }
        return bytes
    }

    /// A method call carrying `arguments`.
    static func methodCall<each Argument: BusValue>(
        destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName, noReply: Bool = false,
        autoStart: Bool = true, _ arguments: repeat each Argument
    ) throws(BusError) -> OutgoingMessage {
        try methodCall(
            destination: destination, path: path, interface: interface, member: member, noReply: noReply, autoStart: autoStart,
            writing: MessageWriter(writing: repeat each arguments))
    }

    /// A method call carrying what `arguments` holds.
    static func methodCall(
        destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName, noReply: Bool = false,
        autoStart: Bool = true, writing arguments: consuming MessageWriter
    ) throws(BusError) -> OutgoingMessage {
        let header = Header(
            kind: .methodCall, path: path, interface: interface, member: member, destination: destination, noReply: noReply,
            noAutoStart: !autoStart)
        return try OutgoingMessage(header, arguments: arguments)
    }

    /// A signal carrying `arguments`, to every subscriber or only to `destination`.
    static func signal<each Argument: BusValue>(
        path: ObjectPath, interface: InterfaceName, member: MemberName, destination: BusName?,
        _ arguments: repeat each Argument
    ) throws(BusError) -> OutgoingMessage {
        let header = Header(kind: .signal, path: path, interface: interface, member: member, destination: destination)
        return try OutgoingMessage(header, arguments: MessageWriter(writing: repeat each arguments))
    }

    /// The reply to `call`, sent by `caller`, carrying `values`.
    static func reply<each Value: BusValue>(
        to call: Message, from caller: BusName?, _ values: repeat each Value
    ) throws(BusError) -> OutgoingMessage {
        let arguments = MessageWriter(writing: repeat each values)
        // Most replies carry nothing (an app's acknowledgement of an event): libdbus makes those
        // itself, at less than half the cost of reading back a header written here.
        if arguments.count == 0, arguments.failure == nil {
            return OutgoingMessage(emptyReplyTo: call)
        }
        let header = Header(kind: .methodReturn, replySerial: call.serial, destination: caller, noReply: true)
        return try OutgoingMessage(header, arguments: arguments)
    }

    /// The error reply to `call`: `error`'s name, and its message as the one argument
    /// (`dbus_message_new_error`).
    static func error(replyingTo call: Message, _ error: BusError) -> OutgoingMessage {
        // A D-Bus string cannot hold NUL: keep the part before it rather than lose the error.
        var text = String(error.message.split(separator: "\0", omittingEmptySubsequences: false).first ?? "")
        // Only a text longer than a message may be (one quoting a huge argument) cannot travel: say so instead.
        if text.utf8.count > Wire.maximumMessageLength / 2 {
            text = "\(text.prefix(1_000))… (the rest of this error's text, \(text.utf8.count) bytes in all, did not fit in a message)"
        }
        return OutgoingMessage(errorReplyingTo: call, name: error.name, text: text)
    }

    private init(emptyReplyTo call: Message) {
        message = Message.emptyReply(to: call)
        member = nil
        signature = ""
    }

    private init(errorReplyingTo call: Message, name: ErrorName, text: String) {
        message = Message.error(replyingTo: call, name: name, text: text)
        member = nil
        signature = "s"  // its text
    }
}

/// Constants of the wire format (the D-Bus specification, "Message Format").
private enum Wire {
    /// `l` on little-endian hosts, `B` on big-endian ones: the writer writes in the host's order.
    static let hostByteOrder = UInt8(ascii: 1.littleEndian == 1 ? "l" : "B")
    static let protocolVersion: UInt8 = 1
    static let noReplyExpected: UInt8 = 0x1
    static let noAutoStart: UInt8 = 0x2
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
