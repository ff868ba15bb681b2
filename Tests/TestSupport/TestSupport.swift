// What the integration test targets share: the bounded waits every test uses (one poller,
// `waitUntil`; one deadline, `withDeadline`, and `next` built on it) and a private desktop session
// (programs are started in ChildProcess.swift, screens in Screen.swift).
public import Foundation
import Glibc
import Synchronization

/// A fixture that could not do what a test needed.
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Polls `condition` until it holds, for at most `seconds` (a bound for a loaded machine, not a
/// figure: the tests assert what happens, never how fast).
/// The failure carries `context` (a session's bus log, say).
public func waitUntil(
    _ what: String, seconds: Double = 30, context: @autoclosure () -> String = "", _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw TestFailure("timed out waiting until \(what)\n\(context())")
}

/// `body`'s result, or a failure naming `what` (and `context`) once `seconds` passed: a bound for a
/// loaded machine, not a figure.
public func withDeadline<T: Sendable>(
    _ what: String = "the awaited step", seconds: Int = 30, context: @escaping @Sendable () -> String = { "" },
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw TestFailure("timed out waiting until \(what)\n\(context())")
        }
        return value
    }
}

/// The next element of `stream` (signals, say), within `seconds`: `what` names it in the failure.
public func next<Element: Sendable>(
    _ stream: AsyncThrowingStream<Element, any Error>, _ what: String, seconds: Int = 30
) async throws -> Element {
    try await withDeadline(what, seconds: seconds) {
        var iterator = stream.makeAsyncIterator()
        guard let element = try await iterator.next() else { throw TestFailure("the stream ended before \(what)") }
        return element
    }
}

/// The next element of `stream` (what a handler reported, say), within `seconds`.
public func next<Element: Sendable>(_ stream: AsyncStream<Element>, _ what: String, seconds: Int = 30) async throws -> Element {
    try await withDeadline(what, seconds: seconds) {
        var iterator = stream.makeAsyncIterator()
        guard let element = await iterator.next() else { throw TestFailure("the stream ended before \(what)") }
        return element
    }
}

/// Which desktop a private session models, as far as its bus goes: what the bus can start
/// besides the services the test itself writes into the session's `data/dbus-1/services`.
public enum ModelledDesktop: Sendable {
    /// The lab desktop (X11 or no display, no portal): nothing the machine installed. A bus that
    /// loaded the machine's services would change with what is installed on it (once
    /// xdg-desktop-portal is, Chromium opens links through it; gjs brings GNOME Shell's
    /// notification server), so a lab test names only its own.
    case lab
    /// The desktop people run, its portal part: the real xdg-desktop-portal with its GTK backend and
    /// permission store, and the document portal where `/dev/fuse` exists. The portal's GTK
    /// backend serves only on a display and with `XDG_CURRENT_DESKTOP=GNOME`, which the session
    /// sets unless the test gives another.
    case portal
    /// GNOME Shell's session, what its bus starts: the shell's notification server
    /// (`org.gnome.Shell.Notifications`, a gjs program that owns `org.freedesktop.Notifications`),
    /// dconf (GSettings, where the shell reads its enabled extensions), and the portal with its GTK
    /// backend and permission store (not the document portal: its FUSE mount outlives a killed
    /// session). The shell itself is started by the test, on the session's Wayland display.
    case gnomeShell
    /// A session run by a real systemd user manager, as GNOME's and Plasma's are: the manager runs
    /// the bus (socket-activated, with `--systemd-activation`), so a service file's
    /// `SystemdService=` makes the bus ask the manager to start that unit, found in the session's
    /// `data/systemd/user`. Nothing of the machine's is started (`UserManager`).
    case systemd

    /// The machine's service files the bus may start, by bus name.
    var machineServices: [String] {
        switch self {
        case .lab, .systemd: []
        case .portal:
            ["org.freedesktop.portal.Desktop", "org.freedesktop.impl.portal.PermissionStore", "org.freedesktop.impl.portal.desktop.gtk"]
                + (FileManager.default.fileExists(atPath: "/dev/fuse") ? ["org.freedesktop.portal.Documents"] : [])
        case .gnomeShell:
            ["org.gnome.Shell.Notifications", "ca.desrt.dconf", "org.freedesktop.portal.Desktop",
             "org.freedesktop.impl.portal.PermissionStore", "org.freedesktop.impl.portal.desktop.gtk"]
        }
    }
}

/// A throwaway desktop session: HOME and the XDG directories under one temporary root, and a
/// private `dbus-daemon` (never the user's bus) started with that environment, so that the
/// services it activates inherit it, and with a configuration the session writes: it listens on a
/// socket file below the root (abstract sockets belong to one network namespace; Flatpak needs a
/// path) and starts only the session's own services and the `desktop`'s. `close()` kills the bus
/// and removes the root.
public final class PrivateSession: Sendable {
    public let root: URL
    public let address: String
    /// The session's environment, `DBUS_SESSION_BUS_ADDRESS` included.
    public let environment: [String: String]
    private let bus: ChildProcess
    /// The control groups of a `.systemd` session's manager, one per hierarchy; empty otherwise.
    private let managerGroups: [String]
    /// This session's place among those alive at once (`SessionSlots`), given back once.
    private let slot = Mutex(true)

    /// - Parameters:
    ///   - name: a prefix for the temporary root's name.
    ///   - directories: made below the root besides home, data/applications, data/dbus-1/services,
    ///     config, runtime and logs.
    ///   - desktop: what the bus may start besides the session's own services.
    ///   - extraEnvironment: set for the bus and everything started in the session.
    ///   - prepare: runs once the directories exist, before the bus starts (service files…).
    public init(
        name: String, directories: [String] = [], desktop: ModelledDesktop = .lab, extraEnvironment: [String: String] = [:],
        prepare: (URL) throws -> Void = { _ in }
    ) async throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        for dir in ["home", "data/applications", "data/dbus-1/services", "config", "runtime", "logs"] + directories {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(dir), withIntermediateDirectories: true)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: root.appendingPathComponent("runtime").path)
        var environment = ProcessInfo.processInfo.environment.filter { key, _ in ["PATH", "LANG", "LC_ALL", "TMPDIR"].contains(key) }
        environment["HOME"] = root.appendingPathComponent("home").path
        environment["XDG_DATA_HOME"] = root.appendingPathComponent("data").path
        environment["XDG_CONFIG_HOME"] = root.appendingPathComponent("config").path
        environment["XDG_CACHE_HOME"] = root.appendingPathComponent("cache").path
        environment["XDG_RUNTIME_DIR"] = root.appendingPathComponent("runtime").path
        environment["XDG_DATA_DIRS"] = try Self.systemDataWithoutApplications(in: root).path
        environment["XDG_CONFIG_DIRS"] = root.appendingPathComponent("config").path
        if desktop == .portal { environment["XDG_CURRENT_DESKTOP"] = "GNOME" }
        environment.merge(extraEnvironment) { _, new in new }
        try prepare(root)
        let configFile = try Self.writeBusConfiguration(in: root, desktop: desktop)
        await SessionSlots.shared.take()

        if desktop == .systemd {
            do {
                (bus, managerGroups) = try await UserManager.start(root: root, environment: environment, busConfiguration: configFile)
                address = try await UserManager.busAddress(root: root, context: root.appendingPathComponent("logs/bus.log"))
            } catch {
                SessionSlots.shared.give()
                throw error
            }
            environment["DBUS_SESSION_BUS_ADDRESS"] = address
            self.environment = environment
            return
        }
        managerGroups = []
        // The address it prints is its word that it listens.
        do {
            bus = try await ChildProcess.start(
                "/usr/bin/dbus-daemon", ["--config-file=\(configFile.path)", "--nofork", "--print-address=1"],
                environment: environment, errors: root.appendingPathComponent("logs/bus.log"))
        } catch {
            SessionSlots.shared.give()
            throw error
        }
        guard let address = try? await bus.nextLine("dbus-daemon prints its address"), !address.isEmpty else {
            bus.kill()
            SessionSlots.shared.give()
            throw TestFailure("dbus-daemon printed no address")
        }
        self.address = address
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        self.environment = environment
    }

    /// The bus's configuration: a session bus on a socket file in the session's runtime directory,
    /// starting services from the session's own `data/dbus-1/services` and from a directory of
    /// links to the machine's service files the desktop names; every name may be owned and every
    /// message eavesdropped (the tests' monitors), as on a stock session bus.
    static func writeBusConfiguration(in root: URL, desktop: ModelledDesktop) throws -> URL {
        let machine = root.appendingPathComponent("machine-services")
        try FileManager.default.createDirectory(at: machine, withIntermediateDirectories: true)
        for name in desktop.machineServices {
            try FileManager.default.createSymbolicLink(
                at: machine.appendingPathComponent("\(name).service"),
                withDestinationURL: URL(fileURLWithPath: "/usr/share/dbus-1/services/\(name).service"))
        }
        let config = root.appendingPathComponent("bus.conf")
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:dir=\(root.appendingPathComponent("runtime").path)</listen>
              <auth>EXTERNAL</auth>
              <servicedir>\(root.appendingPathComponent("data/dbus-1/services").path)</servicedir>
              <servicedir>\(machine.path)</servicedir>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>

            """.write(to: config, atomically: true, encoding: .utf8)
        return config
    }

    /// `/usr/share` without its `applications`: the MIME database, GSettings schemas and the rest of
    /// the system's data, and nothing of the machine's apps (a browser installed on the machine would
    /// otherwise be a handler in every session). A directory of links to each of its entries.
    static func systemDataWithoutApplications(in root: URL) throws -> URL {
        let share = root.appendingPathComponent("system-share")
        try FileManager.default.createDirectory(at: share, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: "/usr/share") where name != "applications" {
            try FileManager.default.createSymbolicLink(
                at: share.appendingPathComponent(name), withDestinationURL: URL(fileURLWithPath: "/usr/share/\(name)"))
        }
        return share
    }

    /// Kills the bus alone, as when the session ends under its services (they exit with it).
    /// SIGKILL: dbus-daemon does not always stop on SIGTERM while clients are connected.
    public func stopBus() {
        if managerGroups.isEmpty { bus.kill() } else { UserManager.stop(groups: managerGroups) }
    }

    /// Kills the bus and removes every file of the session. A mount below the root (the document
    /// portal's FUSE mount, which can outlive its portal) is detached first, so that none is left.
    public func close() {
        stopBus()
        for mount in mounts().reversed() { umount2(mount, Int32(MNT_DETACH)) }
        try? FileManager.default.removeItem(at: root)
        giveSlot()
    }

    deinit { giveSlot() }

    private func giveSlot() {
        if slot.withLock({ held in defer { held = false }; return held }) { SessionSlots.shared.give() }
    }

    /// The mount points below the session's root, outermost first (`/proc/self/mountinfo`).
    public func mounts() -> [String] {
        let table = (try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)) ?? ""
        return table.split(separator: "\n").compactMap { line in
            line.split(separator: " ").dropFirst(4).first.map(String.init).flatMap { $0.hasPrefix(root.path + "/") ? $0 : nil }
        }
    }

    /// What the bus and the services it started logged, for failure messages.
    public var busLog: String {
        (try? String(contentsOf: root.appendingPathComponent("logs/bus.log"), encoding: .utf8)) ?? ""
    }
}

/// How many private sessions may be alive at once in this test process. Swift Testing runs every
/// test at once; each session's `dbus-daemon` and Waypost daemon hold an inotify instance, and the
/// kernel allows 128 per user (`fs.inotify.max_user_instances`): past that, GIO watches nothing, and
/// a test waiting for a change it should have seen fails. A test beyond the limit waits its turn.
public final class SessionSlots: Sendable {
    public static let shared = SessionSlots(limit: 32)
    private let state: Mutex<(free: Int, waiting: [CheckedContinuation<Void, Never>])>

    init(limit: Int) { state = Mutex((limit, [])) }

    func take() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.free > 0 {
                    state.free -= 1
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    func give() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
