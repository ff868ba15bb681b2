import Foundation
import TestSupport
import Testing

/// A FIFO where the daemon expects a file it reads: it is skipped, never waited on in `open()`.
@Suite("dispatcher: FIFOs in the user's directories", .serialized)
struct SpecialFilesTests {
    @Test("a FIFO named *.desktop in the applications directory: the daemon starts, routes links, and doctor names it")
    func fifoDesktopEntry() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        try await session.installApp(RoutingTests.contactsApp(scenes: [("pat", "contacts", [([], ["*"])])]))
        // After the entries' cache was refreshed (update-desktop-database would wait on it too).
        let fifo = session.root.appendingPathComponent("data/applications/aaa.evil.desktop").path
        try #require(mkfifo(fifo, 0o600) == 0)
        // The bus starts the daemon, which reads every entry before it takes its name.
        let open = try await session.waypost(["open", "contacts://show?id=pat"])
        #expect(open.status == 0, "\(open.stderr)\n\(session.busLog)")
        // Launched for it: the app made a scene for the link.
        let received = session.received("org.example.Contacts")
        #expect(received.compactMap { ($0["payload"] as? [String: Any])?["uri"] as? String } == ["contacts://show?id=pat"], "\(received)")
        let doctor = try await session.waypost(["doctor"])
        #expect(doctor.stdout.contains("\(fifo) is ignored by the desktop: not a regular file"), "\(doctor.stdout)")
    }
}
