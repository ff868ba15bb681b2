import DBus
import Foundation
import Synchronization
import TestSupport
import Testing
@testable import WaypostKit

/// The acknowledgement means received: WaypostKit answers the dispatcher on receipt and runs the
/// handler after, in the order events arrived (docs/delivery.md).
@Suite("WaypostKit: acknowledged on receipt")
struct AcknowledgementTests {
    /// A handler held until the test lets it go.
    final class Gate: Sendable {
        let opened: AsyncStream<Void>
        let open: AsyncStream<Void>.Continuation
        let handled = Mutex<[String]>([])
        init() { (opened, open) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .unbounded) }
        /// Returns once the test opens the gate (or, should it never, after the deadline).
        func wait() async { _ = try? await next(opened, "the test opens the gate") }
    }

    @Test("a handler still running does not hold the opener's success, and handlers run in the order their events arrived")
    func slowHandler() async throws {
        let session = try await KitSession(deliveryTimeout: 10)
        defer { session.close() }
        let gate = Gate()
        let app = try await LibraryOverTheBusTests.contacts(in: session, inbox: Inbox())
        let scene = try app.openScene("list", id: "slow")
        scene.handlesExternalEvents(preferring: [], allowing: ["*"])
        scene.onOpenURL { url, _ in
            if url.hasSuffix("first") { await gate.wait() }
            gate.handled.withLock { $0.append(url) }
        }
        try await app.start(busAddress: session.address, dispatcherProgram: KitSession.waypost.path)
        defer { app.stop() }
        let bus = try await session.connect()
        // The first handler waits for the gate, which opens only after both links were reported
        // delivered: had the app answered after its handler, the first Open would time out.
        #expect(try await session.open("contacts://first", with: bus)["scene-id"] == "slow")
        #expect(try await session.open("contacts://second", with: bus)["scene-id"] == "slow")
        #expect(gate.handled.withLock { $0 }.isEmpty)
        gate.open.yield()
        try await withDeadline("the handlers finish") { await app.handlersFinished() }
        #expect(gate.handled.withLock { $0 } == ["contacts://first", "contacts://second"])
    }
}
