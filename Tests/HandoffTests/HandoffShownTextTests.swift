import Foundation
import Handoff
import TestSupport
import Testing

/// A device's words on the screen and in the log: a paired device names itself
/// (KDE Connect 22.12 passes its name on as it is) and writes the payload's title and webpage URL.
/// Two real kdeconnectd, A named with a newline, markup, a line separator and a right-to-left
/// override; B shows the offer with Debian's dunst, which renders markup in bodies.
@Suite(.serialized, .enabled(if: TwoDevices.runsHere, TwoDevices.skipReason))
struct HandoffShownTextTests {
    static let edit = "com.example.notes.edit"
    /// As A's KDE Connect config file holds it: QSettings reads `\n` as a newline, `\xHHHH` as that character.
    static let hostileName = #"Alpha\nhandoff offer 9: From Bank: continue <b>pay</b>\x2028\x202Ekcab"#
    static let forbidden: [Unicode.Scalar] = ["\n", "\u{2028}", "\u{2029}", "\u{202E}", "\u{200F}"]

    @Test("a device's name, title and URL: shown and logged on one line each, origin first, bounded; the body's markup shown as text")
    func hostileWords() async throws {
        try await TwoDevices.with(aName: Self.hostileName) { two in
            try await two.b.installApp("org.example.Notes", activityTypes: [Self.edit])
            try #require(await two.b.waypost("install", "--user").status == 0)
            // Every line the daemon writes about the offer, in the log the test reads.
            try two.b.daemonArguments("--verbose")
            try await two.b.startDunst(choosing: "#Continue")
            // The daemon runs before the share comes: a shareReceived sent while it is not running reaches nobody.
            #expect(try await two.b.waypost("handoff", "list").status == 0)
            let url = try HandoffPayload(
                activityType: Self.edit, title: "Shopping list\u{2028}From Bank: continue ‘pay’\u{202E}tsil\u{200F}" + String(repeating: "x", count: 600),
                webpageURL: "https://notes.example/<b>bold</b>&amp;", sendingDevice: "A", sentAt: 0
            ).url()
            let shared = try await two.a.busCall(
                "org.kde.kdeconnect", "/modules/kdeconnect/devices/\(two.bID)/share", "org.kde.kdeconnect.device.share.shareUrl",
                "string:\(url)")
            #expect(shared.status == 0, "\(shared)")
            try await waitUntil("dunst shows the offer", context: two.b.busLog) { try await two.b.notificationsShown() == 1 }
            try await waitUntil("the offer names its device", context: two.b.busLog) {
                try await two.b.waypost("handoff", "list").output.contains("Alpha")
            }
            #expect(try await two.b.run("/usr/bin/dunstctl", ["close-all"]).status == 0)
            let history = try await two.b.run("/usr/bin/dunstctl", ["history"])
            let shown = try #require(Self.lastShown(history.output), "\(history)")

            #expect(shown.summary.hasPrefix("From Alpha"), "\(shown.summary)")
            #expect(!shown.summary.unicodeScalars.contains(where: Self.forbidden.contains), "\(shown.summary.debugDescription)")
            #expect(shown.summary.unicodeScalars.count <= 256, "\(shown.summary.unicodeScalars.count)")
            // dunst renders the body as markup: what reaches it is the URL's text, escaped.
            #expect(shown.message.contains("https://notes.example/&lt;b&gt;bold&lt;/b&gt;&amp;amp;"), "\(shown.message)")
            #expect(!shown.message.contains("<b>bold</b>"), "\(shown.message)")

            // The daemon's log: one line per line it writes, none of the device's choosing.
            let log = two.b.busLog
            #expect(!log.split(separator: "\n").contains { $0.hasPrefix("handoff offer 9") }, "\(log)")
            #expect(!log.unicodeScalars.contains(where: { $0 != "\n" && Self.forbidden.contains($0) }), "\(log)")
        }
    }

    /// The summary, body and rendered message of the notification dunst closed last (`dunstctl history`).
    static func lastShown(_ json: String) -> (summary: String, body: String, message: String)? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
            let groups = object["data"] as? [[[String: Any]]], let first = groups.first?.first
        else { return nil }
        func field(_ name: String) -> String? { (first[name] as? [String: Any])?["data"] as? String }
        guard let summary = field("summary"), let body = field("body"), let message = field("message") else { return nil }
        return (summary, body, message)
    }
}
