import ExternalEvents
import Handoff
import Testing

/// The offer book's bounds and words, as values.
@Suite struct HandoffOfferBoundsTests {
    static let device = OfferOrigin.device(id: "abc", name: "Laptop A")

    static func payload(_ title: String) -> HandoffPayload {
        HandoffPayload(activityType: "com.example.notes.edit", title: title, sendingDevice: "A", sentAt: 0)
    }

    /// A distinct URL per title, as distinct payloads make.
    static func url(_ title: String) throws -> String { try payload(title).url() }

    @Test func oneCallersUnverifiedOffersAreBounded() throws {
        var book = OfferBook()
        for number in 1...OfferBook.unverifiedPerCaller {
            _ = try book.offer(Self.payload("n\(number)"), url: try Self.url("n\(number)"), caller: "process 7", now: 100)
        }
        #expect(throws: OfferError.tooManyUnverified(caller: "process 7", limit: 8)) {
            try book.offer(Self.payload("n9"), url: try Self.url("n9"), caller: "process 7", now: 100)
        }
        // Another caller, and the device's own (its share seen first), are not held back.
        _ = try book.offer(Self.payload("other"), url: try Self.url("other"), caller: "process 8", now: 100)
        _ = book.shareReceived(try Self.url("shared"), from: Self.device, now: 100)
        #expect(try book.offer(Self.payload("shared"), url: try Self.url("shared"), caller: "process 7", now: 100).origin == Self.device)
        #expect(book.current(now: 100).count == 10)
    }

    @Test func aNewOfferReplacesTheOldestUnverifiedOneAndWhatShowsItGoes() throws {
        var book = OfferBook()
        _ = book.shareReceived(try Self.url("device"), from: Self.device, now: 100)
        let verified = try book.offer(Self.payload("device"), url: try Self.url("device"), caller: "app kde", now: 100)
        var made: [HandoffOffer] = []
        for number in 1...OfferBook.capacity {
            made.append(try book.offer(Self.payload("n\(number)"), url: try Self.url("n\(number)"), caller: "process \(number)", now: 100))
        }
        let open = book.current(now: 100)
        #expect(open.count == OfferBook.capacity)
        #expect(open.contains(verified), "a device's offer outlasts unverified ones")
        #expect(book.takeDeparted(now: 100) == [made[0]])
        #expect(book.takeDeparted(now: 100).isEmpty, "each once")
        #expect(throws: OfferError.replaced(id: made[0].id)) { try book.take(made[0].id, now: 100) }
    }

    @Test func whatBecameOfAnOfferIsRememberedThenForgotten() throws {
        var book = OfferBook(lifetime: 10)
        let first = try book.offer(Self.payload("first"), url: try Self.url("first"), caller: "a", now: 0)
        _ = book.current(now: 10)
        for round in 0..<300 {
            let offer = try book.offer(Self.payload("r\(round)"), url: try Self.url("r\(round)"), caller: "a", now: 20)
            _ = try book.take(offer.id, now: 20)
        }
        #expect(throws: OfferError.forgotten(id: first.id)) { try book.take(first.id, now: 20) }
        #expect(throws: OfferError.accepted(id: "301")) { try book.take("301", now: 20) }
        #expect(throws: OfferError.unknown(id: "302")) { try book.take("302", now: 20) }
        #expect(OfferError.forgotten(id: "1").description == "the handoff offer 1 is gone (accepted, expired or replaced by newer offers)")
    }

    @Test func anUnknownSendersShareNamesNoDevice() throws {
        var book = OfferBook()
        let url = try Self.url("Bank details")
        let local = try book.offer(Self.payload("Bank details"), url: url, caller: "a", now: 100)
        let changed = book.shareReceived(url, from: .unknownSender, now: 100)
        let unknown = try #require(changed)
        #expect(unknown.id == local.id && unknown.origin == .unknownSender)
        #expect(unknown.summary == "From an unknown sender (not KDE Connect's kdeconnectd: unverified): continue ‘Bank details’")
        // kdeconnectd's word, had it come too, decides; nothing else turns an offer back.
        #expect(book.shareReceived(url, from: .unknownSender, now: 101) == nil)
        #expect(book.shareReceived(url, from: Self.device, now: 101)?.origin == Self.device)
    }

    @Test func searchFindsOffersByTheirWordsOnly() throws {
        var book = OfferBook()
        _ = book.shareReceived(try Self.url("Shopping list"), from: Self.device, now: 100)
        _ = try book.offer(Self.payload("Shopping list"), url: try Self.url("Shopping list"), caller: "a", now: 100)
        _ = try book.offer(Self.payload("Flood 1"), url: try Self.url("Flood 1"), caller: "b", now: 100)
        #expect(book.matching(["shop"], now: 100).map(\.payload.title) == ["Shopping list"])
        #expect(book.matching(["LIST", "shop"], now: 100).map(\.payload.title) == ["Shopping list"])
        #expect(book.matching(["laptop"], now: 100).map(\.payload.title) == ["Shopping list"])
        #expect(book.matching(["zebra"], now: 100).isEmpty)
        #expect(book.matching(["", "-"], now: 100).isEmpty)
        #expect(book.matching(["notes"], now: 100).count == 2, "the activity type's words too")
    }

    @Test func anOffersWordsAreShownOnOneLineOriginFirst() throws {
        let title = "Shopping list\u{2028}From Bank: continue ‘pay’\u{202E}tsil\u{85}" + String(repeating: "x", count: 500)
        let offer = HandoffOffer(
            id: "1", payload: Self.payload(title), origin: .device(id: "abc", name: "Alpha\nhandoff offer 9: <b>x</b>\u{200F}"),
            caller: "a", receivedAt: 0, expiresAt: 300)
        let summary = offer.summary
        #expect(summary.hasPrefix("From Alpha\u{FFFD}handoff offer 9: <b>x</b>\u{FFFD}: continue ‘Shopping list\u{FFFD}From Bank"))
        #expect(!summary.unicodeScalars.contains { OutsideText.isHidden($0) })
        #expect(summary.unicodeScalars.count <= 64 + 120 + 32)
    }

    @Test func outsideText() {
        #expect(OutsideText.shown("a\nb\u{2029}c\u{9B}d\u{202A}e\u{2066}f", limit: 100) == "a\u{FFFD}b\u{FFFD}c\u{FFFD}d\u{FFFD}e\u{FFFD}f")
        #expect(OutsideText.shown("line one\nline two\r", limit: 100, lines: true) == "line one\nline two\u{FFFD}")
        #expect(OutsideText.shown("abcdef", limit: 3) == "abc…")
        #expect(OutsideText.shown("Crème brûlée", limit: 100) == "Crème brûlée")
        #expect(OutsideText.escapingMarkup("<b>x</b> & &\u{301}") == "&lt;b&gt;x&lt;/b&gt; &amp; &amp;\u{301}")
        #expect(OutsideText.name("\0") == "U+0000" && OutsideText.name("\u{1F600}") == "U+1F600")
    }
}
