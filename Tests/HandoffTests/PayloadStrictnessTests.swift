import ExternalEvents
import Foundation
import Handoff
import TestSupport
import Testing

/// A payload that cannot be delivered is never offered: reading is strict —
/// UTF-8 only, no NUL and no non-characters anywhere, each key once, and the one canonical JSON the
/// sender's encoder writes (sorted keys, no spaces, numbers as written) — by decoding, encoding again
/// and comparing the bytes, not by a parser of its own.
@Suite struct PayloadStrictnessTests {
    /// The canonical JSON of a small payload: what `url()` writes for it.
    static let canonical = #"{"device":"A","info":{"k":{"s":"v"},"n":{"i":100}},"sent":0,"title":"T","type":"x"}"#

    static func url(_ json: String) -> String { url(Array(json.utf8)) }

    static func url(_ bytes: [UInt8]) -> String {
        "waypost-handoff:v1/" + Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// Refused, by a `HandoffError` whose words contain `naming`.
    static func refused(_ url: String, naming: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let error = #expect(throws: HandoffError.self, sourceLocation: sourceLocation) { try HandoffPayload(url: url) }
        if let error { #expect(error.description.contains(naming), "\(error)", sourceLocation: sourceLocation) }
    }

    @Test func theCanonicalFormReads() throws {
        let payload = try HandoffPayload(url: Self.url(Self.canonical))
        #expect(payload.userInfo == ["k": "v", "n": .integer(100)])
        // And it is what the sender writes.
        #expect(try payload.url() == Self.url(Self.canonical))
    }

    @Test func nulIsRefusedWhereverItIs() {
        Self.refused(Self.url(Self.canonical.replacingOccurrences(of: #""s":"v""#, with: #""s":"a\u0000b""#)), naming: "U+0000")
        Self.refused(Self.url(Self.canonical.replacingOccurrences(of: #""k":"#, with: #""k\u0000":"#)), naming: "U+0000")
        Self.refused(Self.url(Self.canonical.replacingOccurrences(of: #""title":"T""#, with: #""title":"T\u0000""#)), naming: "U+0000")
    }

    /// A non-character as a string (Swift's literals refuse them).
    static func character(_ value: UInt32) -> String { String(Character(Unicode.Scalar(value)!)) }

    @Test func nonCharactersAreRefused() {
        Self.refused(Self.url(Self.canonical.replacingOccurrences(of: #""s":"v""#, with: "\"s\":\"v\(Self.character(0xFFFF))\"")), naming: "U+FFFF")
        Self.refused(Self.url(Self.canonical.replacingOccurrences(of: #""title":"T""#, with: "\"title\":\"\(Self.character(0xFDD0))\"")), naming: "U+FDD0")
    }

    @Test func aKeyTwiceIsRefused() {
        Self.refused(Self.url(Self.canonical.replacingOccurrences(of: #""device":"A","#, with: #""device":"A","device":"B","#)), naming: "canonical")
        Self.refused(Self.url(Self.canonical.replacingOccurrences(of: #"{"s":"v"}"#, with: #"{"s":"v","s":"w"}"#)), naming: "canonical")
    }

    @Test func onlyUTF8() {
        let utf16 = Array(Self.canonical.utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        Self.refused(Self.url([0xFF, 0xFE] + utf16), naming: "UTF-8")
        Self.refused(Self.url(utf16), naming: "UTF-8")
        Self.refused(Self.url([0xEF, 0xBB, 0xBF] + Array(Self.canonical.utf8)), naming: "canonical")
        Self.refused(Self.url(Array(Self.canonical.utf8) + [0xC3]), naming: "UTF-8")
    }

    @Test func numbersAndSpacesAsWritten() {
        Self.refused(Self.url(Self.canonical.replacingOccurrences(of: #"{"i":100}"#, with: #"{"i":1e2}"#)), naming: "canonical")
        Self.refused(Self.url(Self.canonical.replacingOccurrences(of: #""sent":0"#, with: #""sent":0.0"#)), naming: "canonical")
        Self.refused(Self.url(Self.canonical.replacingOccurrences(of: #""device":"A""#, with: #""device": "A""#)), naming: "canonical")
        Self.refused(Self.url(Self.canonical.replacingOccurrences(of: #""device":"A","info""#, with: #""info""#)
            .replacingOccurrences(of: #""sent":0"#, with: #""sent":0,"device":"A""#)), naming: "canonical")
    }

    @Test func whatTheReceiverRefusesIsNeverSent() {
        var payload = PayloadTests.payload
        payload.userInfo = ["bad": .string("a\u{0}b")]
        let nul = #expect(throws: HandoffError.self) { try payload.url() }
        #expect(nul?.description.contains("U+0000") == true, "\(String(describing: nul))")
        payload.userInfo = ["bad" + PayloadStrictnessTests.character(0xFFFE): .integer(1)]
        let nonCharacter = #expect(throws: HandoffError.self) { try payload.url() }
        #expect(nonCharacter?.description.contains("U+FFFE") == true, "\(String(describing: nonCharacter))")
    }
}

/// The same over the bus, on a device: a payload with a NUL is refused by `Open`, nothing is offered,
/// and the app that continues its type is not started for it.
@Suite(.serialized)
struct PayloadOverTheBusTests {
    @Test("a handoff whose user info holds a NUL: Open refuses it naming the character, nothing is offered, no app starts")
    func nulRefused() async throws {
        let device = try await Device(name: "payload-nul")
        defer { device.close() }
        try await device.installApp("org.example.Flood", activityTypes: ["com.example.flood"])
        try #require(await device.waypost("install", "--user").status == 0)
        let url = "waypost-handoff:v1/" + Flood.payload(title: "Nul", info: #"{"k":{"s":"a\u0000b"}}"#)
        let opened = try await device.waypost("open", url)
        #expect(opened.status != 0, "\(opened)")
        #expect(opened.errors.contains("U+0000"), "\(opened)")
        #expect(try await device.waypost("handoff", "list").output.isEmpty)
        #expect(try await device.waypost("handoff", "accept", "1").status == 1)
        #expect(device.received("org.example.Flood").isEmpty)
    }
}
