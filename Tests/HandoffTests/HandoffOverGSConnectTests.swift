import Foundation
import TestSupport
import Testing

/// Handoff between GNOME's transport and KDE's: A runs GSConnect 54 (its service standalone under
/// gjs), B kdeconnectd, paired across two network namespaces; each device with its own bus, XDG home,
/// Xvfb, Waypost and sample apps. What the user sees is asserted, as in HandoffOverKDEConnectTests.
@Suite(.serialized, .enabled(if: TwoDevices.gsconnectRunsHere, TwoDevices.gsconnectSkipReason))
struct HandoffOverGSConnectTests {
    typealias KDE = HandoffOverKDEConnectTests

    @Test("devices listed on both sides with their transport; handed from GSConnect, offered on B, continued in B's scene after the accept")
    func fromGSConnect() async throws {
        try await TwoDevices.with(aRuns: .gsconnect) { two in
            try await KDE.publishing(two)
            try await two.b.installApp("org.example.Notes", activityTypes: [KDE.edit], scenes: KDE.scenes)
            try await two.b.start("org.example.Notes")

            let onA = try await two.a.waypost("handoff", "devices")
            #expect(onA.output == "\(two.bID)\tBeta\tdesktop\tunknown: gets Waypost handoffs\tgsconnect\n", "\(onA)")
            let onB = try await two.b.waypost("handoff", "devices")
            #expect(onB.output == "\(two.aID)\tAlpha\tdesktop\tunknown: gets Waypost handoffs\tkdeconnectd\n", "\(onB)")

            let sent = try await two.a.waypost("handoff", "send", "--device", "Beta")
            #expect(sent.status == 0, "\(sent)")
            #expect(sent.output.contains("sent the activity to Beta"), "\(sent)")
            // kdeconnectd said it received it from A: the offer is A's.
            let offers = try await KDE.offers(on: two.b)
            #expect(offers.first?[1] == "From Alpha: continue ‘Shopping list’", "\(offers)")
            #expect(two.b.received("org.example.Notes").isEmpty)

            let accepted = try await two.b.waypost("handoff", "accept", try #require(offers.first?.first))
            #expect(accepted.status == 0, "\(accepted)\n\(two.b.busLog)")
            #expect(accepted.output.contains("org.example.Notes scene note-42"), "\(accepted)")
            let got = two.b.received("org.example.Notes")
            #expect(got.count == 1)
            #expect(got.first?["scene"] as? String == "note-42")
            #expect(KDE.userInfo(of: try #require(got.first))?["tags"] as? [String] == ["milk", "eggs"])
        }
    }

    @Test("back to GSConnect: offered on A as unverified, waiting even for a trusted device, continued in A's scene after the accept")
    func toGSConnect() async throws {
        try await TwoDevices.with(aRuns: .gsconnect) { two in
            try await two.a.installApp("org.example.Notes", activityTypes: [KDE.edit], scenes: KDE.scenes)
            try await two.b.installApp(
                "org.example.Notes", activityTypes: [KDE.edit], scenes: [(id: "note-42", modifiers: [(["note/42"], [])])],
                publish: (scene: "note-42", type: KDE.edit, activity: KDE.activity))
            try #require(await two.a.waypost("install", "--user").status == 0)
            try #require(await two.b.waypost("install", "--user").status == 0)
            try await two.a.start("org.example.Notes")
            try await two.b.start("org.example.Notes")

            // Trusted under the id as kdeconnectd spells it: stored with "-", as GSConnect spells it.
            let trust = try await two.a.waypost("handoff", "trust", two.bID)
            #expect(trust.status == 0, "\(trust)")
            let stored = try String(contentsOf: two.a.root.appendingPathComponent("config/waypost/handoff-trusted-devices"), encoding: .utf8)
            #expect(stored == two.bID.replacingOccurrences(of: "_", with: "-") + "\n", "\(stored)")

            let sent = try await two.b.waypost("handoff", "send", "--device", "Alpha")
            #expect(sent.status == 0, "\(sent)")
            // GSConnect opens the URL with the default handler (GIO's D-Bus activation: its own connection
            // calls Open) and says nothing of it: GSConnect's, from no device known, and waiting.
            let offers = try await KDE.offers(on: two.a)
            #expect(offers.first?[1] == "From a device through GSConnect (which one, GSConnect does not say: unverified): continue ‘Shopping list’",
                    "\(offers)")
            #expect(two.a.received("org.example.Notes").isEmpty)

            let accepted = try await two.a.waypost("handoff", "accept", try #require(offers.first?.first))
            #expect(accepted.status == 0, "\(accepted)\n\(two.a.busLog)")
            #expect(accepted.output.contains("org.example.Notes scene note-42"), "\(accepted)")
            let got = two.a.received("org.example.Notes")
            #expect(got.count == 1)
            #expect(got.first?["scene"] as? String == "note-42")
            #expect(KDE.userInfo(of: try #require(got.first))?["id"] as? Int == 42)
        }
    }

    @Test("GSConnect running, kdeconnectd not, and another process owning org.kde.kdeconnect: its word changes no offer, which waits; nothing is sent through it, nor listed")
    func senderCheckBesideGSConnect() async throws {
        try await TwoDevices.with(aRuns: .gsconnect) { two in
            // A publishes too: what it would send must not go to the process posing as KDE Connect.
            try await two.a.installApp(
                "org.example.Notes", activityTypes: [KDE.edit], scenes: KDE.scenes,
                publish: (scene: "note-42", type: KDE.edit, activity: KDE.activity))
            try await two.b.installApp(
                "org.example.Notes", activityTypes: [KDE.edit], scenes: [(id: "note-42", modifiers: [(["note/42"], [])])],
                publish: (scene: "note-42", type: KDE.edit, activity: KDE.activity))
            try #require(await two.a.waypost("install", "--user").status == 0)
            try #require(await two.b.waypost("install", "--user").status == 0)
            try await two.a.start("org.example.Notes")
            try await two.b.start("org.example.Notes")
            // On A (GSConnect's desktop) a process takes KDE Connect's name and names B, which A trusts.
            let fake = try await ChildProcess.start(
                Device.python, [Device.fixtures.appendingPathComponent("fake_kdeconnect.py").path, two.bID, "Beta"],
                environment: two.a.environment, errors: two.a.root.appendingPathComponent("logs/fake-kdeconnect.stderr"))
            two.a.spawnedDunst(fake)
            try #require(try await fake.nextLine("the fake sender is ready") == "ready")
            let trusted = try await two.a.busCall(
                "io.waypost.Dispatcher", "/io/waypost/Handoff", "io.waypost.Handoff1.TrustDevice", "string:\(two.bID)", "boolean:true")
            #expect(trusted.status == 0, "\(trusted)")

            // B's real share, through GSConnect, and the fake's word that it came from B.
            let sent = try await two.b.busCall(
                "io.waypost.Dispatcher", "/io/waypost/Handoff", "io.waypost.Handoff1.Send", "string:Alpha", "string:", "boolean:false")
            #expect(sent.status == 0, "\(sent)")
            let url = try #require(sent.output.split(separator: "\"").first { $0.hasPrefix("waypost-handoff:") }.map(String.init), "\(sent)")
            let shared = try await two.a.busCall(
                "org.kde.kdeconnect", "/modules/kdeconnect", "io.waypost.test.FakeKDEConnect.Share", "string:\(url)")
            #expect(shared.status == 0, "\(shared)")
            var offers: [[String]] = []
            // GSConnect opened it; the poser's word changes nothing: still GSConnect's, from no device known.
            try await waitUntil("A lists the offer as GSConnect's", context: two.a.busLog) {
                offers = try await KDE.offers(on: two.a)
                return offers.first?[1].hasPrefix("From a device through GSConnect") == true
            }
            #expect(two.a.busLog.contains("not kdeconnectd"), "the log names the refused sender")
            #expect(two.a.received("org.example.Notes").isEmpty, "continued without the user")

            // Nothing goes to, or is listed from, a KDE Connect that is not kdeconnectd, GSConnect beside it or not.
            let devices = try await two.a.waypost("handoff", "devices")
            #expect(devices.status != 0 && devices.errors.contains("not kdeconnectd"), "\(devices)")
            let send = try await two.a.waypost("handoff", "send", "--device", "Beta")
            #expect(send.status != 0 && send.errors.contains("not kdeconnectd"), "\(send)")
            #expect(two.b.received("org.example.Notes").isEmpty)
        }
    }
}
