import DBus
import Foundation
import TestSupport
import Testing

/// Declarations are app-wide: a second process of an app cannot destroy the first one's scenes.
@Suite("dispatcher: declarations across an app's processes", .serialized)
struct DeclarationTests {
    @Test("a second process declares the same scenes, or is refused with DeclarationMismatch; the first keeps its links after it exits")
    func secondProcess() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let app = try await session.installApp(RoutingTests.contactsApp(scenes: []))
        let first = try await session.start(app)
        let bus = try await session.connect()
        try await session.control(app.id, pid: first, with: bus, "OpenScene", ["w1", "contacts"], modifiers: [([], ["*"])])

        // A sibling that declares what the first did joins it, and leaves without taking its scene.
        let second = try await session.start(app)
        try await session.control(app.id, pid: second, with: bus, "OpenScene", ["w2", "contacts"], modifiers: [(["kim"], [])])
        #expect(try await session.openAsPlanned("contacts://show?id=kim", with: bus)["scene-id"] == "w2")
        session.exit(second)
        try await waitUntil("the second process's scene vanished") {
            try await session.status(with: bus).scenes.map { $0["scene-id"] } == ["w1"]
        }
        #expect(try await session.openAsPlanned("contacts://show?id=kim", with: bus)["scene-id"] == "w1")

        // A sibling that declares other scenes is refused, and the first one's scenes stay.
        var other = app
        other.config["declarations"] = [["viewer", ["kind": "window-group"]]]
        try await session.installApp(other)
        let refused = await DeliveryTests.failure { try await session.start(other) }
        #expect(refused?.name.rawValue == "io.waypost.Error.DeclarationMismatch", "\(String(describing: refused))")
        #expect(try await session.status(with: bus).scenes.map { $0["scene-id"] } == ["w1"])
        #expect(try await session.openAsPlanned("contacts://show?id=lee", with: bus)["scene-id"] == "w1")
        #expect(session.received(app.id).filter { $0["pid"] as? Int == Int(first) }.count == 2)
    }
}
