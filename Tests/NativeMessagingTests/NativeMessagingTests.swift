import NativeMessaging
import Testing

@Suite("Native messaging")
struct NativeMessagingTests {
    func framed(_ text: String) throws -> [UInt8] { try FrameReader.frame(Array(text.utf8)) }

    @Test("messages split anywhere come out whole, in order")
    func framing() throws {
        let stream = try framed(#"{"id":1,"type":"owned-domains"}"#) + framed(#"{"id":2,"type":"owner","url":"https://shop.example/"}"#)
        for cut in 0 ... stream.count {
            var reader = FrameReader()
            var messages: [String] = []
            for part in [stream[..<cut], stream[cut...]] {
                reader.append(part)
                while let message = try reader.next() { messages.append(String(decoding: message, as: UTF8.self)) }
            }
            #expect(messages == [#"{"id":1,"type":"owned-domains"}"#, #"{"id":2,"type":"owner","url":"https://shop.example/"}"#])
            #expect(reader.pending == 0)
        }
    }

    @Test("a length over 64 KiB is refused as soon as it is read, before its bytes")
    func oversized() throws {
        var reader = FrameReader()
        let length = UInt32(FrameReader.limit + 1)
        reader.append((0 ..< 4).map { UInt8(truncatingIfNeeded: length >> (8 * $0)) })
        #expect(throws: NativeMessagingError.tooLarge(length: FrameReader.limit + 1, limit: FrameReader.limit)) { try reader.next() }
        var huge = FrameReader()
        huge.append([0xff, 0xff, 0xff, 0xff])
        #expect(throws: NativeMessagingError.tooLarge(length: 4_294_967_295, limit: FrameReader.limit)) { try huge.next() }
        #expect(throws: NativeMessagingError.replyTooLarge(length: FrameReader.replyLimit + 1, limit: FrameReader.replyLimit)) {
            try FrameReader.frame([UInt8](repeating: 32, count: FrameReader.replyLimit + 1))
        }
    }

    @Test("each request type decodes with exactly its keys")
    func requests() throws {
        func request(_ text: String) throws -> BrowserRequest { try BrowserRequest(json: Array(text.utf8)) }
        #expect(try request(#"{"id":1,"type":"owned-domains"}"#) == BrowserRequest(id: 1, kind: .ownedDomains))
        #expect(try request(#"{"type":"owner","id":2,"url":"https://shop.example/a"}"#) == BrowserRequest(id: 2, kind: .owner(url: "https://shop.example/a")))
        #expect(try request(#"{"id":3,"type":"open","url":"HTTP://shop.example/"}"#) == BrowserRequest(id: 3, kind: .open(url: "HTTP://shop.example/")))
        #expect(try request(#"{"id":4,"type":"keep-in-browser","domain":"shop.example"}"#) == BrowserRequest(id: 4, kind: .keepInBrowser(domain: "shop.example")))
        #expect(try request(#"{"id":5,"type":"undo-keep","domain":"shop.example"}"#) == BrowserRequest(id: 5, kind: .undoKeep(domain: "shop.example")))
    }

    @Test("malformed messages are refused with a name and the offending value")
    func refusals() {
        let cases: [(String, String)] = [
            ("not json", "malformed-message"),
            ("[1, 2]", "malformed-message"),
            (#"{"id":1}"#, "missing-key"),
            (#"{"id":1,"type":"format-disk"}"#, "unknown-type"),
            (#"{"id":1,"type":"owner"}"#, "missing-key"),
            (#"{"type":"owner","url":"https://a.example/"}"#, "missing-key"),
            (#"{"id":"1","type":"owned-domains"}"#, "invalid-value"),
            (#"{"id":1.5,"type":"owned-domains"}"#, "invalid-value"),
            (#"{"id":1,"type":"owner","url":42}"#, "invalid-value"),
            (#"{"id":1,"type":"open","url":"file:///etc/passwd"}"#, "invalid-value"),
            (#"{"id":1,"type":"open","url":"javascript:alert(1)"}"#, "invalid-value"),
            (#"{"id":1,"type":"owned-domains","url":"https://a.example/"}"#, "unexpected-key"),
            (#"{"id":1,"type":"keep-in-browser","domain":["a"]}"#, "invalid-value"),
        ]
        for (text, name) in cases {
            do {
                let request = try BrowserRequest(json: Array(text.utf8))
                Issue.record("\(text) was accepted as \(request)")
            } catch {
                #expect(error.name == name, "\(text): \(error)")
            }
        }
    }

    @Test("replies leave absent fields out")
    func replies() {
        var reply = HostMessage(id: 3, type: "owner")
        reply.owned = true
        reply.app = "org.example.Shop"
        #expect(String(decoding: reply.json, as: UTF8.self) == #"{"app":"org.example.Shop","id":3,"owned":true,"type":"owner"}"#)
        let refusal = HostMessage(id: nil, refusing: .unknownType("x"))
        #expect(String(decoding: refusal.json, as: UTF8.self) == #"{"error":"unknown-type","message":"no message has the type \"x\"","type":"error"}"#)
    }

    @Test("only Waypost's extension ids may start the host")
    func callers() throws {
        #expect(try BrowserCaller(arguments: ["chrome-extension://\(BrowserCaller.chromiumExtensionID)/"]) == .chromium(extensionID: BrowserCaller.chromiumExtensionID))
        #expect(try BrowserCaller(arguments: ["/home/u/.mozilla/native-messaging-hosts/io.waypost.browser_host.json", BrowserCaller.firefoxAddonID])
            == .firefox(addonID: BrowserCaller.firefoxAddonID))
        #expect(throws: BrowserCallerError.notAllowed("chrome-extension://aaaabbbbccccddddeeeeffffgggghhhh/")) {
            try BrowserCaller(arguments: ["chrome-extension://aaaabbbbccccddddeeeeffffgggghhhh/"])
        }
        #expect(throws: BrowserCallerError.notAllowed("evil@example.com")) {
            try BrowserCaller(arguments: ["/x/io.waypost.browser_host.json", "evil@example.com"])
        }
        #expect(throws: BrowserCallerError.noCaller([])) { try BrowserCaller(arguments: []) }
    }
}
