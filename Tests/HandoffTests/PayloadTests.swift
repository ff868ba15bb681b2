import ExternalEvents
import Handoff
import Testing

@Suite struct PayloadTests {
    static let payload = HandoffPayload(
        activityType: "com.example.notes.edit", title: "Shopping ‘list’ & more", targetContentIdentifier: "note/42?x=1",
        webpageURL: "https://notes.example/n/42",
        userInfo: ["id": 42, "ratio": 1.0, "pinned": true, "bytes": .data([0, 255, 10]), "tags": ["a", 2],
                   "nested": ["k": ["deep": "ü %2F /"]]],
        sendingDevice: "Laptop A", sentAt: 1_795_000_000)

    @Test func roundTripKeepsEveryType() throws {
        let url = try Self.payload.url()
        #expect(url.hasPrefix("waypost-handoff:v1/"))
        let back = try HandoffPayload(url: url)
        #expect(back == Self.payload)
        // 1.0 stays a double, 42 an integer, the bytes data: JSON alone would lose these.
        #expect(back.userInfo["ratio"] == .double(1.0))
        #expect(back.userInfo["bytes"] == .data([0, 255, 10]))
    }

    @Test func survivesKDEConnectsNormalisation() throws {
        let url = try Self.payload.url()
        // Scheme lower-cased in transit (here, upper-cased by the sender: still read).
        let shouted = "WAYPOST-HANDOFF" + url.dropFirst("waypost-handoff".count)
        #expect(try HandoffPayload(url: String(shouted)) == Self.payload)
        // Nothing in it is a character KDE Connect would percent-encode.
        #expect(url.utf8.allSatisfy { $0 < 0x80 && ($0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)) })
    }

    @Test func theSchemeIsToldInAnyCaseAndNothingElseIs() {
        #expect(HandoffPayload.hasScheme("waypost-handoff:v1/abc"))
        #expect(HandoffPayload.hasScheme("WayPost-Handoff:"))
        #expect(!HandoffPayload.hasScheme("waypost-handoff"))
        #expect(!HandoffPayload.hasScheme("waypost-handofff:v1/"))
        #expect(!HandoffPayload.hasScheme("myapp://waypost-handoff:"))
        // Not a letter: no case folding makes a control byte a hyphen.
        #expect(!HandoffPayload.hasScheme("waypost\rhandoff:"))
        #expect(!HandoffPayload.hasScheme(""))
    }

    @Test func userInfoOverTheLimitIsRefusedBeforeSending() {
        var payload = Self.payload
        payload.userInfo = ["blob": .string(String(repeating: "x", count: 4000))]
        #expect(throws: HandoffError.userInfoTooLarge(bytes: 4017)) { try payload.url() }
    }

    @Test func nanIsRefusedByName() {
        var payload = Self.payload
        payload.userInfo = ["bad": .double(.nan)]
        #expect(throws: HandoffError.unencodable("bad")) { try payload.url() }
    }

    @Test func malformedURLsAreNamed() {
        #expect(throws: HandoffError.notAHandoffURL("https://example.com/")) { try HandoffPayload(url: "https://example.com/") }
        #expect(throws: HandoffError.malformed("not base64url")) { try HandoffPayload(url: "waypost-handoff:v1/ab%20c") }
        #expect(throws: HandoffError.urlTooLarge(bytes: 9000)) { try HandoffPayload(url: String(repeating: "a", count: 9000)) }
        #expect(throws: HandoffError.self) { try HandoffPayload(url: "waypost-handoff:v1/e30") }  // {}
    }

    @Test func controlCharactersInATitleAreRefused() {
        var payload = Self.payload
        payload.title = "two\nlines"
        #expect(throws: HandoffError.forbiddenCharacter("title", scalar: 0x0A)) { try payload.url() }
    }

    @Test func webpageMustBeHTTP() {
        var payload = Self.payload
        payload.webpageURL = "file:///etc/passwd"
        #expect(throws: HandoffError.invalidField("webpage URL", bytes: 18)) { try payload.url() }
    }
}

@Suite struct OfferBookTests {
    static let payload = PayloadTests.payload
    static let device = OfferOrigin.device(id: "abc", name: "Laptop A")

    @Test func shareThenURLIsTheDevicesOffer() throws {
        var book = OfferBook()
        let url = try Self.payload.url()
        #expect(book.shareReceived(url, from: Self.device, now: 100) == nil)
        let offer = try book.offer(Self.payload, url: url, caller: "app k", now: 100)
        #expect(offer.origin == Self.device)
        #expect(offer.summary == "From Laptop A: continue ‘Shopping ‘list’ & more’")
    }

    @Test func urlThenShareBecomesTheDevicesOffer() throws {
        var book = OfferBook()
        let url = try Self.payload.url()
        let offer = try book.offer(Self.payload, url: url, caller: "app k", now: 100)
        #expect(offer.origin == .local)
        #expect(book.shareReceived(url.uppercasedScheme, from: Self.device, now: 101)?.origin == Self.device)
        #expect(book.current(now: 101).first?.origin == Self.device)
    }

    @Test("opened by GSConnect: unverified, an unknown sender's word before or after leaves it so, kdeconnectd's makes it the device's")
    func openedByGSConnect() throws {
        let url = try Self.payload.url()
        var before = OfferBook()
        _ = before.shareReceived(url, from: .unknownSender, now: 100)
        #expect(try before.offer(Self.payload, url: url, caller: "gjs", opened: .throughGSConnect, now: 100).origin == .throughGSConnect)
        var after = OfferBook()
        let offer = try after.offer(Self.payload, url: url, caller: "gjs", opened: .throughGSConnect, now: 100)
        #expect(!offer.origin.isVerified)
        #expect(offer.summary == "From a device through GSConnect (which one, GSConnect does not say: unverified): continue ‘Shopping ‘list’ & more’")
        #expect(after.shareReceived(url, from: .unknownSender, now: 101) == nil)
        #expect(after.shareReceived(url, from: Self.device, now: 101)?.origin == Self.device)
    }

    @Test func aURLNobodySharedStaysLocal() throws {
        var book = OfferBook()
        let url = try Self.payload.url()
        _ = book.shareReceived(url, from: Self.device, now: 100)
        // Long after the share: not the same handoff.
        let offer = try book.offer(Self.payload, url: url, caller: "app k", now: 100 + OfferBook.matchWindow + 1)
        #expect(offer.origin == .local)
        #expect(offer.summary.hasPrefix("From this computer (not through KDE Connect: unverified)"))
    }

    @Test func offersExpire() throws {
        var book = OfferBook()
        let offer = try book.offer(Self.payload, url: try Self.payload.url(), caller: "app k", now: 100)
        #expect(book.current(now: 100 + OfferBook.lifetime - 1).count == 1)
        #expect(book.current(now: 100 + OfferBook.lifetime).isEmpty)
        #expect(book.takeDeparted(now: 100 + OfferBook.lifetime) == [offer])
        // Remembered long after: accepting it says it expired, however late.
        #expect(throws: OfferError.expired(id: offer.id, receivedAt: 100, expiredAt: 100 + OfferBook.lifetime)) { try book.take(offer.id, now: 100 + 10 * OfferBook.lifetime) }
        #expect(throws: OfferError.unknown(id: "2")) { try book.take("2", now: 100 + OfferBook.lifetime) }
    }

    @Test func anOfferIsTakenOnce() throws {
        var book = OfferBook()
        let offer = try book.offer(Self.payload, url: try Self.payload.url(), caller: "app k", now: 100)
        #expect(try book.take(offer.id, now: 101) == offer)
        #expect(throws: OfferError.accepted(id: offer.id)) { try book.take(offer.id, now: 101) }
    }
}

extension String {
    fileprivate var uppercasedScheme: String {
        let (scheme, rest) = (prefix(while: { $0 != ":" }), drop(while: { $0 != ":" }))
        return scheme.uppercased() + rest
    }
}
