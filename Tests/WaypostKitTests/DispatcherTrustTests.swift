import DBus
import Foundation
import TestSupport
import Testing
@testable import WaypostKit

/// An app registers only with the installed dispatcher, and without one still opens the link it
/// was started with.
@Suite("WaypostKit: whom an app trusts, and links without a dispatcher", .serialized)
struct DispatcherTrustTests {
    static let standIn = KitSession.packageRoot.appendingPathComponent("Tests/Apps/stand_in.py")
    static let contacts = KitSession.binDirectory.appendingPathComponent("waypost-contacts")

    /// A process (Python) that owns the dispatcher's name before the daemon does, recording every call.
    static func squatter(in session: KitSession) async throws -> (process: ChildProcess, calls: URL) {
        let calls = session.root.appendingPathComponent("logs/squatter.calls")
        let process = try await ChildProcess.start(
            "/usr/bin/python3", [standIn.path, "io.waypost.Dispatcher", calls.path], environment: session.environment)
        guard try await process.nextLine("the squatter is ready") == "ready" else { throw TestFailure("the squatter did not start: \(session.busLog)") }
        return (process, calls)
    }

    @Test("an app refuses to register with a squatter on the dispatcher's name, naming its pid and program; it registers once the real one is there")
    func refusesASquatter() async throws {
        let session = try await KitSession()
        defer { session.close() }
        let squatter = try await Self.squatter(in: session)
        defer { squatter.process.kill() }
        try await session.installInProcessApp("io.waypost.test.Contacts", schemes: ["contacts"])
        let app = try Application(id: "io.waypost.test.Contacts", declarations: [.windowGroup("list")])
        let inbox = Inbox()
        let scene = try app.openScene("list", id: "w1")
        scene.onOpenURL { url, _ in inbox.record("w1", url) }
        scene.handlesExternalEvents(preferring: [], allowing: ["*"])
        do {
            try await app.start(busAddress: session.address, dispatcherProgram: KitSession.waypost.path)
            Issue.record("the app registered with a squatter")
        } catch let error {
            guard case .untrustedDispatcher(let pid, let program, _) = error else { throw error }
            #expect(pid == UInt32(squatter.process.pid))
            #expect(program.hasPrefix("/usr/bin/python3"), "\(program)")
            #expect(error.description.contains("pid \(squatter.process.pid) running /usr/bin/python3"), "\(error)")
        }
        defer { app.stop() }
        // It saw nothing of the app: no registration, no scene.
        #expect(((try? String(contentsOf: squatter.calls, encoding: .utf8)) ?? "").isEmpty)

        // The squatter goes; the real dispatcher starts (on the next opener's call), and the app registers with it.
        squatter.process.kill()
        let bus = try await session.connect()
        try await waitUntil("the app registered with the real dispatcher", context: session.busLog) {
            (try? await session.open("contacts://show?id=ada", with: bus))?["scene-id"] == "w1"
        }
        #expect(inbox.received(by: "w1").first == "contacts://show?id=ada")
    }

    @Test("an app process finds the installed dispatcher's program in the session's service file, and refuses a squatter by it")
    func sampleRefusesASquatter() async throws {
        let session = try await KitSession()
        defer { session.close() }
        let squatter = try await Self.squatter(in: session)
        defer { squatter.process.kill() }
        let result = try await runProgram(Self.contacts.path, ["--window", "-"], environment: session.environment)
        #expect(result.status == 69)
        #expect(result.errors.contains("pid \(squatter.process.pid) running /usr/bin/python3"), "\(result.errors)")
        #expect(result.errors.contains("\(KitSession.waypost.path), named by \(session.root.path)/data/dbus-1/services/io.waypost.Dispatcher.service"),
                "\(result.errors)")
    }

    @Test("without a dispatcher, a link the app was started with goes to its scenes by the routing rules")
    func launchURLRoutedLocally() async throws {
        let session = try await KitSession()
        defer { session.close() }
        // Nothing answers for the dispatcher: the bus cannot start it.
        try FileManager.default.removeItem(at: session.root.appendingPathComponent("data/dbus-1/services/io.waypost.Dispatcher.service"))
        let app = try Application(id: "io.waypost.test.Contacts", declarations: [.windowGroup("list")])
        let inbox = Inbox()
        let ada = try app.openScene("list", id: "ada")
        ada.handlesExternalEvents(preferring: ["ada"], allowing: [])
        let empty = try app.openScene("list", id: "empty")
        empty.handlesExternalEvents(preferring: [], allowing: ["*"])
        for scene in [ada, empty] { scene.onOpenURL { url, _ in inbox.record(scene.id, url) } }
        await #expect(throws: WaypostError.self) {
            try await app.start(busAddress: session.address, dispatcherProgram: KitSession.waypost.path)
        }
        defer { app.stop() }
        #expect(try await app.openLaunchURL("contacts://show?id=ada") == "ada")
        #expect(try await app.openLaunchURL("contacts://show?id=bob") == "empty")
        #expect(inbox.received(by: "ada") == ["contacts://show?id=ada"])
        #expect(inbox.received(by: "empty") == ["contacts://show?id=bob"])
        // A scene that refuses: the caller learns it, with the link.
        let refusing = try Application(id: "io.waypost.test.Other", declarations: [.windowGroup("list")])
        try refusing.openScene("list", id: "deaf").handlesExternalEvents(preferring: [], allowing: ["*"])
        await #expect(throws: WaypostError.launchURLNotDelivered(
            "other://x", reason: "scene \"deaf\" of io.waypost.test.Other has no onOpenURL handler")) {
            _ = try await refusing.openLaunchURL("other://x")
        }
    }

    @Test("after waypost uninstall, an app the desktop starts with a link opens it in a new window")
    func launchURLAfterUninstall() async throws {
        let session = try await KitSession()
        defer { session.close() }
        for command in [["install", "--user"], ["uninstall", "--user"]] {
            let result = try await runProgram(KitSession.waypost.path, command, environment: session.environment)
            #expect(result.status == 0, "\(command): \(result.errors)")
        }
        #expect(!FileManager.default.fileExists(atPath: session.root.appendingPathComponent("data/dbus-1/services/io.waypost.Dispatcher.service").path))
        let log = session.root.appendingPathComponent("logs/samples.log")
        var environment = session.environment
        environment["WAYPOST_SAMPLE_LOG"] = log.path
        // As the desktop runs its entry's Exec with %u.
        let app = try await ChildProcess.start(Self.contacts.path, ["contacts://show?id=0F3A-ADA"], environment: environment)
        defer { app.kill() }
        let opened = await app.lines.first { $0.contains("opened in") || $0.contains("reached no scene") }
        #expect(opened?.contains("contacts://show?id=0F3A-ADA opened in contacts-\(app.pid)-1") == true, "\(opened ?? "no line")")
        let records = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n")
        // The sample's record of what the new window's handler got (JSON escapes the slashes).
        #expect(records.contains {
            $0.contains("\"event\":\"open-url\"") && $0.contains("\"scene\":\"contacts-\(app.pid)-1\"") && $0.contains("show?id=0F3A-ADA")
        }, "\(records)")
    }
}
