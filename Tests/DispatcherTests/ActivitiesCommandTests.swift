import DBus
import Foundation
import TestSupport
import Testing
import WaypostContract

/// `waypost activities` and `waypost continue --user-info`, run as a user would in the session.
@Suite("waypost activities", .serialized)
struct ActivitiesCommandTests {
    static let show = ActivitiesOverTheBusTests.show

    @Test("search prints a table or JSON lines, list filters by app, continue reaches the right window, delete removes")
    func commands() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let app = try await InProcessApp(session, id: "org.example.Contacts", name: "Contacts", activityTypes: [Self.show])
        try await app.openScene("ada-window", preferring: ["contact/1"])
        try await app.openScene("grace-window", preferring: ["contact/2"])
        try await app.publish("ada-window", Self.show, ActivitiesOverTheBusTests.activity(
            title: "Ada Lovelace", target: "contact/1", id: "p1", userInfo: ["sizeId": .int32(2), "tags": Variant(["a", "b"])]))
        try await app.publish("grace-window", Self.show, ActivitiesOverTheBusTests.activity(title: "Grace Hopper", target: "contact/2", id: "p2"))

        let table = try await session.waypost(["activities", "search", "ada"])
        #expect(table.status == 0, "\(table.stderr)")
        let lines = table.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("ID") == true && lines.first?.contains("APP") == true && lines.first?.contains("TITLE") == true)
        #expect(lines.last?.contains("Contacts") == true && lines.last?.contains("Ada Lovelace") == true)

        let json = try await session.waypost(["activities", "search", "ada", "--format", "json"])
        let objects = try json.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.count == 1)
        let ada = try #require(objects.first)
        #expect(ada["app"] as? String == "org.example.Contacts")
        #expect(ada["appName"] as? String == "Contacts")
        #expect(ada["title"] as? String == "Ada Lovelace")
        #expect(ada["type"] as? String == Self.show)
        #expect((ada["user-info"] as? [String: Any])?["sizeId"] as? Int == 2)
        #expect((ada["user-info"] as? [String: Any])?["tags"] as? [String] == ["a", "b"])

        let listed = try await session.waypost(["activities", "list", "--app", "org.example.Contacts"])
        #expect(listed.stdout.split(separator: "\n").count == 3)
        #expect(try await session.waypost(["activities", "list", "--app", "org.example.Nobody"]).stdout == "no saved activities\n")

        let id = try #require(ada["id"] as? String)
        let continued = try await session.waypost(["activities", "continue", id, "-v"])
        #expect(continued.status == 0, "\(continued.stderr)")
        #expect(continued.stdout.contains("scene ada-window"))
        #expect(try await app.next().scene == "ada-window")

        #expect(try await session.waypost(["activities", "delete", "--app", "org.example.Contacts", "p1"]).status == 0)
        #expect(try await session.search(try await session.connect(), ["ada"]).isEmpty)
        #expect(try await session.waypost(["activities", "delete", "--app", "org.example.Contacts"]).status == 0)
        #expect(try await session.savedActivities(try await session.connect()).isEmpty)
        let gone = try await session.waypost(["activities", "continue", id])
        #expect(gone.status == 1)
        #expect(gone.stderr.contains("[UnknownActivity]"))
    }

    @Test("list reads every page: 150 activities in pages of 100, --limit stops after as many")
    func listPages() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let app = try await InProcessApp(session, id: "org.example.Contacts", name: "Contacts", activityTypes: [Self.show])
        try await app.openScene("s1")
        for n in 0..<150 {
            try await app.publish("s1", Self.show, ActivitiesOverTheBusTests.activity(title: "Contact \(n)", target: "contact/\(n)", id: "c\(n)"))
        }
        let all = try await session.waypost(["activities", "list", "--format", "json"])
        #expect(all.status == 0, "\(all.stderr)")
        let titles = try all.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])["title"] as? String
        }
        #expect(titles == (0..<150).reversed().map { "Contact \($0)" })
        let table = try await session.waypost(["activities", "list", "--limit", "120"])
        #expect(table.stdout.split(separator: "\n").count == 1 + 120)
        #expect(table.stdout.split(separator: "\n").last?.contains("Contact 30") == true)
        #expect(try await session.waypost(["activities", "list", "--limit", "-1"]).status == 64)
    }

    @Test("waypost continue passes --user-info as D-Bus values; a malformed one is refused before any call")
    func userInfo() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let app = try await InProcessApp(session, id: "org.example.Contacts", activityTypes: [Self.show])
        try await app.openScene("s1")
        let result = try await session.waypost([
            "continue", Self.show, "--target", "contact/1",
            "--user-info", #"{"sizeId": 2, "price": 1.45, "name": "Medium", "ok": true, "tags": ["a"], "nested": {"x": 1}}"#,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let info = try #require(try await app.next().activity["user-info"]?.decode(as: [String: Variant].self))
        #expect(info["sizeId"] == .int64(2))
        #expect(info["price"] == .double(1.45))
        #expect(info["name"] == .string("Medium"))
        #expect(info["ok"] == .boolean(true))
        #expect(info["tags"] == .array(element: "v", [.variant(.string("a"))]))
        #expect(info["nested"] == .dictionary(key: "s", value: "v", [.string("x"): .variant(.int64(1))]))
        for bad in ["[1]", "{\"a\": null}", "not json"] {
            let refused = try await session.waypost(["continue", Self.show, "--user-info", bad])
            #expect(refused.status == 64)
            #expect(refused.stderr.contains("--user-info must be a JSON object"))
        }
    }
}
