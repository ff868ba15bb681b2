import CLinux
import DBus
import Foundation
import Glibc
import Synchronization
import TestSupport

/// A compositor a `WaylandDesktop` runs: how it starts, and how a test sees and moves focus on it.
protocol Compositor: Sendable {
    /// The title of the window with keyboard focus (nil: none).
    func focusedTitle() async throws -> String?
    /// The titles of the windows it manages.
    func windowTitles() async throws -> [String]
    /// The title of each window that got focus since it started, oldest first ("" for none).
    func focusHistory() async throws -> [String]
    /// Gives the window keyboard focus as a user does on this desktop; returns once it has it.
    func focus(_ title: String) async throws
    /// The user opens `link` in the opener's window: Return where the test can type, else the
    /// opener's own `Open` right after `focus` (its token comes from the same focused window).
    func userOpens(_ link: String, in opener: Opener) async throws
    func stop()
}

/// A throwaway Wayland desktop: a private system bus and session bus (the session's environment
/// names the Wayland display before the compositor starts, so that bus-activated programs — the
/// dispatcher, the apps it launches — find it), Waypost installed for the throwaway user with the
/// samples' entries, then a headless compositor. `close()` ends all of it.
final class WaylandDesktop: Sendable {
    let session: PrivateSession
    let compositor: any Compositor
    /// The test's own connection to the session bus (the compositor's and the opener's objects).
    let bus: Connection
    private let systemBus: ChildProcess
    /// Outside the session's root, so that its address is known before the session starts.
    private let systemBusDirectory: URL
    private let processes = ChildProcesses()

    static let display = "wayland-0"
    static let binDirectory = Built.directory
    static let waypost = Built.waypost.path
    static let packageRoot = Built.packageRoot
    static let fixtures = packageRoot.appendingPathComponent("Tests/WaylandTests/Fixtures")
    /// WAYPOST_REQUIRE_WAYLAND=1 makes the tests fail rather than skip where a compositor is missing.
    static let required = ProcessInfo.processInfo.environment["WAYPOST_REQUIRE_WAYLAND"] == "1"
    static let contacts = "io.waypost.example.Contacts"

    var root: URL { session.root }
    var environment: [String: String] { session.environment }
    var busLog: String { session.busLog }

    /// - Parameters:
    ///   - desktop: what the session bus may start besides Waypost and the samples.
    ///   - currentDesktop: `XDG_CURRENT_DESKTOP`.
    ///   - apps: sample entries from `desktop/windows` to install; `entries`: more, as id: text.
    ///   - start: starts the compositor once Waypost is installed.
    init(
        modelling desktop: ModelledDesktop, currentDesktop: String, apps: [String], entries: [String: String] = [:],
        start: (WaylandDesktop.Setup) async throws -> any Compositor
    ) async throws {
        systemBusDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("waypost-system-bus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: systemBusDirectory, withIntermediateDirectories: true)
        let systemAddress = "unix:path=\(systemBusDirectory.appendingPathComponent("system_bus_socket").path)"
        do {
            systemBus = try await Self.startSystemBus(in: systemBusDirectory)
        } catch {
            try? FileManager.default.removeItem(at: systemBusDirectory)
            throw error
        }
        do {
            // GTK without the accessibility bus, drawn on the CPU (the tests share two cores).
            session = try await PrivateSession(
                name: "waypost-wayland", directories: ["bin"], desktop: desktop,
                extraEnvironment: [
                    "WAYLAND_DISPLAY": Self.display, "XDG_SESSION_TYPE": "wayland", "XDG_CURRENT_DESKTOP": currentDesktop,
                    "DBUS_SYSTEM_BUS_ADDRESS": systemAddress, "GDK_BACKEND": "wayland", "GIO_USE_VFS": "local",
                    "GTK_A11Y": "none", "NO_AT_BRIDGE": "1", "GSK_RENDERER": "cairo",
                ])
        } catch {
            systemBus.kill()
            try? FileManager.default.removeItem(at: systemBusDirectory)
            throw error
        }
        do {
            bus = try await Connection(address: session.address)
            try await Self.install(apps: apps, entries: entries, in: session)
            compositor = try await start(Setup(session: session, bus: bus))
        } catch {
            processes.killAll()
            session.close()
            systemBus.kill()
            try? FileManager.default.removeItem(at: systemBusDirectory)
            throw error
        }
    }

    /// What a compositor's `start` gets: the session (Waypost installed) and the test's connection.
    struct Setup {
        let session: PrivateSession
        let bus: Connection
    }

    /// Stops the apps the test started, the compositor, the session's bus and whatever still runs
    /// in the session (GNOME Shell starts ibus-daemon outside the bus, and one started just before
    /// the shell was killed outlives it), then removes every file once nothing can write there.
    func close() {
        processes.killAll()
        compositor.stop()
        bus.close()
        session.stopBus()
        // Killed, each is waited for by its pidfd; a process one of them started meanwhile is found
        // by the next look, until a look finds none.
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let killed = killSessionProcesses()
            if killed.isEmpty { break }
            Self.waitForExit(of: killed, until: deadline)
        }
        session.close()
        systemBus.kill()
        try? FileManager.default.removeItem(at: systemBusDirectory)
    }

    /// SIGKILL to each live process of the session (its `XDG_RUNTIME_DIR` is the session's; a
    /// zombie shows no environment), each opened as a pidfd first so that its exit can be waited for.
    /// - Returns: the pidfds of those killed.
    private func killSessionProcesses() -> [Int32] {
        let marker = Array("XDG_RUNTIME_DIR=\(root.appendingPathComponent("runtime").path)".utf8)
        var killed: [Int32] = []
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), pid != getpid(), let environment = FileManager.default.contents(atPath: "/proc/\(entry)/environ"),
                environment.split(separator: 0).contains(where: { $0.elementsEqual(marker) })
            else { continue }
            let pidfd = waypost_pidfd_open(pid)
            guard pidfd >= 0 else { continue }  // gone already
            kill(pid, SIGKILL)
            killed.append(pidfd)
        }
        return killed
    }

    /// Waits until every process of `pidfds` exited (a pidfd reads as ready then), or `deadline`;
    /// closes them.
    private static func waitForExit(of pidfds: [Int32], until deadline: ContinuousClock.Instant) {
        defer { for pidfd in pidfds { Glibc.close(pidfd) } }
        for pidfd in pidfds {
            var ready = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
            let left = Int32(max(0, ContinuousClock.now.duration(to: deadline) / .milliseconds(1)))
            _ = poll(&ready, 1, left)
        }
    }

    deinit { close() }

    /// A system bus of the test's: GNOME Shell asks logind on it at start, KWin UPower; neither may
    /// reach the machine's.
    private static func startSystemBus(in directory: URL) async throws -> ChildProcess {
        let config = directory.appendingPathComponent("system.conf")
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>system</type>
              <listen>unix:path=\(directory.appendingPathComponent("system_bus_socket").path)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default"><allow send_destination="*"/><allow receive_sender="*"/><allow own="*"/></policy>
            </busconfig>

            """.write(to: config, atomically: true, encoding: .utf8)
        let bus = try await ChildProcess.start("/usr/bin/dbus-daemon", ["--config-file=\(config.path)", "--nofork", "--print-address=1"], environment: [:])
        guard let address = try? await bus.nextLine("the system dbus-daemon prints its address"), !address.isEmpty else {
            bus.kill()
            throw TestFailure("the system dbus-daemon printed no address")
        }
        return bus
    }

    /// The sample entries with their programs' paths, `entries`, the MIME cache GIO reads, then
    /// `waypost install --user`, as WindowDesktop does.
    private static func install(apps: [String], entries: [String: String], in session: PrivateSession) async throws {
        let applications = session.root.appendingPathComponent("data/applications")
        for id in apps {
            let template = try String(contentsOf: packageRoot.appendingPathComponent("desktop/windows/\(id).desktop"), encoding: .utf8)
            try template.replacing("@BINDIR@", with: binDirectory.path)
                .write(to: applications.appendingPathComponent("\(id).desktop"), atomically: true, encoding: .utf8)
        }
        for (id, text) in entries {
            try text.write(to: applications.appendingPathComponent("\(id).desktop"), atomically: true, encoding: .utf8)
        }
        _ = try await runProgram("/usr/bin/update-desktop-database", [applications.path], environment: session.environment)
        let install = try await runProgram(waypost, ["install", "--user"], environment: session.environment)
        guard install.status == 0 else { throw TestFailure("waypost install --user: \(install.output)\(install.errors)") }
    }

    // MARK: Programs in the session

    /// Runs a program in the session (plus `extra`): its status, stdout and stderr.
    @discardableResult
    func run(_ program: String, _ arguments: [String], extra: [String: String] = [:]) async throws -> (status: Int32, output: String, errors: String) {
        try await runProgram(program, arguments, environment: environment.merging(extra) { $1 })
    }

    /// Starts a program the user starts (killed with the desktop); its stderr goes to logs/NAME.log
    /// (with the Wayland protocol when the tests run with WAYLAND_DEBUG=1).
    func start(_ program: String, _ arguments: [String], log name: String, extra: [String: String] = [:]) async throws -> ChildProcess {
        let debug = ProcessInfo.processInfo.environment["WAYLAND_DEBUG"].map { ["WAYLAND_DEBUG": $0] } ?? [:]
        let process = try await ChildProcess.start(
            program, arguments, environment: environment.merging(extra.merging(debug) { $1 }) { $1 },
            errors: root.appendingPathComponent("logs/\(name).log"))
        processes.add(process)
        return process
    }

    /// What a program wrote to logs/NAME.log, for failure messages.
    func log(_ name: String) -> String {
        (try? String(contentsOf: root.appendingPathComponent("logs/\(name).log"), encoding: .utf8)) ?? ""
    }

    /// The logs a failure message carries: the bus's (the dispatcher's included) and the named ones.
    func logs(_ names: String...) -> String {
        ([busLog] + names.map { "--- \($0):\n\(log($0))" }).joined(separator: "\n")
    }

    /// `waypost-contacts-gtk` as the user starts it, one window per `--window` value (a contact's id,
    /// or `-` for an empty window, which takes any link); returns once they are all on screen.
    func startContacts(windows: [String], expecting titles: [String]) async throws -> ChildProcess {
        // Its console (stdout: the events it handled) in its log too.
        let program = Self.binDirectory.appendingPathComponent("waypost-contacts-gtk").path
        let contacts = try await start(
            "/bin/sh", ["-c", #"exec "$0" "$@" >>"$WAYPOST_TEST_LOG""#, program] + windows.flatMap { ["--window", $0] }, log: "contacts",
            extra: ["WAYPOST_TEST_LOG": root.appendingPathComponent("logs/contacts.log").path])
        try await waitUntil("Contacts shows \(titles)", context: logs("contacts")) {
            let shown = try await compositor.windowTitles()
            return titles.allSatisfy { title in shown.filter { $0 == title }.count >= titles.filter { $0 == title }.count }
        }
        // Registered, each window a scene with what it takes: links are routed by these.
        let sets = windows.map { $0 == "-" ? #"allowing ["*"]"# : #"preferring [""# + $0 + #""]"# }
        try await waitUntil("the dispatcher knows Contacts' scenes (\(sets))", context: logs("contacts")) {
            let lines = try await status().split(separator: "\n")
            return sets.allSatisfy { set in lines.filter { $0.contains(set) }.count >= sets.filter { $0 == set }.count }
        }
        return contacts
    }

    /// The opener app (Tests/Apps/wayland_opener.py), on screen and on the bus.
    func startOpener() async throws -> Opener {
        let program = Self.packageRoot.appendingPathComponent("Tests/Apps/wayland_opener.py").path
        let opener = Opener(process: try await start("/usr/bin/python3", [program, Opener.title], log: "opener"), bus: bus)
        try await waitUntil("the opener is on screen and on the bus", context: logs("opener")) {
            guard (try? await bus.nameOwner(of: Opener.busName)) != nil else { return false }
            return try await compositor.windowTitles().contains(Opener.title)
        }
        return opener
    }

    /// `waypost status`: the apps and scenes the dispatcher knows.
    func status() async throws -> String { try await run(Self.waypost, ["status"]).output }

    /// Waits until the focused window is `title`; a failure tells which windows had focus.
    func waitForFocus(on title: String, context: @autoclosure () -> String = "") async throws {
        var last: String?
        var history: [String] = []
        try await waitUntil("\"\(title)\" has keyboard focus", context: "focused: \(last ?? "nothing"), before: \(history)\n\(context())") {
            last = try await compositor.focusedTitle()
            history = try await compositor.focusHistory()
            return last == title
        }
    }
}

/// Tests/Apps/wayland_opener.py: a GTK app that opens links with its display's launch context.
final class Opener: Sendable {
    static let title = "Opener"
    static let busName: BusName = "io.waypost.test.Opener"
    private static let path: ObjectPath = "/io/waypost/test/Opener"
    private static let interface: InterfaceName = "io.waypost.test.Opener"
    let process: ChildProcess
    private let bus: Connection
    /// Its reports, one a line: "opened URI", "failed URI: why", "token TOKEN".
    private let reports = Reports()
    private let reader: Task<Void, Never>

    private final class Reports: Sendable {
        let lines = Mutex<[String]>([])
    }

    init(process: ChildProcess, bus: Connection) {
        self.process = process
        self.bus = bus
        let reports = reports
        reader = Task { for await line in process.lines { reports.lines.withLock { $0.append(line) } } }
    }

    deinit { reader.cancel() }

    /// The link Return opens.
    func setLink(_ uri: String) async throws {
        _ = try await bus.call(destination: Self.busName, path: Self.path, interface: Self.interface, member: "SetLink", uri)
    }

    /// Opens the link now, as a click on it in the app would.
    func open(_ uri: String) async throws {
        _ = try await bus.call(destination: Self.busName, path: Self.path, interface: Self.interface, member: "Open", uri)
    }

    /// Hands the link to the portal's OpenURI with a token from its launch context.
    func openWithPortal(_ uri: String) async throws {
        _ = try await bus.call(destination: Self.busName, path: Self.path, interface: Self.interface, member: "OpenWithPortal", uri)
    }

    /// A token from the opener's launch context, as GIO gives a program it launches.
    func token() async throws -> String {
        try await bus.call(destination: Self.busName, path: Self.path, interface: Self.interface, member: "Token").decode(String.self)
    }

    /// Waits until it reports what became of `uri` (its first report): true once it was opened.
    func opened(_ uri: String, context: @autoclosure () -> String = "") async throws -> Bool {
        var outcome: String?
        try await waitUntil("the opener reports on \(uri)", context: context()) {
            outcome = reports.lines.withLock { $0.first { $0 == "opened \(uri)" || $0.hasPrefix("failed \(uri):") } }
            return outcome != nil
        }
        return outcome == "opened \(uri)"
    }
}
