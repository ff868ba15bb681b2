import Foundation
import Synchronization
import Testing

/// The one throwaway desktop for this whole test process: XDG directories, a `PATH` entry for test
/// programs, and a private session bus.
///
/// GLib reads `XDG_*` (and GIO the bus address) once per process and caches them, so every test that
/// reaches GLib must touch `DesktopTestEnvironment.shared` FIRST; its initialiser sets the variables
/// before any GLib call. Suites sharing the process (e.g. content-type tests) must do the same. Tests
/// run in parallel and share the directories, so each one uses its own app ids and schemes
/// (`uniqueName`); writes to `mimeinfo.cache` and `mimeapps.list` are serialised here.
final class DesktopTestEnvironment: Sendable {
    static let shared = DesktopTestEnvironment()

    let root: String
    let dataHome: String
    let configHome: String
    let applications: String
    let bin: String
    let busAddress: String

    private struct State {
        var counter = 0
        var defaults: [(type: String, id: String)] = []
    }
    private let state = Mutex(State())

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
        unsetenv("XDG_CURRENT_DESKTOP")  // no desktop-specific <desktop>-mimeapps.list
        setenv("PATH", bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"), 1)
        // Stale tokens in our own environment must never reach a launched app.
        setenv("XDG_ACTIVATION_TOKEN", "stale-token-of-the-test-process", 1)
        setenv("DESKTOP_STARTUP_ID", "stale-startup-id-of-the-test-process", 1)
        busAddress = Self.startPrivateBus(root: root)
        setenv("DBUS_SESSION_BUS_ADDRESS", busAddress, 1)
        try! Self.run("/usr/bin/update-desktop-database", [applications])
    }

    /// A fresh name component, unique in this process, usable in an app id, a scheme and a file name.
    func uniqueName(_ stem: String) -> String {
        let number = state.withLock { state in
            state.counter += 1
            return state.counter
        }
        return "\(stem)\(number)x\(getpid())"
    }

    /// Writes `<id>.desktop` into the user applications directory and refreshes `mimeinfo.cache`.
    @discardableResult
    func install(id: String, _ lines: [String]) throws -> String {
        let path = applications + "/" + id + ".desktop"
        try state.withLock { _ in
            try (["[Desktop Entry]"] + lines).joined(separator: "\n").appending("\n")
                .write(toFile: path, atomically: true, encoding: .utf8)
            try Self.run("/usr/bin/update-desktop-database", [applications])
        }
        return path
    }

    /// Writes raw bytes as `<id>.desktop` (for malformed entries) and refreshes `mimeinfo.cache`.
    @discardableResult
    func installRaw(id: String, _ text: String) throws -> String {
        let path = applications + "/" + id + ".desktop"
        try state.withLock { _ in
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            try Self.run("/usr/bin/update-desktop-database", [applications])
        }
        return path
    }

    /// Makes `id` the `[Default Applications]` entry for `x-scheme-handler/<scheme>` in mimeapps.list.
    func setDefault(scheme: String, to id: String) throws {
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
    func writeScript(_ name: String, _ body: String) throws -> String {
        let path = name.hasPrefix("/") ? name : bin + "/" + name
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try body.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return path
    }

    /// Runs a program to completion (its stderr goes to ours); throws when it fails.
    ///
    /// posix_spawn + waitpid rather than Foundation's Process: Process waits for every holder of
    /// a pipe it creates, and a daemon that forks keeps one for ever.
    static func run(_ program: String, _ arguments: [String]) throws {
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, program, nil, nil, argv, environ)
        guard spawned == 0 else { throw FixtureFailure("cannot start \(program): errno \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else { throw FixtureFailure("\(program) \(arguments) failed with wait status \(status)") }
    }

    /// Starts `dbus-daemon --session` (activation dirs from our XDG_DATA_HOME); stopped at exit.
    private static func startPrivateBus(root: String) -> String {
        let addressFile = root + "/bus-address"
        // Both streams to files: the forked daemon keeps them open, so a pipe would never reach EOF.
        try! run("/bin/sh", ["-c",
            "exec dbus-daemon --session --fork --address=unix:dir=\(root) --print-address=1 --print-pid=1"
                + " >'\(addressFile)' 2>'\(root)/bus-errors'"])
        let lines = try! String(contentsOfFile: addressFile, encoding: .utf8).split(separator: "\n")
        guard lines.count >= 2, let pid = Int32(lines[1]) else { fatalError("dbus-daemon printed \(lines)") }
        cleanup.withLock { $0 = (pid, root) }
        atexit {
            cleanup.withLock { state in
                if state.busPid > 0 { kill(state.busPid, SIGKILL) }  // a test bus has nothing to save
                if !state.root.isEmpty { try? FileManager.default.removeItem(atPath: state.root) }
            }
        }
        return String(lines[0])
    }
}

/// What the exit handler removes: the private bus and the throwaway root.
private let cleanup = Mutex<(busPid: Int32, root: String)>((0, ""))

struct FixtureFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Polls `condition` until it holds or `timeout` passes (GIO notices file changes asynchronously).
func eventually(
    timeout: Duration = .seconds(5), _ condition: () throws -> Bool
) async rethrows -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try condition()
}
