import Foundation
import Synchronization

/// The one throwaway desktop for this whole test process: XDG directories, a `PATH` entry for test
/// programs, and a private session bus.
///
/// GLib reads `XDG_*` (and GIO the bus address) once per process and caches them, so every test that
/// reaches GLib must touch `DesktopTestEnvironment.shared` FIRST; its initialiser sets the variables
/// before any GLib call. Suites sharing the process (e.g. content-type tests) must do the same. Tests
/// run in parallel and share the directories, so each one uses its own app ids and schemes
/// (`uniqueName`); writes to `mimeinfo.cache` and `mimeapps.list` are serialised here. Programs are
/// started through TestSupport (`runProgram`, `ChildProcess`), never waited for on a cooperative thread.
public final class DesktopTestEnvironment: Sendable {
    public static let shared = DesktopTestEnvironment()

    public let root: String
    public let dataHome: String
    public let configHome: String
    public let applications: String
    public let bin: String
    public let busAddress: String

    private struct State {
        var counter = 0
        var defaults: [(type: String, id: String)] = []
        /// The last `update-desktop-database` run asked for; each new one starts after it.
        var refresh: Task<Void, any Error>?
    }
    private let state = Mutex(State())
    /// The private bus, once it printed its address (its word that it listens).
    private let bus: Task<ChildProcess, any Error>

    private init() {
        let template = NSTemporaryDirectory() + "waypost-desktop-tests-XXXXXX"
        var bytes = Array(template.utf8CString)
        guard mkdtemp(&bytes) != nil else { fatalError("mkdtemp failed: \(errno)") }
        root = String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        dataHome = root + "/data"
        configHome = root + "/config"
        applications = dataHome + "/applications"
        bin = root + "/bin"
        for directory in [applications, configHome, bin, root + "/system-data", root + "/config-dirs",
                          root + "/cache", dataHome + "/dbus-1/services"] {
            try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        setenv("XDG_DATA_HOME", dataHome, 1)
        setenv("XDG_CONFIG_HOME", configHome, 1)
        // /usr/share only for the shared MIME database; its applications are never used by tests.
        setenv("XDG_DATA_DIRS", root + "/system-data:/usr/share", 1)
        setenv("XDG_CONFIG_DIRS", root + "/config-dirs", 1)
        setenv("XDG_CACHE_HOME", root + "/cache", 1)
        setenv("XDG_STATE_HOME", root + "/state", 1)
        unsetenv("XDG_CURRENT_DESKTOP")  // no desktop-specific <desktop>-mimeapps.list
        setenv("PATH", bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"), 1)
        // Stale tokens in our own environment must never reach a launched app.
        setenv("XDG_ACTIVATION_TOKEN", "stale-token-of-the-test-process", 1)
        setenv("DESKTOP_STARTUP_ID", "stale-startup-id-of-the-test-process", 1)
        // A known address, set before any GLib call; `busReady()` awaits the daemon listening on it.
        busAddress = "unix:path=\(root)/bus"
        setenv("DBUS_SESSION_BUS_ADDRESS", busAddress, 1)
        bus = Self.startPrivateBus(root: root, address: busAddress)
    }

    /// A fresh name component, unique in this process, usable in an app id, a scheme and a file name.
    public func uniqueName(_ stem: String) -> String {
        let number = state.withLock { state in
            state.counter += 1
            return state.counter
        }
        return "\(stem)\(number)x\(getpid())"
    }

    /// Writes `<id>.desktop` into the user applications directory and refreshes `mimeinfo.cache`.
    @discardableResult
    public func install(id: String, _ lines: [String]) async throws -> String {
        try await installRaw(id: id, (["[Desktop Entry]"] + lines).joined(separator: "\n").appending("\n"))
    }

    /// Writes raw bytes as `<id>.desktop` (for malformed entries) and refreshes `mimeinfo.cache`.
    @discardableResult
    public func installRaw(id: String, _ text: String) async throws -> String {
        let path = applications + "/" + id + ".desktop"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        try await refreshCache()
        return path
    }

    /// Runs `update-desktop-database` once every entry written before the call is on disk. Runs
    /// are chained: two at once could let the one that read the directory first write last.
    public func refreshCache() async throws {
        let applications = applications
        let run = state.withLock { state in
            let previous = state.refresh
            let next = Task {
                _ = await previous?.result
                let (status, output, errors) = try await runProgram(
                    "/usr/bin/update-desktop-database", [applications], environment: ProcessInfo.processInfo.environment)
                guard status == 0 else { throw TestFailure("update-desktop-database failed (\(status)): \(output)\(errors)") }
            }
            state.refresh = next
            return next
        }
        try await run.value
    }

    /// Returns once the private bus listens.
    public func busReady() async throws { _ = try await bus.value }

    /// Makes `id` the `[Default Applications]` entry for `x-scheme-handler/<scheme>` in mimeapps.list.
    public func setDefault(scheme: String, to id: String) throws {
        try state.withLock { state in
            let type = "x-scheme-handler/" + scheme
            state.defaults.removeAll { $0.type == type }
            state.defaults.append((type, id + ".desktop"))
            let body = state.defaults.map { "\($0.type)=\($0.id);" }.joined(separator: "\n")
            try "[Default Applications]\n\(body)\n"
                .write(toFile: configHome + "/mimeapps.list", atomically: true, encoding: .utf8)
        }
    }

    /// Writes an executable shell script into the test `bin` directory (or `path`, when absolute).
    @discardableResult
    public func writeScript(_ name: String, _ body: String) throws -> String {
        let path = name.hasPrefix("/") ? name : bin + "/" + name
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try body.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return path
    }

    /// Starts `dbus-daemon --session` (activation dirs from our XDG_DATA_HOME) at `address`;
    /// killed at exit.
    private static func startPrivateBus(root: String, address: String) -> Task<ChildProcess, any Error> {
        Task {
            let bus = try await ChildProcess.start(
                "/usr/bin/dbus-daemon", ["--session", "--nofork", "--address=\(address)", "--print-address=1"],
                environment: ProcessInfo.processInfo.environment, errors: URL(fileURLWithPath: root + "/bus-errors"))
            cleanup.withLock { $0 = (bus.pid, root) }
            atexit {
                cleanup.withLock { state in
                    if state.busPid > 0 { kill(state.busPid, SIGKILL) }  // a test bus has nothing to save
                    if !state.root.isEmpty { try? FileManager.default.removeItem(atPath: state.root) }
                }
            }
            guard try await bus.nextLine("dbus-daemon prints its address") != nil else { throw TestFailure("dbus-daemon printed no address") }
            return bus
        }
    }
}

/// What the exit handler removes: the private bus and the throwaway root.
private let cleanup = Mutex<(busPid: Int32, root: String)>((0, ""))

