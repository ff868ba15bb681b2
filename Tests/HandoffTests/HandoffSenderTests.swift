import Foundation
import Handoff
import TestSupport
import Testing

/// Who may say a device shared a URL: only kdeconnectd, checked as clients check
/// the dispatcher (the owner's program, the very file a service file for `org.kde.kdeconnect` names).
/// Where kdeconnectd is not running (GNOME with GSConnect) any process may own the name: here
/// Fixtures/fake_kdeconnect.py does, names a device "Trusted Phone" and signals a share from it.
@Suite(.serialized)
struct HandoffSenderTests {
    static let edit = "com.example.notes.edit"

    @Test("a share signalled by a process that is not kdeconnectd: offered as from an unknown sender, and waits for the user even for a trusted device id")
    func fakeKDEConnect() async throws {
        let device = try await Device(name: "fake-kdeconnect")
        defer { device.close() }
        try await device.installApp(
            "org.example.Notes", activityTypes: [Self.edit], scenes: [(id: "note-42", modifiers: [(["note/42"], [])])])
        try #require(await device.waypost("install", "--user").status == 0)
        try await device.start("org.example.Notes")
        let fake = try await ChildProcess.start(
            Device.python, [Device.fixtures.appendingPathComponent("fake_kdeconnect.py").path, "phone1", "Trusted Phone"],
            environment: device.environment, errors: device.root.appendingPathComponent("logs/fake-kdeconnect.stderr"))
        device.spawnedDunst(fake)
        try #require(try await fake.nextLine("the fake sender is ready") == "ready")
        // The user trusts the device id the fake names (the daemon starts for this call).
        let trusted = try await device.busCall(
            "io.waypost.Dispatcher", "/io/waypost/Handoff", "io.waypost.Handoff1.TrustDevice", "string:phone1", "boolean:true")
        #expect(trusted.status == 0, "\(trusted)")

        let url = try HandoffPayload(
            activityType: Self.edit, title: "Bank details", targetContentIdentifier: "note/42", sendingDevice: "Trusted Phone",
            sentAt: 0
        ).url()
        let shared = try await device.busCall(
            "org.kde.kdeconnect", "/modules/kdeconnect", "io.waypost.test.FakeKDEConnect.Share", "string:\(url)")
        #expect(shared.status == 0, "\(shared)")
        #expect(try await device.waypost("open", url).status == 0)

        // The share matched the offer (whichever came first), and named no device: an unknown sender.
        var offers: [[String]] = []
        try await waitUntil("the offer is listed as from an unknown sender", context: device.busLog) {
            offers = try await HandoffOverKDEConnectTests.offers(on: device)
            return offers.first?[1].hasPrefix("From an unknown sender") == true
        }
        #expect(offers.first?[1].contains("Trusted Phone") == false, "\(offers)")
        #expect(device.received("org.example.Notes").isEmpty, "continued without the user")
        #expect(device.busLog.contains("not kdeconnectd"), "the log names the refused sender: \(device.busLog)")

        // The user accepts it: then it continues.
        let accepted = try await device.waypost("handoff", "accept", try #require(offers.first?.first))
        #expect(accepted.status == 0, "\(accepted)")
        #expect(device.received("org.example.Notes").map { $0["scene"] as? String } == ["note-42"])
    }

    @Test("a process that is not gjs owning GSConnect's name: its devices are not listed, nothing is sent to it, and the error names it")
    func fakeGSConnect() async throws {
        let device = try await Device(name: "fake-gsconnect")
        defer { device.close() }
        try await device.installApp(
            "org.example.Notes", activityTypes: [Self.edit], scenes: [(id: "note-42", modifiers: [(["note/42"], [])])],
            publish: (scene: "note-42", type: Self.edit, activity: ["title": "Bank details", "target-content-identifier": "note/42"]))
        try #require(await device.waypost("install", "--user").status == 0)
        try await device.start("org.example.Notes")
        let fake = try await ChildProcess.start(
            Device.python, [Device.fixtures.appendingPathComponent("fake_gsconnect.py").path, "7f3c-11", "Phone"],
            environment: device.environment, errors: device.root.appendingPathComponent("logs/fake-gsconnect.stderr"))
        device.spawnedDunst(fake)
        try #require(try await fake.nextLine("the fake GSConnect is ready") == "ready")

        let devices = try await device.waypost("handoff", "devices")
        #expect(devices.status != 0, "\(devices)")
        #expect(devices.errors.contains("org.gnome.Shell.Extensions.GSConnect is owned by") && devices.errors.contains("not GSConnect's gjs"), "\(devices)")
        #expect(!devices.output.contains("Phone"))
        let sent = try await device.waypost("handoff", "send", "--device", "Phone")
        #expect(sent.status != 0 && sent.errors.contains("not GSConnect's gjs"), "\(sent)")
    }
}
