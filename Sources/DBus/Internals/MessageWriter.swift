internal import Glibc

/// Appends arguments to a message being built, in the D-Bus wire format.
///
/// The bytes are the message body in the host's byte order (which the header then declares), every
/// value aligned to its size from the start of the body. `OutgoingMessage` puts a header in front
/// and has libdbus read the whole, which checks it against the D-Bus rules: what a container holds
/// against its declared type, signatures, nesting. So the writer only records the type codes it
/// writes (the header's signature) and refuses what libdbus would silently cut short (a NUL in a
/// string) or could not be told (a signature over 255 codes).
///
/// Writing never throws: a value that cannot travel is remembered, and building the message then
/// throws it as a `BusError` (`InvalidArgs`).
public struct MessageWriter: ~Copyable {
    /// The bytes written so far: `count` of `capacity`, owned by this writer.
    private var storage: UnsafeMutableRawPointer
    private var capacity: Int
    private(set) var count: Int
    /// The type codes of the top-level values written (the header's signature); what a container
    /// holds is named by the type it declares. A string: up to 15 codes, as most calls have, it
    /// needs no allocation.
    private(set) var signature: String
    /// How many containers are open around the value being written: their contents are not top level.
    private var depth: Int
    var failure: BusError?

    @usableFromInline
    init(capacity: Int = 256) {
        self.capacity = capacity
        // malloc's alignment (16) is more than any D-Bus value needs; `allocate(byteCount:alignment:)`
        // would take the runtime's aligned path (posix_memalign) for every message.
        guard let bytes = malloc(capacity) else { fatalError("out of memory for a message of \(capacity) bytes") }
        storage = bytes
        count = 0
        signature = ""
        depth = 0
        failure = nil
    }

    /// A writer holding `values`, in order. (Written here rather than in a closure: a closure
    /// capturing the pack makes the runtime look up the pack's tuple type on every call; inlinable
    /// for the same reason, so that `Connection.call` is specialized where it is called.)
    @inlinable
    init<each Value: BusValue>(writing values: repeat each Value) {
        self.init()
        for value in repeat each values { write(value) }
    }

    deinit { free(storage) }

    /// Appends one value.
    public mutating func write<Value: BusValue>(_ value: Value) {
        value.write(to: &self)
    }

    /// Appends an array whose elements `body` writes, each of type `element`.
    public mutating func writeArray(of element: Signature, _ body: (inout MessageWriter) -> Void) {
        record(UInt8(truncatingIfNeeded: TypeCode.array))
        record(element)
        align(to: 4)
        let lengthOffset = count
        appendRaw(UInt32(0))
        // The padding before the first element is there even when there is none, and not counted.
        align(to: Self.alignment(of: element.rawValue.utf8.first ?? 0))
        let start = count
        writeContents(body)
        overwrite(UInt32(truncatingIfNeeded: count - start), at: lengthOffset)
    }

    /// Appends a struct whose fields `body` writes in order; its type is what they are.
    public mutating func writeStructure(_ body: (inout MessageWriter) -> Void) {
        align(to: 8)
        record(UInt8(ascii: "("))
        body(&self)
        record(UInt8(ascii: ")"))
    }

    /// Appends one dictionary entry (an element of an array of `{kv}`); `body` writes the key, then the value.
    public mutating func writeDictionaryEntry(_ body: (inout MessageWriter) -> Void) {
        align(to: 8)
        record(UInt8(ascii: "{"))  // only outside an array, where libdbus refuses it
        body(&self)
        record(UInt8(ascii: "}"))
    }

    /// Appends a variant holding one value of type `contained`, which `body` writes.
    public mutating func writeVariant(of contained: Signature, _ body: (inout MessageWriter) -> Void) {
        record(UInt8(truncatingIfNeeded: TypeCode.variant))
        appendSignatureBytes(contained.rawValue)
        writeContents(body)
    }

    /// Runs `body`, which writes a container's contents: their type is the container's, already recorded.
    private mutating func writeContents(_ body: (inout MessageWriter) -> Void) {
        depth += 1
        body(&self)
        depth -= 1
    }

    /// Appends a fixed-size basic value of type code `type`, whose Swift layout is its wire layout
    /// in the host's byte order.
    mutating func appendFixed<Value: BitwiseCopyable>(_ type: Int32, _ value: Value) {
        record(UInt8(truncatingIfNeeded: type))
        align(to: MemoryLayout<Value>.size)
        appendRaw(value)
    }

    /// Appends a string-like value of type code `type` (`s`, `o` or `g`).
    mutating func appendString(_ type: Int32, _ value: String) {
        var contiguous = value
        contiguous.withUTF8 { utf8 in
            if let base = utf8.baseAddress, memchr(base, 0, utf8.count) != nil {
                fail(BusError(.invalidArgs, "a D-Bus string cannot contain NUL: \(value.debugDescription)"))
                return
            }
            record(UInt8(truncatingIfNeeded: type))
            if type == TypeCode.signature {
                appendSignatureBytes(utf8)
                return
            }
            appendStringBytes(utf8)
        }
    }

    // MARK: Bytes

    /// A signature on the wire: its length in one byte, the codes, NUL (no alignment).
    private mutating func appendSignatureBytes(_ signature: UnsafeBufferPointer<UInt8>) {
        guard signature.count <= 255 else {
            fail(BusError(.invalidArgs, "a D-Bus signature is at most 255 characters, not \(signature.count)"))
            return
        }
        appendRaw(UInt8(signature.count))
        appendBytes(UnsafeRawBufferPointer(signature))
        appendRaw(UInt8(0))
    }

    private mutating func appendSignatureBytes(_ signature: String) {
        var signature = signature
        signature.withUTF8 { appendSignatureBytes($0) }
    }

    /// A string on the wire: aligned to 4, its length, its bytes, NUL.
    private mutating func appendStringBytes(_ utf8: UnsafeBufferPointer<UInt8>) {
        align(to: 4)
        appendRaw(UInt32(truncatingIfNeeded: utf8.count))
        appendBytes(UnsafeRawBufferPointer(utf8))
        appendRaw(UInt8(0))
    }

    mutating func appendRaw<Value: BitwiseCopyable>(_ value: Value) {
        reserve(MemoryLayout<Value>.size)
        storage.storeBytes(of: value, toByteOffset: count, as: Value.self)
        count += MemoryLayout<Value>.size
    }

    private mutating func appendBytes(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (storage + count).copyMemory(from: base, byteCount: bytes.count)
        count += bytes.count
    }

    /// `boundary` is 1, 2, 4 or 8.
    @inline(__always)
    mutating func align(to boundary: Int) {
        let padding = (boundary - count & (boundary - 1)) & (boundary - 1)
        guard padding > 0 else { return }
        reserve(padding)
        (storage + count).initializeMemory(as: UInt8.self, repeating: 0, count: padding)
        count += padding
    }

    /// Checked before every value written: the check stays inline, growing does not.
    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(toHold: extra) }
    }

    @inline(never)
    private mutating func grow(toHold extra: Int) {
        var grown = capacity * 2
        while grown < count + extra { grown *= 2 }
        guard let larger = realloc(storage, grown) else { fatalError("out of memory for a message of \(grown) bytes") }
        storage = larger
        capacity = grown
    }

    /// Records a code of a top-level value; codes inside a container are its declared type's.
    private mutating func record(_ code: UInt8) {
        if depth == 0 { signature.unicodeScalars.append(Unicode.Scalar(code)) }
    }

    private mutating func record(_ contained: Signature) {
        if depth == 0 { signature += contained.rawValue }
    }

    private mutating func fail(_ error: BusError) {
        if failure == nil { failure = error }
    }

    /// The alignment of values whose signature starts with `code`.
    static func alignment(of code: UInt8) -> Int {
        switch code {
        case UInt8(ascii: "n"), UInt8(ascii: "q"): 2
        case UInt8(ascii: "b"), UInt8(ascii: "i"), UInt8(ascii: "u"), UInt8(ascii: "s"), UInt8(ascii: "o"),
             UInt8(ascii: "a"), UInt8(ascii: "h"): 4
        case UInt8(ascii: "x"), UInt8(ascii: "t"), UInt8(ascii: "d"), UInt8(ascii: "("), UInt8(ascii: "{"): 8
        default: 1  // y, g, v
        }
    }
}

extension MessageWriter {
    /// Appends a body written by another writer, after the header (which ends 8-aligned).
    /// A writer holding `body`, values of `signature` already in the wire format (this machine's
    /// byte order), unchecked here: libdbus checks them when it reads the message they go into.
    init(body: [UInt8], signature: Signature) {
        self.init(capacity: max(body.count, 8))
        body.withUnsafeBytes { appendBytes($0) }
        self.signature = signature.rawValue
    }

    mutating func appendBody(_ body: borrowing MessageWriter) {
        body.withBytes { appendBytes($0) }
    }

    /// Appends one header field whose value is a string-like `type` (`s`, `o` or `g`), as a `(yv)`.
    /// Written straight rather than through `writeStructure` and `writeVariant`: a message has
    /// five such fields, and their closures cost more than the rest of the header.
    mutating func appendHeaderField(_ code: UInt8, _ type: Int32, _ value: String) {
        align(to: 8)
        appendRaw(code)
        appendRaw(UInt8(1))
        appendRaw(UInt8(truncatingIfNeeded: type))
        appendRaw(UInt8(0))
        var contiguous = value
        contiguous.withUTF8 { utf8 in
            if type == TypeCode.signature { appendSignatureBytes(utf8) } else { appendStringBytes(utf8) }
        }
    }

    /// Appends one header field holding a `u`, as a `(yv)`.
    mutating func appendHeaderField(_ code: UInt8, _ value: UInt32) {
        align(to: 8)
        appendRaw(code)
        appendRaw(UInt8(1))
        appendRaw(UInt8(truncatingIfNeeded: TypeCode.uint32))
        appendRaw(UInt8(0))
        align(to: 4)
        appendRaw(value)
    }

    func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        body(UnsafeRawBufferPointer(start: storage, count: count))
    }

    /// Stores `value` at `offset`, over bytes already written.
    mutating func overwrite(_ value: UInt32, at offset: Int) {
        storage.storeBytes(of: value, toByteOffset: offset, as: UInt32.self)
    }
}
