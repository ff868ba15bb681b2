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

    /// Reads a variant's content with `body`, without its signature (which libdbus would allocate).
    mutating func readVariantContent<Result>(_ body: (inout MessageReader) throws -> Result) throws -> Result {
        guard nextTypeCode == TypeCode.variant else { throw mismatch(expected: "v") }
        var child = recursed()
        let result = try body(&child)
        advance()
        return result
    }

    /// Reads the container next (array, struct or dictionary entry) with `body`, unchecked: for
    /// readers whose type comes from this iterator.
    mutating func readContents<Result>(_ body: (inout MessageReader) throws -> Result) rethrows -> Result {
        var child = recursed()
        let result = try body(&child)
        advance()
        return result
    }

    /// The type code of the next array's elements (their first code, for a container);
    /// `dbus_message_iter_get_element_type`.
    var nextElementTypeCode: Int32 { mutating get { dbus_message_iter_get_element_type(&iterator) } }

    /// Checks that the next value is exactly of (container) type `signature`.
    private mutating func expectContainer(_ signature: Signature) throws {
        // An array of a basic type is told by its two codes, without the signature libdbus allocates.
        let codes = signature.rawValue.utf8
        if codes.count == 2, codes.first == UInt8(ascii: "a"), let element = codes.last, Self.isBasic(element) {
            guard nextTypeCode == TypeCode.array, nextElementTypeCode == Int32(element) else { throw mismatch(expected: signature) }
            return
        }
        guard let found = dbus_message_iter_get_signature(&iterator) else {
            throw mismatch(expected: signature)
        }
        defer { dbus_free(found) }
        let same = signature.rawValue.withCString { strcmp($0, found) == 0 }
        if !same || isAtEnd { throw mismatch(expected: signature) }
    }

    /// Whether `code` is a basic type's (one code is its whole signature).
    static func isBasic(_ code: UInt8) -> Bool {
        switch code {
        case UInt8(ascii: "y"), UInt8(ascii: "b"), UInt8(ascii: "n"), UInt8(ascii: "q"), UInt8(ascii: "i"), UInt8(ascii: "u"),
             UInt8(ascii: "x"), UInt8(ascii: "t"), UInt8(ascii: "d"), UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"),
             UInt8(ascii: "h"):
            true
        default: false
        }
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
