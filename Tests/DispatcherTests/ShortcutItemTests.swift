import DBus
import Foundation
import TestSupport
import Synchronization
import Testing
import WaypostContract

/// `SetShortcutItems` over the bus: only a registered app sets its own, within its bounds; its
/// quicklist is announced, and goes with its desktop entry.
@Suite("dynamic shortcut items", .serialized)
struct ShortcutItemTests {
    static let show = "org.example.contact.show"

    static func items(_ count: Int, title: String = "Judy") -> [[String: Variant]] {
        (0..<count).map { _ in Contract.ShortcutItem(type: show, title: title, targetContentIdentifier: "judy").variants }
    }

    func failure(_ call: () async throws -> Void) async -> BusError? {
        do { try await call(); return nil } catch let error as BusError { return error } catch { return nil }
    }

    @Test("a connection that is no registered app cannot set items; too many, an oversized or a missing field are named errors")
    func bounds() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let app = try await InProcessApp(session, id: "org.example.Contacts", activityTypes: [])
        let stranger = try await session.connect()
        let unregistered = await failure {
            _ = try await session.dispatcher(stranger, Contract.Dispatcher1.setShortcutItems, Self.items(1))
        }
        #expect(unregistered?.name == Contract.Failure.notRegistered.errorName)
        let tooMany = await failure { try await app.call(Contract.Dispatcher1.setShortcutItems, Self.items(17)) }
        #expect(tooMany?.name == Contract.Failure.budgetExceeded.errorName, "\(String(describing: tooMany))")
        #expect(tooMany?.message.contains("shortcut items of org.example.Contacts would be 17, over its budget of 16") == true)
        let long = String(repeating: "x", count: 257)
        let oversized = await failure { try await app.call(Contract.Dispatcher1.setShortcutItems, Self.items(1, title: long)) }
        #expect(oversized?.name == Contract.Failure.invalidArgument.errorName)
        #expect(oversized?.message.contains("(257 bytes)") == true, "\(String(describing: oversized?.message))")
        let untitled = await failure {
            try await app.call(Contract.Dispatcher1.setShortcutItems, [["type": Variant(Self.show)]])
        }
        #expect(untitled?.name == Contract.Failure.invalidArgument.errorName)
        #expect(untitled?.message.contains("\"title\" is missing") == true, "\(String(describing: untitled?.message))")
        try await app.call(Contract.Dispatcher1.setShortcutItems, Self.items(16))
    }

    @Test("the quicklist is announced for the app's entry, and announced empty once the entry is removed")
    func entryRemoved() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let app = try await InProcessApp(session, id: "org.example.Contacts", activityTypes: [])
        let dock = try await session.connect()
        let signals = try await dock.signals(matching: MatchRule(interface: "com.canonical.Unity.LauncherEntry", member: "Update"))
        // Every update heard, in order; each awaited with a deadline (a dock that never hears one fails).
        final class Heard: Sendable { let updates = Mutex<[(String, String)]>([]) }
        let heard = Heard()
        let listening = Task { @Sendable in
            for try await message in signals {
                let (uri, properties) = try message.decode(String.self, [String: Variant].self)
                let quicklist = try properties["quicklist"]?.decode(as: String.self) ?? "(none)"
                heard.updates.withLock { $0.append((uri, quicklist)) }
            }
        }
        defer { listening.cancel() }
        func update(_ index: Int) async throws -> (String, String) {
            try await waitUntil("the dock hears LauncherEntry.Update #\(index + 1)", context: session.busLog) {
                heard.updates.withLock { $0.count > index }
            }
            return heard.updates.withLock { $0[index] }
        }
        try await app.call(Contract.Dispatcher1.setShortcutItems, Self.items(2))
        let (uri, quicklist) = try await update(0)
        #expect(uri == "application://org.example.Contacts.desktop")
        #expect(quicklist == "/io/waypost/Dispatcher/quicklist/org/example/Contacts")

        try FileManager.default.removeItem(at: session.root.appendingPathComponent("data/applications/org.example.Contacts.desktop"))
        let (goneURI, gone) = try await update(1)
        #expect(goneURI == "application://org.example.Contacts.desktop")
        #expect(gone == "")
    }
}
