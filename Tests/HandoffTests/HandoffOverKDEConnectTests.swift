import Foundation
import Handoff
import TestSupport
import Testing

/// Handoff between two devices over the real transport: two kdeconnectd paired over D-Bus, each
/// device with its own bus, XDG home, Xvfb, Waypost and sample apps. What the user sees is what is
/// asserted: `waypost handoff` output, the offers, and what each app (or the browser stand-in) got.
@Suite(.serialized, .enabled(if: TwoDevices.runsHere, TwoDevices.skipReason))
struct HandoffOverKDEConnectTests {
    static let edit = "com.example.notes.edit"
    nonisolated(unsafe) static let activity: [String: Any] = [
        "title": "Shopping list", "target-content-identifier": "note/42", "webpage-url": "https://notes.example/n/42",
        "user-info": ["id": 42, "ratio": 1.5, "pinned": true, "bytes": ["$bytes": [0, 255, 7]], "tags": ["milk", "eggs"]],
    ]
    static let scenes: [(id: String, modifiers: [([String], [String])])] = [
        (id: "list", modifiers: [([], ["*"])]),
        (id: "note-42", modifiers: [(["note/42"], [])]),
    ]

    /// A publishes the activity in its scene note-42; A runs Waypost, and B too when `bRunsWaypost`.
    static func publishing(_ two: TwoDevices, bRunsWaypost: Bool = true) async throws {
        try await two.a.installApp("org.example.Notes", activityTypes: [edit], scenes: [(id: "note-42", modifiers: [(["note/42"], [])])],
                                   publish: (scene: "note-42", type: edit, activity: activity))
        try #require(await two.a.waypost("install", "--user").status == 0)
        if bRunsWaypost { try #require(await two.b.waypost("install", "--user").status == 0) }
        try await two.a.start("org.example.Notes")
    }

    static func send(_ two: TwoDevices, _ extra: String...) async throws {
        let sent = try await two.a.run(Device.waypost, ["handoff", "send", "--device", "Beta"] + extra)
        #expect(sent.status == 0, "\(sent)")
    }

    /// B's offers (id, summary, type, expiry), once `waypost handoff list` shows `count` of them.
    static func offers(on device: Device, count: Int = 1) async throws -> [[String]] {
        var lines: [[String]] = []
        try await waitUntil("\(device.name) lists \(count) offer(s)", context: device.busLog) {
            let list = try await device.waypost("handoff", "list")
            lines = list.output.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
            return lines.count == count
        }
        return lines
    }

    static func userInfo(of event: [String: Any]) -> [String: Any]? {
        // ContinueUserActivity carries the activity; CreateScene's payload is the activity.
        let activity = (event["activity"] ?? event["payload"]) as? [String: Any]
        return activity?["user-info"] as? [String: Any]
    }

    @Test("sent from A's scene, offered on B, continued in B's scene for its target only after the accept; user info intact")
    func acceptedIntoTheRightScene() async throws {
        try await TwoDevices.with { two in
            try await Self.publishing(two)
            try await two.b.installApp("org.example.Notes", activityTypes: [Self.edit], scenes: Self.scenes)
            try await two.b.start("org.example.Notes")

            let devices = try await two.a.waypost("handoff", "devices")
            #expect(devices.output.contains("\(two.bID)\tBeta\t"), "\(devices)")
            let sent = try await two.a.waypost("handoff", "send", "--device", "Beta")
            #expect(sent.status == 0, "\(sent)")
            #expect(sent.output.contains("sent the activity to Beta"), "\(sent)")

            let offers = try await Self.offers(on: two.b)
            #expect(offers.first?[1] == "From Alpha: continue ‘Shopping list’", "\(offers)")
            // Offered, not continued.
            #expect(two.b.received("org.example.Notes").isEmpty)

            let accepted = try await two.b.waypost("handoff", "accept", try #require(offers.first?.first))
            #expect(accepted.status == 0, "\(accepted)\n\(two.b.busLog)")
            #expect(accepted.output.contains("org.example.Notes scene note-42"), "\(accepted)")
            let got = two.b.received("org.example.Notes")
            #expect(got.count == 1)
            let event = try #require(got.first)
            #expect(event["event"] as? String == "ContinueUserActivity")
            #expect(event["scene"] as? String == "note-42")
            #expect(event["type"] as? String == Self.edit)
            let activity = try #require(event["activity"] as? [String: Any])
            #expect(activity["title"] as? String == "Shopping list")
            #expect(activity["webpage-url"] as? String == "https://notes.example/n/42")
            let info = try #require(activity["user-info"] as? [String: Any])
            #expect(info["id"] as? Int == 42)
            #expect(info["ratio"] as? Double == 1.5)
            #expect(info["pinned"] as? Bool == true)
            #expect(info["bytes"] as? [Int] == [0, 255, 7])
            #expect(info["tags"] as? [String] == ["milk", "eggs"])
            #expect(event["user_info_types"] as? [String: String] == [
                "id": "Int64", "ratio": "Double", "pinned": "Boolean", "bytes": "Array", "tags": "Array",
            ])
            // Taken once.
            let again = try await two.b.waypost("handoff", "accept", try #require(offers.first?.first))
            #expect(again.status == 1)
            #expect(again.errors.contains("the handoff offer \(try #require(offers.first?.first)) was accepted already"), "\(again)")
            // B knows now that A runs Waypost; A still cannot know it of B.
            #expect(try await two.b.waypost("handoff", "devices").output.contains("\(two.aID)\tAlpha\tdesktop\tyes: handed over here before"))
            #expect(devices.output.contains("\(two.bID)\tBeta\tdesktop\tunknown: gets Waypost handoffs"), "\(devices)")
        }
    }

    @Test("another app declaring the type, not running on B: launched by the accept, and given the activity once")
    func anotherAppLaunched() async throws {
        try await TwoDevices.with { two in
            try await Self.publishing(two)
            try await two.b.installApp("org.example.Editor", activityTypes: [Self.edit])
            try await Self.send(two)
            let offer = try #require(try await Self.offers(on: two.b).first?.first)
            #expect(two.b.received("org.example.Editor").isEmpty)
            let accepted = try await two.b.waypost("handoff", "accept", offer)
            #expect(accepted.status == 0, "\(accepted)\n\(two.b.busLog)")
            #expect(accepted.output.contains("org.example.Editor"), "\(accepted)")
            let got = two.b.received("org.example.Editor")
            #expect(got.count == 1, "\(got)")
            let info = try #require(got.first.flatMap(Self.userInfo), "\(got)")
            #expect(info["id"] as? Int == 42)
            #expect(info["bytes"] as? [Int] == [0, 255, 7])
        }
    }

    @Test("no app for the type on B: the accept sends its webpage URL where a clicked link goes (the browser)")
    func noAppWebpageToBrowser() async throws {
        try await TwoDevices.with { two in
            try await Self.publishing(two)
            try await two.b.installBrowser()
            try await Self.send(two)
            let offer = try #require(try await Self.offers(on: two.b).first?.first)
            #expect(two.b.lines(of: "browser").isEmpty)
            let accepted = try await two.b.waypost("handoff", "accept", offer)
            #expect(accepted.status == 0, "\(accepted)\n\(two.b.busLog)")
            // The browser is started with the page; Accept answers once it is started, not once it has the page.
            try await waitUntil("B's browser opens the page", context: two.b.busLog) { !two.b.lines(of: "browser").isEmpty }
            #expect(two.b.lines(of: "browser") == ["https://notes.example/n/42"])
        }
    }

    @Test("a device without Waypost receives the activity's webpage URL, which its browser opens")
    func deviceWithoutWaypost() async throws {
        try await TwoDevices.with { two in
            try await Self.publishing(two, bRunsWaypost: false)
            try await two.b.installBrowser()
            let sent = try await two.a.waypost("handoff", "send", "--device", "Beta", "--webpage-only")
            #expect(sent.status == 0, "\(sent)")
            #expect(sent.output.contains("sent its webpage URL https://notes.example/n/42 to Beta"), "\(sent)")
            try await waitUntil("Beta's browser opens the page") { two.b.lines(of: "browser") == ["https://notes.example/n/42"] }
        }
    }

    @Test("a local offer (no share seen) says so and waits for the accept even from a trusted device; a trusted device's own share continues at once")
    func forgedLocalOffer() async throws {
        try await TwoDevices.with { two in
            try await Self.publishing(two)
            try await two.b.installApp("org.example.Notes", activityTypes: [Self.edit], scenes: Self.scenes)
            try await two.b.start("org.example.Notes")
            let trust = try await two.b.waypost("handoff", "trust", "Alpha")
            #expect(trust.status == 0, "\(trust)")
            let forged = try HandoffPayload(
                activityType: Self.edit, title: "Forged", targetContentIdentifier: "note/42", sendingDevice: "Alpha", sentAt: 0
            ).url()
            let opened = try await two.b.waypost("open", forged)
            #expect(opened.status == 0, "\(opened)")
            let offers = try await Self.offers(on: two.b)
            #expect(offers.first?[1] == "From this computer (not through KDE Connect: unverified): continue ‘Forged’")
            #expect(two.b.received("org.example.Notes").isEmpty)

            // The same device's real share continues without asking.
            try await Self.send(two)
            try await waitUntil("B's scene has the trusted device's activity", context: two.b.busLog) {
                two.b.received("org.example.Notes").count == 1
            }
            #expect(two.b.received("org.example.Notes").first?["scene"] as? String == "note-42")
            #expect(try await Self.offers(on: two.b).map { $0[1] } == ["From this computer (not through KDE Connect: unverified): continue ‘Forged’"])
        }
    }

    @Test("the offer is a notification, \"From DEVICE: continue ‘TITLE’\"; its Continue action continues it in B's scene")
    func offerNotified() async throws {
        try await TwoDevices.with { two in
            try await Self.publishing(two)
            try await two.b.installApp("org.example.Notes", activityTypes: [Self.edit], scenes: Self.scenes)
            try await two.b.start("org.example.Notes")
            try await two.b.startDunst(choosing: "#Continue")
            try await Self.send(two)
            _ = try await Self.offers(on: two.b)
            try await waitUntil("dunst shows the offer", context: two.b.busLog) { try await two.b.notificationsShown() == 1 }
            #expect(two.b.received("org.example.Notes").isEmpty)
            let clicked = try await two.b.run("/usr/bin/dunstctl", ["action", "0"])
            #expect(clicked.status == 0, "\(clicked)")
            try await waitUntil("B's scene has the activity", context: two.b.busLog) { two.b.received("org.example.Notes").count == 1 }
            #expect(two.b.received("org.example.Notes").first?["scene"] as? String == "note-42")
            try await waitUntil("the notification is gone") { try await two.b.notificationsShown() == 0 }
            // What dunst showed, from its history once it closed.
            let history = try await two.b.run("/usr/bin/dunstctl", ["history"])
            #expect(history.output.contains("From Alpha: continue ‘Shopping list’"), "\(history)")
            #expect(try await two.b.waypost("handoff", "list").output.isEmpty)
        }
    }

    @Test("an open offer leads GNOME Shell's search results for its words (none for others), and activating it continues it in B's scene")
    func offerLeadsTheSearch() async throws {
        try await TwoDevices.with { two in
            try await Self.publishing(two)
            try await two.b.installApp("org.example.Notes", activityTypes: [Self.edit], scenes: Self.scenes)
            try await two.b.start("org.example.Notes")
            try await Self.send(two)
            let offer = try #require(try await Self.offers(on: two.b).first?.first)
            let provider = ("io.waypost.Dispatcher", "/io/waypost/Dispatcher/SearchProvider", "org.gnome.Shell.SearchProvider2")
            let results = try await two.b.busCall(provider.0, provider.1, provider.2 + ".GetInitialResultSet", "array:string:shop")
            #expect(results.output.contains("string \"handoff:\(offer)\""), "\(results)")
            let other = try await two.b.busCall(provider.0, provider.1, provider.2 + ".GetInitialResultSet", "array:string:zebra")
            #expect(!other.output.contains("handoff:"), "\(other)")
            let metas = try await two.b.busCall(provider.0, provider.1, provider.2 + ".GetResultMetas", "array:string:handoff:\(offer)")
            #expect(metas.output.contains("From Alpha: continue ‘Shopping list’"), "\(metas)")
            let activated = try await two.b.busCall(
                provider.0, provider.1, provider.2 + ".ActivateResult", "string:handoff:\(offer)", "array:string:milk", "uint32:7")
            #expect(activated.status == 0, "\(activated)")
            #expect(two.b.received("org.example.Notes").map { $0["scene"] as? String } == ["note-42"])
            #expect(try await two.b.waypost("handoff", "list").output.isEmpty)
        }
    }

    @Test("a web page shared from another device arrives as an ordinary link and takes the universal-link path to the owning app's scene")
    func sharedPageToItsApp() async throws {
        try await TwoDevices.with { two in
            try await two.b.installApp(
                "org.example.Notes", activityTypes: [Self.edit], scenes: Self.scenes, associatedDomains: ["notes.example"])
            try two.b.installAssociation("notes.example", """
                {"applinks": {"details": [{"appIDs": ["org.example.Notes"], "components": [{"/": "/n/*"}]}]}}
                """)
            try await two.b.installBrowser()
            try "[Default Applications]\nx-scheme-handler/https=browser.desktop;\nx-scheme-handler/http=browser.desktop;\n"
                .write(to: two.b.root.appendingPathComponent("config/mimeapps.list"), atomically: true, encoding: .utf8)
            let install = try await two.b.waypost("install", "--user", "--web")
            try #require(install.status == 0, "\(install)")
            try await two.b.start("org.example.Notes")
            // What a phone's share sheet (or `kdeconnect-cli --share`) sends: the page's URL.
            let shared = try await two.a.busCall(
                "org.kde.kdeconnect", "/modules/kdeconnect/devices/\(two.bID)/share", "org.kde.kdeconnect.device.share.shareUrl",
                "string:https://notes.example/n/42")
            #expect(shared.status == 0, "\(shared)")
            try await waitUntil("B's Notes opens the page", context: two.b.busLog) { !two.b.received("org.example.Notes").isEmpty }
            let got = two.b.received("org.example.Notes")
            #expect(got.map { "\($0["event"] ?? "?") \($0["uri"] ?? "?")" } == ["OpenURL https://notes.example/n/42"])
            #expect(two.b.lines(of: "browser").isEmpty)
        }
    }

    @Test("a malformed payload is refused and logged, nothing is offered, and B keeps serving")
    func malformedPayload() async throws {
        try await TwoDevices.with { two in
            try await Self.publishing(two)
            try await two.b.installApp("org.example.Notes", activityTypes: [Self.edit], scenes: Self.scenes)
            try await two.b.start("org.example.Notes")
            // "not-json", shared as A's KDE Connect shares any URL.
            let shared = try await two.a.busCall(
                "org.kde.kdeconnect", "/modules/kdeconnect/devices/\(two.bID)/share", "org.kde.kdeconnect.device.share.shareUrl",
                "string:waypost-handoff:v1/bm90LWpzb24")
            #expect(shared.status == 0, "\(shared)")
            try await waitUntil("B's daemon refuses it", context: two.b.busLog) { two.b.busLog.contains("handoff refused: a malformed handoff payload") }
            #expect(try await two.b.waypost("handoff", "list").output.isEmpty)
            try await Self.send(two)
            #expect(try await Self.offers(on: two.b).first?[1] == "From Alpha: continue ‘Shopping list’")
        }
    }

    @Test("an offer expires: gone from the list, and accepting it says it expired")
    func expiredOffer() async throws {
        try await TwoDevices.with { two in
            try await Self.publishing(two)
            try two.b.daemonArguments("--handoff-offer-seconds 2")
            try await Self.send(two)
            let offer = try #require(try await Self.offers(on: two.b).first?.first)
            _ = try await Self.offers(on: two.b, count: 0)
            let accepted = try await two.b.waypost("handoff", "accept", offer)
            #expect(accepted.status == 1)
            #expect(accepted.errors.contains("the handoff offer \(offer) expired (offers last 2 seconds)"), "\(accepted)")
            #expect(!accepted.errors.contains("no saved activity"), "\(accepted)")
        }
    }

    @Test("a share while B's kdeconnectd is down: the sender is told B is paired but not reachable")
    func receiverDown() async throws {
        try await TwoDevices.with { two in
            try await Self.publishing(two)
            try await two.stopB()
            try await waitUntil("A sees B gone") { try await !two.a.waypost("handoff", "devices").output.contains("Beta") }
            let sent = try await two.a.waypost("handoff", "send", "--device", "Beta")
            #expect(sent.status == 1)
            #expect(sent.errors.contains("Beta is paired but not reachable"), "\(sent)")
            #expect(!sent.errors.contains("no application handles"), "\(sent)")
        }
    }
}
