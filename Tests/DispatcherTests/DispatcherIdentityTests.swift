import DBus
import Foundation
import TestSupport
@testable import WaypostContract
import Testing

/// The dispatcher is who it says it is, and links are not broadcast: a process that takes
/// `io.waypost.Dispatcher` first (a squatter, in Python) is refused by name, pid and program; `Routed`
/// reaches only the monitors that asked, cut to scheme, host and path; logs keep no query.
@Suite("dispatcher: identity and what it lets out", .serialized)
struct DispatcherIdentityTests {
    static let standIn = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Apps/stand_in.py")

    /// Starts `stand_in.py` owning `name`; returns its pid once it owns it, and the file of the calls it received.
    static func standIn(_ name: String, in session: DesktopSession) async throws -> (pid: Int32, calls: URL) {
        let calls = session.root.appendingPathComponent("logs/\(name).calls")
        let process = try await session.spawn(DesktopSession.python, [standIn.path, name, calls.path])
        guard await process.nextLine() == "ready" else { throw TestFailure("the stand-in for \(name) did not start: \(session.busLog)") }
        return (process.pid, calls)
    }

    /// The members of the calls a stand-in received, and their arguments.
    static func calls(_ file: URL) -> [(member: String, arguments: [Any])] {
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            guard let line = try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] else { return nil }
            return ((line["member"] as? String) ?? "", (line["arguments"] as? [Any]) ?? [])
        }
    }

    @Test("a squatter on the dispatcher's name: waypost open, status and monitor refuse it by pid and program, and send it nothing")
    func squatterIsRefusedByTheCommands() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let squatter = try await Self.standIn("io.waypost.Dispatcher", in: session)
        let notifications = try await Self.standIn("org.freedesktop.Notifications", in: session)
        let open = try await session.waypost(["open", "contacts://show?id=ada&session=SECRETTOKEN"])
        #expect(open.status == 1)
        #expect(open.stderr.contains("pid \(squatter.pid) running /usr/bin/python3"), "\(open.stderr)")
        #expect(open.stderr.contains("not the installed dispatcher"), "\(open.stderr)")
        // The user is told, as for any link that went nowhere (a browser ignores the exit status).
        let notified = Self.calls(notifications.calls).filter { $0.member == "Notify" }
        #expect(notified.count == 1)
        let body = notified.first?.arguments[4] as? String ?? ""
        #expect(body.contains("cannot open contacts://show?…") && body.contains("pid \(squatter.pid)") && !body.contains("SECRETTOKEN"), "\(body)")
        for command in [["status"], ["monitor", "--count", "1"], ["continue", "org.example.contact.show"], ["explain", "contacts://x"]] {
            let result = try await session.waypost(command)
            #expect(result.status == 1, "\(command)")
            #expect(result.stderr.contains("pid \(squatter.pid)"), "\(command): \(result.stderr)")
        }
        // Not one call reached it: the link and its secret stayed with the opener.
        #expect(Self.calls(squatter.calls).isEmpty, "\(Self.calls(squatter.calls))")
    }

    @Test("a squatter running python3 bind-mounted over the installed waypost, in a mount namespace of its own, is refused by waypost open and doctor",
          .enabled(if: getuid() == 0, "mounts need root (as unprivileged user namespaces would give a user)"))
    func squatterBehindABindMountIsRefused() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let installed = DesktopSession.waypost.resolvingSymlinksInPath().path
        let calls = session.root.appendingPathComponent("logs/squatter.calls")
        // /proc/PID/exe of this process reads the installed path, but the file there is python3.
        let squatter = try await session.spawn("/usr/bin/unshare", [
            "-m", "/bin/sh", "-c", "mount --bind \"$1\" \"$2\" && exec \"$2\" \"$3\" io.waypost.Dispatcher \"$4\"", "sh",
            "/usr/bin/python3", installed, Self.standIn.path, calls.path,
        ])
        guard await squatter.nextLine() == "ready" else { throw TestFailure("the squatter did not start: \(session.busLog)") }
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(squatter.pid)/exe")) == installed)

        let open = try await session.waypost(["open", "contacts://show?id=ada&session=SECRETTOKEN"])
        #expect(open.status == 1)
        #expect(open.stderr.contains("pid \(squatter.pid) running \(installed) (another file at that path"), "\(open.stderr)")
        let doctor = try await session.waypost(["doctor"])
        #expect(doctor.stdout.contains("FIX  io.waypost.Dispatcher is owned by :"), "\(doctor.stdout)")
        #expect(doctor.stdout.contains("pid \(squatter.pid)"), "\(doctor.stdout)")
        #expect(Self.calls(calls).isEmpty, "\(Self.calls(calls))")
    }

    @Test("the daemon, finding its name taken, says by whom; waypost doctor reports the squatter")
    func daemonAndDoctorNameTheSquatter() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let squatter = try await Self.standIn("io.waypost.Dispatcher", in: session)
        let daemon = try await session.waypost(["daemon"])
        #expect(daemon.status == 69)
        #expect(daemon.stderr.contains("io.waypost.Dispatcher is taken: by :"), "\(daemon.stderr)")
        #expect(daemon.stderr.contains("pid \(squatter.pid) running /usr/bin/python3"), "\(daemon.stderr)")
        let doctor = try await session.waypost(["doctor"])
        #expect(doctor.status == 1)
        #expect(doctor.stdout.contains("FIX  io.waypost.Dispatcher is owned by :"), "\(doctor.stdout)")
        #expect(doctor.stdout.contains("pid \(squatter.pid) running /usr/bin/python3"), "\(doctor.stdout)")
        #expect(doctor.stdout.contains("→ stop process \(squatter.pid)"), "\(doctor.stdout)")
    }

    @Test("waypost doctor names the real dispatcher's pid and program as fine, and where the desktops' searches look")
    func doctorNamesTheDispatcher() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let doctor = try await session.waypost(["doctor"])
        #expect(doctor.stdout.contains("ok   io.waypost.Dispatcher is owned by pid "), "\(doctor.stdout)")
        #expect(doctor.stdout.contains("running \(DesktopSession.waypost.resolvingSymlinksInPath().path)"), "\(doctor.stdout)")
        // A user install puts the GNOME provider where GNOME Shell does not look; doctor says so.
        #expect(try await session.waypost(["install", "--user"]).status == 0)
        let user = try await session.waypost(["doctor", "--user"])
        #expect(user.stdout.contains("GNOME Shell reads search providers only from those"), "\(user.stdout)")
        #expect(user.stdout.contains("ok   KRunner finds saved activities through"), "\(user.stdout)")
    }

    @Test("Routed goes to each monitor alone, cut to scheme, host and path unless it asked --full; a stranger's match rule gets none")
    func routedIsUnicastAndCut() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let app = try await session.installApp(RoutingTests.contactsApp(scenes: [("pat", "contacts", [([], ["*"])])]))
        try await session.start(app)
        let stranger = try await session.connect()
        // Wider than any monitor's rule: every signal named Routed, from anyone.
        let overheard = try await stranger.signals(matching: MatchRule(member: "Routed"))
        let cut = try await session.spawn(DesktopSession.waypost.path, ["monitor", "--count", "2"])
        let full = try await session.spawn(DesktopSession.waypost.path, ["monitor", "--count", "1", "--full"])
        #expect(await cut.nextLine()?.contains("watching") == true)
        #expect(await full.nextLine()?.contains("watching") == true)

        #expect(try await session.waypost(["open", "contacts://show?id=pat&session=SECRETTOKEN#top"]).status == 0)
        #expect(await full.nextLine()?.hasPrefix("contacts://show?id=pat&session=SECRETTOKEN#top → org.example.Contacts scene pat") == true)
        #expect(await cut.nextLine()?.hasPrefix("contacts://show?… → org.example.Contacts scene pat [deliver, allowing]") == true)
        #expect(try await session.waypost(["open", "nobody://user:password@host/a/b?token=SECRETTOKEN"]).status == 1)
        let failed = await cut.nextLine() ?? ""
        #expect(failed.hasPrefix("nobody://host/a/b?… ✗ io.waypost.Error.NoHandler"), "\(failed)")
        #expect(!failed.contains("SECRETTOKEN") && !failed.contains("password"), "\(failed)")

        // Had Routed been broadcast, the bus would have queued it for the stranger when the monitors
        // got it, so before this marker the stranger sends itself afterwards.
        try stranger.emit(path: "/marker", interface: "io.waypost.test.Marker", member: "Routed")
        for try await signal in overheard {
            if signal.interface?.rawValue == "io.waypost.test.Marker" { break }
            Issue.record("a stranger with a match rule received \(signal)")
        }
    }

    @Test("the daemon's log names links by scheme, host and path: no query, no user info")
    func logsKeepNoQuery() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let app = try await session.installApp(RoutingTests.contactsApp(scenes: [("pat", "contacts", [([], ["*"])])]))
        try await session.start(app)
        let bus = try await session.connect()
        _ = try await session.open("contacts://show?id=pat&session=SECRETTOKEN", with: bus)
        _ = try? await session.open("nobody://user:password@host/x?token=SECRETTOKEN", with: bus)
        // An Explain that fails, and org.freedesktop.Application.Open as GIO calls it, failing too.
        _ = try? await bus.call(
            destination: "io.waypost.Dispatcher", path: "/io/waypost/Dispatcher", interface: "io.waypost.Dispatcher1",
            member: "Explain", "nobody://x?token=SECRETTOKEN")
        _ = try? await bus.call(
            destination: "io.waypost.Dispatcher", path: "/io/waypost/Dispatcher", interface: "org.freedesktop.Application",
            member: "Open", ["nobody://y?token=SECRETTOKEN"], [String: Variant]())
        try await waitUntil("the daemon logged the failed Open", context: session.busLog) { session.busLog.contains("nobody://y?…") }
        let log = session.busLog
        #expect(log.contains("\"nobody://host/x?…\" not delivered"), "\(log)")
        #expect(log.contains("\"contacts://show?…\" → org.example.Contacts pat"), "\(log)")
        #expect(!log.contains("SECRETTOKEN") && !log.contains("password"), "\(log)")
    }

    @Test("a link that fails is shown in a desktop notification: from waypost open, and from org.freedesktop.Application.Open")
    func failuresAreNotified() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let notifications = try await Self.standIn("org.freedesktop.Notifications", in: session)
        let open = try await session.waypost(["open", "nobody://x?token=SECRETTOKEN"])
        #expect(open.status == 1)
        var notified = Self.calls(notifications.calls).filter { $0.member == "Notify" }
        #expect(notified.count == 1)
        #expect(notified.first?.arguments[3] as? String == "A link could not be opened")
        let body = notified.first?.arguments[4] as? String ?? ""
        #expect(body.contains("cannot open nobody://x?…") && body.contains("[NoHandler]") && !body.contains("SECRETTOKEN"), "\(body)")

        // GIO's path to the handler entry: the daemon itself tells the user.
        let bus = try await session.connect()
        await #expect(throws: BusError.self) {
            _ = try await bus.call(
                destination: "io.waypost.Dispatcher", path: "/io/waypost/Dispatcher", interface: "org.freedesktop.Application",
                member: "Open", ["nobody://y"], [String: Variant]())
        }
        try await waitUntil("the daemon notified", context: session.busLog) {
            Self.calls(notifications.calls).filter { $0.member == "Notify" }.count == 2
        }
        notified = Self.calls(notifications.calls).filter { $0.member == "Notify" }
        #expect((notified.last?.arguments[4] as? String)?.contains("nobody://y") == true)
    }

    @Test("org.freedesktop.Application.ActivateAction answers NotSupported, naming the action")
    func activateActionIsNotSupported() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let bus = try await session.connect()
        do {
            _ = try await bus.call(
                destination: "io.waypost.Dispatcher", path: "/io/waypost/Dispatcher", interface: "org.freedesktop.Application",
                member: "ActivateAction", "quit", [Variant](), [String: Variant]())
            Issue.record("ActivateAction succeeded")
        } catch let error as BusError {
            #expect(error.name.rawValue == "org.freedesktop.DBus.Error.NotSupported")
            #expect(error.message.contains("\"quit\""))
        }
    }
}

/// The pure parts: what a monitor or log keeps of a URI, and which program a service file starts.
@Suite("the dispatcher's identity and redaction, no bus")
struct RedactionAndServiceFileTests {
    @Test("a URI is cut to scheme, host and path; ?… says that a query or fragment was there")
    func redaction() {
        #expect(Contract.redacted("contacts://show?id=ada&session=SECRET") == "contacts://show?…")
        #expect(Contract.redacted("https://user:pw@example.com:8443/a/b#frag") == "https://example.com:8443/a/b?…")
        #expect(Contract.redacted("https://user@example.com/p") == "https://example.com/p")
        #expect(Contract.redacted("file:///home/ada/notes.md") == "file:///home/ada/notes.md")
        #expect(Contract.redacted("mailto:ada@example.com?subject=x") == "mailto:ada@example.com?…")
        #expect(Contract.redacted("activity:org.example.show") == "activity:org.example.show")
        #expect(Contract.redacted("") == "")
        #expect(Contract.redacted("a://") == "a://")
    }

    @Test("a FIFO in place of a service file is skipped, not waited on")
    func fifoServiceFile() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("waypost-trust-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let runtime = root.appendingPathComponent("runtime/dbus-1/services"), user = root.appendingPathComponent("data/dbus-1/services")
        for directory in [runtime, user] { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        try #require(mkfifo(runtime.appendingPathComponent("io.waypost.Dispatcher.service").path, 0o600) == 0)
        try "[D-BUS Service]\nName=io.waypost.Dispatcher\nExec=/usr/bin/waypost daemon\n"
            .write(to: user.appendingPathComponent("io.waypost.Dispatcher.service"), atomically: true, encoding: .utf8)
        let trusted = Contract.TrustedDispatcher.installed(environment: [
            "XDG_RUNTIME_DIR": root.appendingPathComponent("runtime").path, "XDG_DATA_HOME": root.appendingPathComponent("data").path,
            "XDG_DATA_DIRS": root.appendingPathComponent("none").path,
        ])
        #expect(trusted.programs.map(\.path).first == "/usr/bin/waypost")
    }

    @Test("the trusted program is the first word of Exec= in [D-BUS Service], unquoted as the bus splits it")
    func serviceFile() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("waypost-trust-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let user = root.appendingPathComponent("data/dbus-1/services"), system = root.appendingPathComponent("system/dbus-1/services")
        for directory in [user, system] { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        try "[D-BUS Service]\nName=io.waypost.Dispatcher\nExec=\"/opt/way post/waypost\" daemon\n"
            .write(to: user.appendingPathComponent("io.waypost.Dispatcher.service"), atomically: true, encoding: .utf8)
        try "# comment\n[Other]\nExec=/bin/false\n[D-BUS Service]\nName=io.waypost.Dispatcher\nExec = /usr/bin/waypost daemon\n"
            .write(to: system.appendingPathComponent("io.waypost.Dispatcher.service"), atomically: true, encoding: .utf8)
        let trusted = Contract.TrustedDispatcher.installed(environment: [
            "XDG_DATA_HOME": root.appendingPathComponent("data").path, "XDG_DATA_DIRS": root.appendingPathComponent("system").path,
        ])
        #expect(trusted.programs.map(\.path) == ["/opt/way post/waypost", "/usr/bin/waypost"])
        #expect(trusted.programs.first?.namedBy == user.appendingPathComponent("io.waypost.Dispatcher.service").path)
        #expect(trusted.trusts(running: "/usr/bin/waypost"))
        // Upgraded under a running daemon: still the installed program.
        #expect(trusted.trusts(running: "/opt/way post/waypost (deleted)"))
        #expect(!trusted.trusts(running: "/usr/bin/python3.11"))
        #expect(!trusted.trusts(running: "/usr/bin/waypost-evil"))
        #expect(Contract.TrustedDispatcher.firstWord(#"'/a b/c' d"#) == "/a b/c")
        #expect(Contract.TrustedDispatcher.firstWord(#"/a\ b/c d"#) == "/a b/c")
        #expect(Contract.TrustedDispatcher.firstWord(#""/a\"b" d"#) == #"/a"b"#)
        #expect(Contract.TrustedDispatcher.firstWord("   ") == nil)
    }
}
