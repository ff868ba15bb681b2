internal import Glibc

/// Appends arguments to a message being built, in the D-Bus wire format, written here directly.
///
/// The bytes are the message body in the host's byte order (which the header then declares), every
/// value aligned to its size from the start of the body. `OutgoingMessage` puts a header in front,
/// and the connection writes the result to the bus socket as it is: no library reads it back.
///
/// So the writer keeps every message valid by construction. What goes inside a container is checked
/// against the container's declared type when it closes (an array's elements against its element
/// type, a variant's content against the signature it announced), a declared type must be one
/// complete type, dictionary entries may only be an array's elements, and containers nest no deeper
/// than the specification allows. Names, paths and signatures are valid by their types; strings
/// are valid UTF-8 by Swift's, and NUL is refused here.
///
/// Writing never throws: a value that cannot travel is remembered, and building the message then
/// throws it as a `BusError` (`InvalidArgs`).
public struct MessageWriter: ~Copyable {
    /// The bytes written so far: `count` of `capacity`, owned by this writer.
    private var storage: UnsafeMutableRawPointer
    private var capacity: Int
    private(set) var count: Int
    /// The type codes of what has been written: the top-level values' (the header's signature)
    /// once every container is closed. An open container's contents are recorded after its start,
    /// checked when it closes, and replaced by the container's own type.
    private(set) var signature: [UInt8]
    /// How deeply containers are open here, by kind (the specification's limits).
    private var depth: NestingDepth
    /// Whether the innermost open container is an array of dictionary entries.
    private var insideEntryArray: Bool
    var failure: BusError?

    init(capacity: Int = 256) {
        self.capacity = capacity
        storage = .allocate(byteCount: capacity, alignment: 8)
        count = 0
        signature = []
        depth = NestingDepth()
        insideEntryArray = false
        failure = nil
    }

    /// A writer holding `values`, in order. (Written here rather than in a closure: a closure
    /// capturing the pack makes the runtime look up the pack's tuple type on every call.)
    init<each Value: BusValue>(writing values: repeat each Value) {
        self.init()
        for value in repeat each values { write(value) }
    }

    deinit { storage.deallocate() }

    /// Appends one value.
    public mutating func write<Value: BusValue>(_ value: Value) {
        value.write(to: &self)
    }

    /// Appends an array whose elements `body` writes, each of type `element`.
    public mutating func writeArray(of element: Signature, _ body: (inout MessageWriter) -> Void) {
        guard SignatureGrammar.isArrayElement(element) else {
            fail(BusError(.invalidArgs, "an array's elements must be one complete type or {key value}, not '\(element)'"))
            return
        }
        align(to: 4)
        let lengthOffset = count
        appendRaw(UInt32(0))
        // The padding before the first element is there even when there is none, and not counted.
        let firstCode = element.rawValue.utf8.first ?? 0
        align(to: Self.alignment(of: firstCode))
        let start = count
        let contents = signature.count
        let outer = (depth, insideEntryArray)
        guard depth.enter(.array) else { return nestedTooDeeply() }
        insideEntryArray = firstCode == UInt8(ascii: "{")
        body(&self)
        (depth, insideEntryArray) = outer
        let length = count - start
        guard length <= Self.maximumArrayLength else {
            fail(BusError(.invalidArgs, "an array of \(length) bytes is longer than D-Bus allows (64 MiB)"))
            return
        }
        overwrite(UInt32(length), at: lengthOffset)
        if !recorded(since: contents, isRepeated: element) {
            fail(BusError(.invalidArgs, "an array of '\(element)' holds '\(recordedText(since: contents))'"))
        }
        signature.removeSubrange(contents...)
        record(TypeCode.array)
        record(element)
    }

    /// Appends a struct whose fields `body` writes in order.
    public mutating func writeStructure(_ body: (inout MessageWriter) -> Void) {
        align(to: 8)
        let contents = signature.count
        record(UInt8(ascii: "("))
        let outer = depth
        guard depth.enter(.structure) else { return nestedTooDeeply() }
        let entryArray = insideEntryArray
        insideEntryArray = false
        body(&self)
        (depth, insideEntryArray) = (outer, entryArray)
        if signature.count == contents + 1 { fail(BusError(.invalidArgs, "a D-Bus struct needs at least one field")) }
        record(UInt8(ascii: ")"))
    }

    /// Appends one dictionary entry (only inside an array of `{kv}`); `body` writes the key, then the value.
    /// The array's element type decides what the key and value must be.
    public mutating func writeDictionaryEntry(_ body: (inout MessageWriter) -> Void) {
        guard insideEntryArray else {
            fail(BusError(.invalidArgs, "a dictionary entry can only be an element of an array of entries"))
            return
        }
        align(to: 8)
        record(UInt8(ascii: "{"))
        let outer = depth
        guard depth.enter(.structure) else { return nestedTooDeeply() }
        insideEntryArray = false
        body(&self)
        (depth, insideEntryArray) = (outer, true)
        record(UInt8(ascii: "}"))
    }

    /// Appends a variant holding one value of type `contained`, which `body` writes.
    public mutating func writeVariant(of contained: Signature, _ body: (inout MessageWriter) -> Void) {
        guard SignatureGrammar.isSingleCompleteType(contained) else {
            fail(BusError(.invalidArgs, "a variant holds one complete type, not '\(contained)'"))
            return
        }
        appendSignatureBytes(contained.rawValue)
        let contents = signature.count
        let outer = (depth, insideEntryArray)
        guard depth.enter(.variant) else { return nestedTooDeeply() }
        insideEntryArray = false
        body(&self)
        (depth, insideEntryArray) = outer
        if !recorded(since: contents, is: contained) {
            fail(BusError(.invalidArgs, "a variant of '\(contained)' holds '\(recordedText(since: contents))'"))
        }
        signature.removeSubrange(contents...)
        record(TypeCode.variant)
    }

    /// Appends a fixed-size basic value of type code `type`, whose Swift layout is its wire layout
    /// in the host's byte order.
    mutating func appendFixed<Value: BitwiseCopyable>(_ type: Int32, _ value: Value) {
        record(type)
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
            record(type)
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

    mutating func align(to boundary: Int) {
        let padding = (boundary - count % boundary) % boundary
        guard padding > 0 else { return }
        reserve(padding)
        (storage + count).initializeMemory(as: UInt8.self, repeating: 0, count: padding)
        count += padding
    }

    private mutating func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        var grown = capacity * 2
        while grown < count + extra { grown *= 2 }
        let larger = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 8)
        larger.copyMemory(from: storage, byteCount: count)
        storage.deallocate()
        storage = larger
        capacity = grown
    }

    private mutating func record(_ type: Int32) {
        signature.append(UInt8(truncatingIfNeeded: type))
    }

    private mutating func record(_ code: UInt8) {
        signature.append(code)
    }

    private mutating func record(_ contained: Signature) {
        signature.append(contentsOf: contained.rawValue.utf8)
    }

    /// Whether the codes recorded after `start` are exactly `type`.
    private func recorded(since start: Int, is type: Signature) -> Bool {
        var type = type.rawValue
        return type.withUTF8 { expected in
            signature.count - start == expected.count
                && signature.withUnsafeBufferPointer { memcmp($0.baseAddress! + start, expected.baseAddress!, expected.count) == 0 }
        }
    }

    /// Whether the codes recorded after `start` are `element` zero or more times.
    private func recorded(since start: Int, isRepeated element: Signature) -> Bool {
        var element = element.rawValue
        return element.withUTF8 { expected in
            let recorded = signature.count - start
            guard recorded % expected.count == 0 else { return false }
            return signature.withUnsafeBufferPointer { codes in
                stride(from: start, to: codes.count, by: expected.count).allSatisfy {
                    memcmp(codes.baseAddress! + $0, expected.baseAddress!, expected.count) == 0
                }
            }
        }
    }

    private func recordedText(since start: Int) -> String {
        String(decoding: signature[start...], as: UTF8.self)
    }

    private mutating func nestedTooDeeply() {
        fail(BusError(.invalidArgs, "containers nest deeper than D-Bus allows (\(NestingDepth.limits))"))
    }

    private mutating func fail(_ error: BusError) {
        if failure == nil { failure = error }
    }

    /// How many containers are open around the value being written.
    private struct NestingDepth {
        enum Kind { case array, structure, variant }
        /// The specification: 32 arrays and 32 structs (dictionary entries count as structs) in one
        /// signature, and no more than 64 containers of any kind, variants included, in a message.
        static let limits = "32 arrays, 32 structs, 64 in all"
        private var arrays = 0, structures = 0, all = 0

        mutating func enter(_ kind: Kind) -> Bool {
            switch kind {
            case .array: arrays += 1
            case .structure: structures += 1
            case .variant: (arrays, structures) = (0, 0)  // a variant's content has a signature of its own
            }
            all += 1
            return arrays <= 32 && structures <= 32 && all <= 64
        }
    }

    /// Arrays may hold at most 64 MiB of elements (the specification's limit).
    static let maximumArrayLength = 1 << 26

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
