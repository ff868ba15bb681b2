import DBus
import Foundation
import TestSupport
import Testing

/// Declarations are app-wide: a second process of an app cannot destroy the first one's scenes.
@Suite("dispatcher: declarations across an app's processes", .serialized)
struct DeclarationTests {
    @Test("a second process declares the same scenes, or is refused with DeclarationMismatch; the first keeps its links after it exits")
    func secondProcess() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let app = try await session.installApp(RoutingTests.contactsApp(scenes: []))
        let first = try await session.start(app)
        let bus = try await session.connect()
        try await session.control(app.id, pid: first, with: bus, "OpenScene", ["w1", "contacts"], modifiers: [([], ["*"])])

        // A sibling that declares what the first did joins it, and leaves without taking its scene.
        let second = try await session.start(app)
        try await session.control(app.id, pid: second, with: bus, "OpenScene", ["w2", "contacts"], modifiers: [(["kim"], [])])
        #expect(try await session.openAsPlanned("contacts://show?id=kim", with: bus)["scene-id"] == "w2")
        kill(second, SIGKILL)
        try await waitUntil("the second process's scene vanished") {
            try await session.status(with: bus).scenes.map { $0["scene-id"] } == ["w1"]
        }
        #expect(try await session.openAsPlanned("contacts://show?id=kim", with: bus)["scene-id"] == "w1")

        // A sibling that declares other scenes is refused, and the first one's scenes stay.
        var other = app.config
        other["declarations"] = [["viewer", ["kind": "window-group"]]]
        other["log"] = session.log(of: app.id).path
        let config = session.root.appendingPathComponent("other.json")
        try JSONSerialization.data(withJSONObject: other).write(to: config)
        let errors = session.root.appendingPathComponent("logs/other.stderr")
        let refused = try await ChildProcess.start(
            DesktopSession.python, [DesktopSession.sampleApp.path, config.path], environment: session.environment, errors: errors)
        #expect(try await refused.status() != 0)
        let stderr = try String(contentsOf: errors, encoding: .utf8)
        #expect(stderr.contains("io.waypost.Error.DeclarationMismatch"), "\(stderr)")
        #expect(try await session.status(with: bus).scenes.map { $0["scene-id"] } == ["w1"])
        #expect(try await session.openAsPlanned("contacts://show?id=lee", with: bus)["scene-id"] == "w1")
        #expect(session.received(app.id).filter { $0["pid"] as? Int == Int(first) }.count == 2)
    }
}
