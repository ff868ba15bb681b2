import DBus
import Foundation
import TestSupport
import Testing

/// `waypost open`, `continue`, `explain URI`, `status` and `monitor` as a user runs them.
@Suite("waypost commands against the daemon", .serialized)
struct CommandLineTests {
    @Test("open exits 0 once delivered, and non-zero with the reason on stderr otherwise")
    func open() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let app = try await session.installApp(RoutingTests.contactsApp(scenes: [("nina", "contacts", [(["nina"], [])])]))
        try await session.start(app)

        let delivered = try await session.waypost(["open", "--verbose", "contacts://show?id=nina"], environment: ["XDG_ACTIVATION_TOKEN": "tok-7"])
        #expect(delivered.status == 0, "\(delivered.stderr)")
        #expect(delivered.stdout.contains("org.example.Contacts scene nina [deliver, preferring]"))
        let received = try #require(session.received(app.id).first)
        #expect((received["platform_data"] as? [String: Any])?["activation-token"] as? String == "tok-7")

        let refused = try await session.waypost(["open", "contacts://show?id=nina", "not a uri", "nobody://x"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("cannot open not a uri:") && refused.stderr.contains("[InvalidURI]"), "\(refused.stderr)")
        #expect(refused.stderr.contains("cannot open nobody://x:") && refused.stderr.contains("[NoHandler]"), "\(refused.stderr)")
        // The good link in the same call was still delivered, once.
        #expect(session.received(app.id).count == 2)

        // A path (what xdg-open hands an Exec= line for a file) travels as a file: URI.
        let path = session.root.appendingPathComponent("a note.md").path
        let file = try await session.waypost(["open", path])
        #expect(file.status == 1)
        #expect(file.stderr.contains("\"file://\(path.replacingOccurrences(of: " ", with: "%20"))\""), "\(file.stderr)")
        // A relative one, from the directory it is relative to (as a shell user types it).
        let relative = try await session.waypost(["open", "./a note.md"], directory: session.root)
        let directory = session.root.resolvingSymlinksInPath().path
        #expect(relative.stderr.contains("\"file://\(directory.replacingOccurrences(of: " ", with: "%20"))/a%20note.md\""), "\(relative.stderr)")
        // Through `..` and `.`, it is still the same file, and the same URI.
        let roundabout = try await session.waypost(
            ["open", "../\(session.root.lastPathComponent)/./a note.md"], directory: session.root)
        #expect(roundabout.stderr.contains("\"file://\(directory.replacingOccurrences(of: " ", with: "%20"))/a%20note.md\""), "\(roundabout.stderr)")
    }

    @Test("explain, status and continue show the live state")
    func inspect() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let app = try await session.installApp(RoutingTests.contactsApp(scenes: [("oscar", "contacts", [(["oscar"], ["*"])])]))
        try await session.start(app)

        let explained = try await session.waypost(["explain", "contacts://show?id=someone"])
        #expect(explained.status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(explained.stdout.utf8)) as? [String: Any]
        #expect(json?["scene-id"] as? String == "oscar")
        #expect(json?["rule"] as? String == "allowing")
        // The whole plan: the scene, then (were it to refuse) a new scene of its declaration.
        let steps = json?["steps"] as? [[String: String]]
        #expect(steps?.map { $0["action"] } == ["deliver", "create"], "\(explained.stdout)")
        #expect(steps?.first?["scene-id"] == "oscar" && steps?.last?["declaration-id"] == "contacts", "\(explained.stdout)")
        let text = try await session.waypost(["explain", "--format", "text", "contacts://show?id=someone"])
        #expect(text.stdout.contains("steps:\n  1. deliver org.example.Contacts scene oscar, rule allowing: "), "\(text.stdout)")
        #expect(text.stdout.contains("\n  2. create org.example.Contacts new scene of contacts, rule default: "), "\(text.stdout)")
        #expect(session.received(app.id).isEmpty)

        let status = try await session.waypost(["status"])
        #expect(status.stdout.contains("org.example.Contacts  oscar (contacts)  preferring [\"oscar\"]  allowing [\"*\"]"), "\(status.stdout)")

        let continued = try await session.waypost(["continue", "org.example.contact.show", "--target", "OSCAR", "--verbose"])
        #expect(continued.status == 0, "\(continued.stderr)")
        #expect(session.received(app.id).first?["event"] as? String == "ContinueUserActivity")
        let unknown = try await session.waypost(["continue", "org.example.unknown"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("[NoHandler]"))
    }

    @Test("monitor prints each routed event")
    func monitor() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let app = try await session.installApp(RoutingTests.contactsApp(scenes: [("pat", "contacts", [([], ["*"])])]))
        try await session.start(app)
        // Its output is the signal: "watching" once subscribed, then one line per routed event.
        let monitor = try await session.spawn(DesktopSession.waypost.path, ["monitor", "--count", "2"])
        var output = monitor.lines.makeAsyncIterator()
        let watching = await output.next()
        #expect(watching?.contains("watching") == true, "\(watching ?? "no output")")
        _ = try await session.waypost(["open", "contacts://show?id=pat"])
        _ = try await session.waypost(["open", "nobody://x"])
        var lines: [String] = []
        while let line = await output.next() { lines.append(line) }  // until it exits, after two
        #expect(try await monitor.status() == 0)
        #expect(lines.count == 2, "\(lines)")
        // Cut to scheme, host and path: `--full` shows the query (DispatcherIdentityTests).
        #expect(lines.first?.hasPrefix("contacts://show?… → org.example.Contacts scene pat [deliver, allowing]") == true, "\(lines)")
        #expect(lines.last?.hasPrefix("nobody://x ✗ io.waypost.Error.NoHandler") == true, "\(lines)")
    }
}
