import Foundation
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

    /// A publishes the activity in its scene note-42, and both devices run Waypost.
    static func publishing(_ two: TwoDevices) async throws {
        try await two.a.installApp("org.example.Notes", activityTypes: [edit], scenes: [(id: "note-42", modifiers: [(["note/42"], [])])],
                                   publish: (scene: "note-42", type: edit, activity: activity))
        try #require(await two.a.waypost("install", "--user").status == 0)
        try #require(await two.b.waypost("install", "--user").status == 0)
        try await two.a.start("org.example.Notes")
    }

    /// B's offers, once `waypost handoff list` shows `count` of them.
    static func offers(on device: Device, count: Int = 1) async throws -> [[String]] {
        var lines: [[String]] = []
        try await waitUntil("\(device.name) lists \(count) offer(s)", context: device.busLog) {
            let list = try await device.waypost("handoff", "list")
            lines = list.output.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
            return lines.count == count
        }
        return lines
    }

    @Test("sent from A's scene, offered on B, continued in B's scene for its target only after the accept; user info intact")
    func acceptedIntoTheRightScene() async throws {
        let two = try await TwoDevices()
        defer { Task { await two.close() } }
        try await Self.publishing(two)
        try await two.b.installApp("org.example.Notes", activityTypes: [Self.edit], scenes: Self.scenes)
        try await two.b.start("org.example.Notes")

        let devices = try await two.a.waypost("handoff", "devices")
        #expect(devices.output.contains("\(two.bID)\tBeta\t"), "\(devices)")
        let sent = try await two.a.waypost("handoff", "send", "--device", "Beta")
        #expect(sent.status == 0, "\(sent)")
        #expect(sent.output.contains("sent \(Self.edit) to Beta"))

        let offers = try await Self.offers(on: two.b)
        #expect(offers.first?[1] == "Continue ‘Shopping list’ from Alpha", "\(offers)")
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
        #expect(again.errors.contains("no handoff offer"), "\(again)")
    }
}
