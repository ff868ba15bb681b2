internal import CDBus
internal import Glibc

// Type codes are the signature characters themselves (DBUS_TYPE_* in dbus-protocol.h).
enum TypeCode {
    static let invalid: Int32 = 0
    static let byte = code("y"), boolean = code("b"), int16 = code("n"), uint16 = code("q")
    static let int32 = code("i"), uint32 = code("u"), int64 = code("x"), uint64 = code("t")
    static let double = code("d"), string = code("s"), objectPath = code("o"), signature = code("g")
    static let unixFD = code("h"), array = code("a"), variant = code("v")
    static let structure = code("r"), dictionaryEntry = code("e")

    private static func code(_ character: Unicode.Scalar) -> Int32 { Int32(UInt8(ascii: character)) }
}

/// Appends arguments to a message being built, through a libdbus append iterator (`DBusMessageIter`).
///
/// Writing never throws: a value libdbus cannot carry (a string containing NUL) or an allocation
/// failure is remembered, and building the message then throws it as a `BusError`.
public struct MessageWriter: ~Copyable {
    var iterator: DBusMessageIter
    var failure: BusError?

    /// A writer appending to the end of `message`; `dbus_message_iter_init_append`.
    init(appendingTo message: LibdbusReference) {
        iterator = DBusMessageIter()
        failure = nil
        dbus_message_iter_init_append(message.pointer, &iterator)
    }

    private init(child: DBusMessageIter) {
        iterator = child
        failure = nil
    }

    /// Appends one value.
    public mutating func write<Value: BusValue>(_ value: Value) {
        value.write(to: &self)
    }

    /// Appends an array whose elements `body` writes, each of type `element`.
    public mutating func writeArray(of element: Signature, _ body: (inout MessageWriter) -> Void) {
        writeContainer(TypeCode.array, contained: element.rawValue, body)
    }

    /// Appends a struct whose fields `body` writes in order.
    public mutating func writeStructure(_ body: (inout MessageWriter) -> Void) {
        writeContainer(TypeCode.structure, contained: nil, body)
    }

    /// Appends one dictionary entry (only inside an array of `{kv}`); `body` writes the key, then the value.
    public mutating func writeDictionaryEntry(_ body: (inout MessageWriter) -> Void) {
        writeContainer(TypeCode.dictionaryEntry, contained: nil, body)
    }

    /// Appends a variant holding one value of type `contained`, which `body` writes.
    public mutating func writeVariant(of contained: Signature, _ body: (inout MessageWriter) -> Void) {
        writeContainer(TypeCode.variant, contained: contained.rawValue, body)
    }

    /// `dbus_message_iter_open_container` / `dbus_message_iter_close_container`.
    private mutating func writeContainer(
        _ type: Int32, contained: String?, _ body: (inout MessageWriter) -> Void
    ) {
        var child = MessageWriter(child: DBusMessageIter())
        let opened: Bool
        if let contained {
            opened = contained.withCString { dbus_message_iter_open_container(&iterator, type, $0, &child.iterator) != 0 }
        } else {
            opened = dbus_message_iter_open_container(&iterator, type, nil, &child.iterator) != 0
        }
        guard opened else {
            failure = failure ?? BusError(.noMemory, "cannot open a container in the message")
            return
        }
        body(&child)
        if failure == nil { failure = child.failure }
        if dbus_message_iter_close_container(&iterator, &child.iterator) == 0 {
            failure = failure ?? BusError(.noMemory, "cannot close a container in the message")
        }
    }

    /// Appends a fixed-size basic value whose Swift layout is its C layout; `dbus_message_iter_append_basic`.
    mutating func appendFixed<Value: BitwiseCopyable>(_ type: Int32, _ value: Value) {
        let appended = withUnsafePointer(to: value) { dbus_message_iter_append_basic(&iterator, type, $0) != 0 }
        if !appended { failure = failure ?? BusError(.noMemory, "cannot append a value to the message") }
    }

    /// Appends a string-like value (`s`, `o`, `g`); `dbus_message_iter_append_basic`.
    mutating func appendString(_ type: Int32, _ value: String) {
        let count = value.utf8.count
        let appended: Bool? = value.withCString { cString in
            // A NUL inside would cut the string short: the C string is then shorter than the text.
            guard strlen(cString) == count else { return nil }
            return withUnsafePointer(to: cString) { dbus_message_iter_append_basic(&iterator, type, $0) != 0 }
        }
        switch appended {
        case nil: failure = failure ?? BusError(.invalidArgs, "a D-Bus string cannot contain NUL: \(value.debugDescription)")
        case false?: failure = failure ?? BusError(.noMemory, "cannot append a string to the message")
        case true?: break
        }
    }
}

/// Reads a received message's arguments in order, through a libdbus read iterator (`DBusMessageIter`).
///
/// Every read checks the type found against the type expected and throws `ArgumentError` on a
/// mismatch, so a malformed message can never be misread. The reader keeps the message alive.
public struct MessageReader: ~Copyable {
    var iterator: DBusMessageIter
    /// Index of the top-level argument being read, for error reports.
    private(set) var position: Int
    private let isTopLevel: Bool
    private let message: LibdbusReference

    /// A reader at the first argument; `dbus_message_iter_init`.
    init(reading message: LibdbusReference) {
        iterator = DBusMessageIter()
        position = 0
        isTopLevel = true
        self.message = message
        dbus_message_iter_init(message.pointer, &iterator)
    }

    private init(child: DBusMessageIter, position: Int, message: LibdbusReference) {
        iterator = child
        self.position = position
        isTopLevel = false
        self.message = message
    }

    /// Reads one value of type `Value`.
    /// - Throws: `ArgumentError` when the next argument is not a `Value`, or there is none.
    public mutating func read<Value: BusValue>(_ type: Value.Type = Value.self) throws -> Value {
        try Value(from: &self)
    }

    /// Whether every value at this level has been read.
    public var isAtEnd: Bool {
        mutating get { dbus_message_iter_get_arg_type(&iterator) == TypeCode.invalid }
    }

    /// The signature of the next value, empty at the end; `dbus_message_iter_get_signature`.
    public var nextSignature: String {
        mutating get {
            guard !isAtEnd, let signature = dbus_message_iter_get_signature(&iterator) else { return "" }
            defer { dbus_free(signature) }
            return String(cString: signature)
        }
    }

    var nextTypeCode: Int32 { mutating get { dbus_message_iter_get_arg_type(&iterator) } }

    /// Throws unless every value at this level has been read.
    public mutating func expectEnd() throws {
        if !isAtEnd { throw ArgumentError(position: position, expected: "", found: nextSignature) }
    }

    /// Throws a mismatch naming `expected` and what is actually next.
    public mutating func mismatch(expected: Signature, detail: String = "") -> ArgumentError {
        ArgumentError(position: position, expected: expected.rawValue, found: nextSignature, detail: detail)
    }

    /// Reads an array of `element`, calling `body` once per element with a reader positioned on it.
    /// - Throws: `ArgumentError` when the next value is not such an array, or whatever `body` throws.
    public mutating func readArray(of element: Signature, _ body: (inout MessageReader) throws -> Void) throws {
        try expectContainer(Signature(unchecked: "a" + element.rawValue))
        var child = recursed()
        while !child.isAtEnd { try body(&child) }
        advance()
    }

    /// Reads a struct whose signature is `signature`; `body` reads its fields.
    public mutating func readStructure<Result>(
        _ signature: Signature, _ body: (inout MessageReader) throws -> Result
    ) throws -> Result {
        try expectContainer(signature)
        var child = recursed()
        let result = try body(&child)
        try child.expectEnd()
        advance()
        return result
    }

    /// Reads one dictionary entry (inside an array of `{kv}`); `body` reads the key, then the value.
    public mutating func readDictionaryEntry<Result>(_ body: (inout MessageReader) throws -> Result) throws -> Result {
        guard nextTypeCode == TypeCode.dictionaryEntry else {
            throw ArgumentError(position: position, expected: "{…}", found: nextSignature)
        }
        var child = recursed()
        let result = try body(&child)
        advance()
        return result
    }

    /// Reads a variant; `body` gets the contained value's signature and a reader positioned on it.
    public mutating func readVariant<Result>(
        _ body: (Signature, inout MessageReader) throws -> Result
    ) throws -> Result {
        guard nextTypeCode == TypeCode.variant else { throw mismatch(expected: "v") }
        var child = recursed()
        let contained = Signature(unchecked: child.nextSignature)
        let result = try body(contained, &child)
        advance()
        return result
    }

    /// Checks that the next value is exactly of (container) type `signature`.
    private mutating func expectContainer(_ signature: Signature) throws {
        guard let found = dbus_message_iter_get_signature(&iterator) else {
            throw mismatch(expected: signature)
        }
        defer { dbus_free(found) }
        let same = signature.rawValue.withCString { strcmp($0, found) == 0 }
        if !same || isAtEnd { throw mismatch(expected: signature) }
    }

    /// A reader for the container at the iterator; `dbus_message_iter_recurse`.
    private mutating func recursed() -> MessageReader {
        var child = DBusMessageIter()
        dbus_message_iter_recurse(&iterator, &child)
        return MessageReader(child: child, position: position, message: message)
    }

    /// `dbus_message_iter_next`.
    private mutating func advance() {
        dbus_message_iter_next(&iterator)
        if isTopLevel { position += 1 }
    }

    /// Reads a fixed-size basic value of type code `type`; `dbus_message_iter_get_basic`.
    mutating func readFixed<Value: BitwiseCopyable>(
        _ type: Int32, _ signature: Signature, initial: Value
    ) throws -> Value {
        guard nextTypeCode == type else { throw mismatch(expected: signature) }
        var value = initial
        withUnsafeMutablePointer(to: &value) { dbus_message_iter_get_basic(&iterator, $0) }
        advance()
        return value
    }

    /// Reads a string-like basic value (`s`, `o`, `g`); libdbus has validated it on receipt.
    mutating func readString(_ type: Int32, _ signature: Signature) throws -> String {
        guard nextTypeCode == type else { throw mismatch(expected: signature) }
        var cString: UnsafePointer<CChar>? = nil
        withUnsafeMutablePointer(to: &cString) { dbus_message_iter_get_basic(&iterator, $0) }
        advance()
        return cString.map { String(cString: $0) } ?? ""
    }
}
