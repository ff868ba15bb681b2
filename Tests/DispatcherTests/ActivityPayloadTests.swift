import DBus
import Testing
import WaypostContract

@testable import Dispatcher

/// The stored form of a published activity, without a bus or a store.
@Suite("activity payloads")
struct ActivityPayloadTests {
    static let activities: [[String: Variant]] = [
        [:],
        ["title": "Amber Harbor 1", "target-content-identifier": "item/1", "persistent-identifier": "item-1",
         "keywords": Variant(["harbor", "bench"]), "eligible-for-search": true,
         "user-info": Variant(["id": Variant.int64(1), "page": Variant.string("p1")])],
        // Unknown keys (stored after a "+"), empty texts, every kind of value, containers nested.
        ["x": "", "": .byte(1), "title": "", "keywords": .array(element: "s", []),
         "user-info": Variant(["": Variant.string(""), "n": .int16(-1), "q": .uint16(1), "u": .uint32(2), "t": .uint64(3),
                               "d": .double(0.5), "o": .objectPath("/a"), "g": .signature("a{sv}"),
                               "s": .structure([.byte(1), .int64(2), .string("three")]),
                               "m": .dictionary(key: "u", value: "as", [.uint32(1): Variant(["a"])]),
                               "v": .variant(.variant(.boolean(false)))])],
        // Many small variants: where padding counts most against the bound.
        ["+odd": .array(element: "v", (0..<500).map { .variant(.boolean($0 % 2 == 0)) }),
         "bytes": .array(element: "y", (0..<300).map { .byte(UInt8($0 % 256)) }),
         "expiration-date": .int64(1_900_000_000)],
    ]

    @Test("the bound is never below what the encoding makes, whatever the columns hold; the activity comes back whole")
    func boundHoldsAndTheActivityComesBack() throws {
        for activity in Self.activities {
            let payload = ActivityPayload(type: "org.example.show", activity: activity)
            let details = try Contract.ActivityDetails(activity)
            let columnSets = [
                ActivityPayload.Columns(title: "", keywords: [], persistentIdentifier: nil, expirationDate: nil),
                ActivityPayload.Columns(
                    title: details.title ?? "", keywords: details.keywords, persistentIdentifier: details.persistentIdentifier,
                    expirationDate: details.expirationDate),
            ]
            for columns in columnSets {
                let encoded = try payload.encoded(columns)
                #expect(encoded.count <= payload.encodedBound, "\(activity.keys.sorted())")
                let back = try ActivityPayload.decode(encoded, type: payload.type, columns)
                var expected = activity
                expected["eligible-for-search"] = true  // a saved activity is always eligible
                #expect(back.activity == expected)
            }
        }
    }
}
