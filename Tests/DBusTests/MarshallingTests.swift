import Testing

@testable import DBus

/// Values through libdbus's wire format and back, without a bus.
@Suite struct MarshallingTests {
    func roundTrip<Value: BusValue>(_ value: Value) throws -> (Value, Signature) {
        let message = try Message.scratch { $0.write(value) }
        return (try message.decode(Value.self), message.signature)
    }

    func expectRoundTrip<Value: BusValue & Equatable>(
        _ value: Value, signature: Signature, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let (back, written) = try roundTrip(value)
        #expect(back == value, sourceLocation: sourceLocation)
        #expect(written == signature, sourceLocation: sourceLocation)
        #expect(Value.busSignature == signature, sourceLocation: sourceLocation)
    }

    @Test func basicTypesKeepTheirValuesAtTheEdges() throws {
        for value: UInt8 in [0, 1, .max] { try expectRoundTrip(value, signature: "y") }
        for value in [true, false] { try expectRoundTrip(value, signature: "b") }
        for value: Int16 in [.min, -1, 0, .max] { try expectRoundTrip(value, signature: "n") }
        for value: UInt16 in [0, .max] { try expectRoundTrip(value, signature: "q") }
        for value: Int32 in [.min, -1, 0, .max] { try expectRoundTrip(value, signature: "i") }
        for value: UInt32 in [0, .max] { try expectRoundTrip(value, signature: "u") }
        for value: Int64 in [.min, -1, 0, .max] { try expectRoundTrip(value, signature: "x") }
        for value: UInt64 in [0, .max] { try expectRoundTrip(value, signature: "t") }
        for value: Double in [0, -0.5, .pi, .greatestFiniteMagnitude, .infinity] {
            try expectRoundTrip(value, signature: "d")
        }
        for value in ["", "scheme://host/path?q=1", "héllo → wörld 🌍"] { try expectRoundTrip(value, signature: "s") }
        try expectRoundTrip(ObjectPath("/org/example/Scene_2"), signature: "o")
        try expectRoundTrip(Signature("a{sv}"), signature: "g")
    }

    @Test func containersNestAndStayTypedWhenEmpty() throws {
        try expectRoundTrip([String](), signature: "as")
        try expectRoundTrip(["a", "b", "c"], signature: "as")
        try expectRoundTrip([[Int32]](), signature: "aai")
        try expectRoundTrip([[Int32(1), 2], [], [3]], signature: "aai")
        try expectRoundTrip([String: Int32](), signature: "a{si}")
        try expectRoundTrip(["one": [UInt8(1)], "none": []], signature: "a{say}")
        try expectRoundTrip([Int64(7): ["x": true]], signature: "a{xa{sb}}")
        try expectRoundTrip([ObjectPath("/a"), ObjectPath("/b")], signature: "ao")
    }

    @Test func structuresCarryTheirFields() throws {
        let value = Structure(("org.example.App", Int32(-3), [Double(1.5)], ["k": Variant.boolean(true)]))
        let (back, signature) = try roundTrip(value)
        #expect(signature == "(siada{sv})")
        #expect(back.fields.0 == "org.example.App")
        #expect(back.fields.1 == -3)
        #expect(back.fields.2 == [1.5])
        #expect(back.fields.3 == ["k": .boolean(true)])
        let (list, listSignature) = try roundTrip([Structure((UInt32(1), "x")), Structure((UInt32(2), "y"))])
        #expect(listSignature == "a(us)")
        #expect(list.map(\.fields.1) == ["x", "y"])
    }

    /// Every value is padded to its own alignment from the start of the body, arrays to their
    /// element's even when empty; libdbus validates the bytes and reads each value back.
    @Test func paddingFollowsEachValueWhateverComesBefore() throws {
        let mixed = Structure((UInt8(1), Int64(-2), UInt16(3), Double(4.5), "s", UInt8(6), [Int64](), Int16(-7)))
        let (back, signature) = try roundTrip(mixed)
        #expect(signature == "(yxqdsyaxn)")
        #expect(back.fields.0 == 1 && back.fields.1 == -2 && back.fields.2 == 3 && back.fields.3 == 4.5)
        #expect(back.fields.4 == "s" && back.fields.5 == 6 && back.fields.6 == [] && back.fields.7 == -7)
        let message = try Message.scratch { writer in
            writer.write(UInt8(9))
            writer.write([Structure((UInt8(1), UInt64(2)))])
            writer.write(Variant.structure([.byte(3), .double(0.5)]))
            writer.write([UInt8]())
            writer.write(Signature("a(yt)"))
            writer.write(Int64.min)
        }
        #expect(message.signature == "ya(yt)vaygx")
        let values = try message.decode(UInt8.self, [Structure<UInt8, UInt64>].self, Variant.self, [UInt8].self, Signature.self, Int64.self)
        #expect(values.0 == 9)
        #expect(values.1.map(\.fields.1) == [2])
        #expect(values.2 == .structure([.byte(3), .double(0.5)]))
        #expect(values.3 == [] && values.4 == "a(yt)" && values.5 == .min)
    }

    @Test func aMessageCarriesAtMost255TypeCodes() {
        let error = #expect(throws: BusError.self) {
            try Message.scratch { writer in for _ in 0..<256 { writer.write(UInt8(0)) } }
        }
        #expect(error?.name == .invalidArgs)
        #expect(error?.message.contains("256") == true)
    }

    @Test func variantsHoldEveryKindAndPropertyMapsAreASV() throws {
        let map: [String: Variant] = [
            "name": "Scene",
            "count": 3,
            "ready": true,
            "ratio": 0.25,
            "bytes": .array(element: "y", [.byte(1), .byte(2)]),
            "nothing": .array(element: "s", []),
            "emptyMap": .dictionary(key: "s", value: "v", [:]),
            "nested": .variant(.variant(.uint64(9))),
            "pair": .structure([.int16(-1), .objectPath("/p")]),
            "table": .dictionary(key: "u", value: "as", [.uint32(1): .array(element: "s", [.string("a")])]),
            "signature": .signature("a{sv}"),
            "small": .uint16(7),
            "wide": .int64(-7),
        ]
        try expectRoundTrip(map, signature: "a{sv}")
        #expect(map["nothing"]?.signature == "as")
        #expect(map["table"]?.signature == "a{uas}")
        #expect(map["pair"]?.signature == "(no)")
    }

    @Test func aPropertyListIsAnASVInTheOrderItWasBuiltAndReadsAsTheDictionary() throws {
        var list = PropertyList(capacity: 2)
        list.append("rule", "preferring")
        list.append("scene-id", "s-1")
        list.append("nested", .variant(.variant(.uint32(9))))
        let (back, signature) = try roundTrip(list)
        #expect(signature == "a{sv}")
        #expect(back == list)
        #expect(back.entries.map(\.key) == ["rule", "scene-id", "nested"])
        // What a reader of the dictionary gets is the same message.
        let message = try Message.scratch { $0.write(list) }
        #expect(try message.decode([String: Variant].self) == list.dictionary)
        // A key sent twice: the later value, as a dictionary reader keeps it.
        var twice = PropertyList()
        twice.append("k", "first")
        twice.append("k", "second")
        #expect(try roundTrip(twice).0.entries.map(\.value) == ["second"])
        #expect(twice.dictionary == ["k": "second"])
    }

    @Test func variantsConvertToAndFromTypedValues() throws {
        let variant = Variant(["a": [Int32(1), 2]])
        #expect(variant == .dictionary(key: "s", value: "ai", [.string("a"): .array(element: "i", [.int32(1), .int32(2)])]))
        #expect(try variant.decode(as: [String: [Int32]].self) == ["a": [1, 2]])
        #expect(try Variant.string("x").decode(as: String.self) == "x")
        let error = #expect(throws: ArgumentError.self) { try Variant.int32(1).decode(as: String.self) }
        #expect(error?.expected == "s")
        #expect(error?.found == "i")
    }

    /// `Variant(value)` wraps the common types without the wire: what it makes must be what the wire
    /// gives back for the value, type included.
    @Test func wrappedValuesAreWhatTheWireGivesBack() throws {
        func expectWireAgrees<Value: BusValue>(_ value: Value, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let wrapped = Variant(value)
            let message = try Message.scratch { $0.writeVariant(of: Value.busSignature) { $0.write(value) } }
            #expect(try message.decode(Variant.self) == wrapped, sourceLocation: sourceLocation)
            #expect(wrapped.signature == Value.busSignature, sourceLocation: sourceLocation)
        }
        try expectWireAgrees("text")
        try expectWireAgrees(true)
        try expectWireAgrees(Int32(-3))
        try expectWireAgrees(UInt32(3))
        try expectWireAgrees(Int64.min)
        try expectWireAgrees(UInt64.max)
        try expectWireAgrees(0.5)
        try expectWireAgrees(UInt8(7))
        try expectWireAgrees(Int16(-7))
        try expectWireAgrees(UInt16(7))
        try expectWireAgrees(ObjectPath("/a/b"))
        try expectWireAgrees(Signature("a{sv}"))
        try expectWireAgrees(Variant.array(element: "i", [.int32(1)]))
        try expectWireAgrees(["a", "b"])
        try expectWireAgrees([String]())
        try expectWireAgrees(["id": Variant.int64(4), "tags": Variant(["x"]), "inner": Variant(["k": Variant.boolean(true)])])
        try expectWireAgrees([String: Variant]())
    }

    @Test func aSignatureMismatchIsATypedErrorNamingBothTypes() throws {
        let message = try Message.scratch { $0.write("text"); $0.write(Int32(5)) }
        let wrongType = #expect(throws: ArgumentError.self) { try message.decode(String.self, String.self) }
        #expect(wrongType == ArgumentError(position: 1, expected: "s", found: "i"))
        #expect(BusError(wrongType!).name == .invalidArgs)
        let tooFew = #expect(throws: ArgumentError.self) { try message.decode(String.self) }
        #expect(tooFew?.found == "i")
        let tooMany = #expect(throws: ArgumentError.self) { try message.decode(String.self, Int32.self, Bool.self) }
        #expect(tooMany?.position == 2)
        #expect(tooMany?.found == "")
        let wrongContainer = #expect(throws: ArgumentError.self) { try message.decode([String].self, Int32.self) }
        #expect(wrongContainer?.expected == "as")
        #expect(wrongContainer?.found == "s")
    }

    @Test func anEmptyArrayOfTheWrongElementTypeIsRejected() throws {
        let message = try Message.scratch { $0.write([Int32]()) }
        #expect(throws: ArgumentError.self) { try message.decode([String].self) }
    }

    @Test func aStringWithNULCannotBeWritten() {
        let error = #expect(throws: BusError.self) { try Message.scratch { $0.write("a\0b") } }
        #expect(error?.name == .invalidArgs)
        #expect(error?.message.contains("NUL") == true)
    }

    /// What goes inside each container must be of the container's declared type: libdbus checks
    /// every message before it is sent, and the caller gets `InvalidArgs` naming libdbus's reason
    /// rather than a message the bus would answer by dropping the connection.
    @Test func contentsThatBreakTheirContainersTypeAreRefused() {
        let cases: [Variant] = [
            .array(element: "s", [.int32(1)]),
            .array(element: "s", [.string("a"), .uint32(2)]),
            .dictionary(key: "s", value: "v", [.string("k"): .string("not a variant")]),
            .structure([]),
            .dictionary(key: "as", value: "s", [:]),
            .array(element: "ii", []),
        ]
        for value in cases {
            // The content itself, not in a variant (whose signature would be refused first).
            let error = #expect(throws: BusError.self, "\(value)") { try Message.scratch { value.writeContent(to: &$0) } }
            #expect(error?.name == .invalidArgs)
            #expect(error?.message.hasPrefix("libdbus refused the message") == true, "\(error?.message ?? "no error")")
        }
        let entry = #expect(throws: BusError.self) {
            try Message.scratch { $0.writeDictionaryEntry { entry in entry.write("key"); entry.write("value") } }
        }
        #expect(entry?.name == .invalidArgs)
        let wrapped = #expect(throws: BusError.self) { try Message.scratch { $0.write(Variant.structure([])) } }
        #expect(wrapped?.name == .invalidArgs)
        let liar = #expect(throws: BusError.self) { try Message.scratch { $0.write(MislabelledVariant()) } }
        #expect(liar?.name == .invalidArgs)
        #expect(liar?.message.hasPrefix("libdbus refused the message") == true, "\(liar?.message ?? "no error")")
    }

    /// At the specification's nesting limits the writer writes and libdbus accepts; one level
    /// deeper, the writer refuses.
    @Test func containersNestToTheSpecificationsLimitsAndNoDeeper() throws {
        func arrays(_ depth: Int) -> Variant {
            (0..<depth).reduce(Variant.int32(1)) { inner, _ in .array(element: inner.signature, [inner]) }
        }
        func structures(_ depth: Int) -> Variant {
            (0..<depth).reduce(Variant.int32(1)) { inner, _ in .structure([inner]) }
        }
        func variants(_ depth: Int) -> Variant {
            (1..<depth).reduce(Variant.int32(1)) { inner, _ in .variant(inner) }
        }
        for (nested, limit) in [(arrays, 32), (structures, 32), (variants, 64)] {
            let deepest = try roundTrip(nested(limit)).0
            #expect(deepest == nested(limit))
            let error = #expect(throws: BusError.self) { try Message.scratch { $0.write(nested(limit + 1)) } }
            #expect(error?.name == .invalidArgs)
        }
    }
}

/// A conformance that announces a string and writes an integer.
private struct MislabelledVariant: BusValue {
    static var busSignature: Signature { .variant }
    func write(to writer: inout MessageWriter) { writer.writeVariant(of: .string) { $0.write(Int32(1)) } }
    init() {}
    init(from reader: inout MessageReader) throws { self.init() }
}
