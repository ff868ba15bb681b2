import Testing

@testable import DBus

/// Values stored as wire bytes (an activity's payload in the store) come back exactly, and bytes
/// that are not a whole message are refused by libdbus.
@Suite struct WireBytesTests {
    static let nested: [String: Variant] = [
        "s": .string("crème"), "b": .boolean(true), "y": .byte(7), "n": .int16(-3), "q": .uint16(3), "i": .int32(-70_000),
        "u": .uint32(70_000), "x": .int64(.min), "t": .uint64(.max), "d": .double(-0.5), "o": .objectPath(ObjectPath("/a/b")),
        "g": .signature(Signature("a{sv}")), "as": Variant(["one", "two"]),
        "r": .structure([.int32(1), .string("two")]),
        "a{sv}": Variant(["inner": Variant(["deeper": Variant([Int32(1), 2])])]),
        "v": .variant(.string("boxed")),
    ]

    @Test func everyTypeComesBackWithItsValueAndType() throws {
        let bytes = try WireBytes.encode("type", Self.nested)
        let (type, back) = try WireBytes.decode(bytes, as: String.self, [String: Variant].self)
        #expect(type == "type")
        #expect(back == Self.nested)
    }

    @Test func truncatedBytesAreRefused() throws {
        let bytes = try WireBytes.encode(Self.nested)
        for cut in [1, 5, bytes.count / 2, bytes.count - 1] {
            let truncated = Array(bytes.dropLast(cut))
            #expect(throws: BusError.self) { try WireBytes.decode(truncated, as: [String: Variant].self) }
        }
        #expect(throws: BusError.self) { try WireBytes.decode([UInt8](), as: [String: Variant].self) }
    }

    @Test func anyDamagedByteIsAnErrorOrAValueNeverACrash() throws {
        let bytes = try WireBytes.encode(Self.nested)
        var refused = 0
        for offset in bytes.indices {
            var damaged = bytes
            damaged[offset] ^= 0xFF
            do { _ = try WireBytes.decode(damaged, as: [String: Variant].self) } catch { refused += 1 }
        }
        // The header, the lengths and the type codes are checked: most damage is caught.
        #expect(refused > bytes.count / 2)
    }

    @Test func otherTypesThanWrittenAreAnError() throws {
        let bytes = try WireBytes.encode(Int32(5))
        #expect(throws: (any Error).self) { try WireBytes.decode(bytes, as: String.self) }
    }
}
