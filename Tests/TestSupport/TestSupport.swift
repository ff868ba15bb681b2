// What the integration test targets share: running programs without blocking the cooperative pool,
// bounded waits, and the processes a fixture must kill when it closes.
public import Foundation
import Synchronization

/// A fixture that could not do what a test needed.
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Polls `condition` until it holds, for at most `seconds` (a bound for a loaded machine, not a
/// figure: the tests assert what happens, never how fast).
public func waitUntil(_ what: String, seconds: Double = 30, _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw TestFailure("timed out waiting until \(what)")
}

/// Runs a program to its end and returns its status (the signal number if a signal ended it),
/// stdout and stderr.
///
/// Async all the way: a test that blocked one of the few cooperative threads while it waited would
/// starve every test running beside it. Spawned and reaped here rather than with `Process`:
/// Foundation notices a child's exit by a socket closing, and a long-lived process another test
/// started at the same moment can inherit that socket, so the exit was sometimes never noticed and
/// the test hung. Output is drained while waiting; whatever the program started may keep the pipes
/// open (GIO's launches do), so they are read until the program itself has exited, not to EOF.
public func runProgram(
    _ program: String, _ arguments: [String], environment: [String: String], directory: URL? = nil
) async throws -> (status: Int32, output: String, errors: String) {
    var command = [program] + arguments
    if let directory { command = ["/usr/bin/env", "-C", directory.path] + command }
    let out = try OutputPipe(), err = try OutputPipe()
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, out.writer, 1)
    posix_spawn_file_actions_adddup2(&actions, err.writer, 2)
    let argv = command.map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (argv + envp).forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, command[0], &actions, nil, argv, envp)
    out.closeWriter()
    err.closeWriter()
    guard spawned == 0 else { throw TestFailure("cannot start \(command[0]): errno \(spawned)") }
    var status: Int32 = 0
    while true {
        out.drain()
        err.drain()
        let reaped = waitpid(pid, &status, WNOHANG)
        if reaped == pid || (reaped < 0 && errno != EINTR) { break }
        try? await Task.sleep(for: .milliseconds(2))
    }
    out.drain()
    err.drain()
    // The wait status: a normal exit keeps its code in bits 8-15, a signal its number in bits 0-6.
    let signal = status & 0x7f
    return (signal == 0 ? (status >> 8) & 0xff : signal, out.text, err.text)
}

/// A pipe for a child's output, read without blocking.
private final class OutputPipe {
    let reader: Int32, writer: Int32
    private var data: [UInt8] = []

    init() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw TestFailure("cannot make a pipe: errno \(errno)") }
        (reader, writer) = (ends[0], ends[1])
        // Neither end for other children (the child gets the writer through dup2, which clears it).
        _ = fcntl(reader, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writer, F_SETFD, FD_CLOEXEC)
        _ = fcntl(reader, F_SETFL, fcntl(reader, F_GETFL) | O_NONBLOCK)
    }

    deinit { close(reader) }

    func closeWriter() { close(writer) }

    func drain() {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(reader, &chunk, chunk.count)
            guard count > 0 else { return }
            data += chunk[0..<count]
        }
    }

    var text: String { String(decoding: data, as: UTF8.self) }
}

/// Kills a child and reaps it at once. Foundation notices a child's exit only when every copy of a
/// socket it handed the child is closed, and grandchildren (a bus's activated services) inherit it,
/// so it may never reap a killed child: a zombie left behind, and `waitUntilExit` hanging. After
/// SIGKILL, `waitpid` returns at once (ECHILD when Foundation was first, which is fine).
public func killAndReap(_ process: Process) {
    guard process.isRunning else { return }
    kill(process.processIdentifier, SIGKILL)
    var status: Int32 = 0
    while waitpid(process.processIdentifier, &status, 0) == -1 && errno == EINTR {}
}

/// Processes a fixture started, killed and reaped with it.
public final class ChildProcesses: Sendable {
    private let processes = Mutex<[Process]>([])

    public init() {}

    public func add(_ process: Process) { processes.withLock { $0.append(process) } }

    public func killAll() {
        let all = processes.withLock { list in defer { list = [] }; return list }
        for process in all { killAndReap(process) }
    }
}

/// A throwaway desktop session: HOME and the XDG directories under one temporary root, and a
/// private `dbus-daemon` (never the user's bus) started from a config file with that environment, so
/// that the services it activates inherit it. `close()` kills the bus and removes the root.
public final class PrivateSession: Sendable {
    public let root: URL
    public let address: String
    /// The session's environment, `DBUS_SESSION_BUS_ADDRESS` included.
    public let environment: [String: String]
    private let bus: Process

    /// - Parameters:
    ///   - name: a prefix for the temporary root's name.
    ///   - directories: made below the root besides home, data/applications, data/dbus-1/services,
    ///     config, runtime and logs.
    ///   - configFile: the bus's config (it should list `<standard_session_servicedirs/>`).
    ///   - extraEnvironment: set for the bus and everything started in the session.
    ///   - prepare: runs once the directories exist, before the bus starts (service files…).
    public init(
        name: String, directories: [String] = [], configFile: URL, extraEnvironment: [String: String] = [:],
        prepare: (URL) throws -> Void = { _ in }
    ) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        for dir in ["home", "data/applications", "data/dbus-1/services", "config", "runtime", "logs"] + directories {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(dir), withIntermediateDirectories: true)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: root.appendingPathComponent("runtime").path)
        var environment = ProcessInfo.processInfo.environment.filter { key, _ in ["PATH", "LANG", "LC_ALL", "TMPDIR"].contains(key) }
        environment["HOME"] = root.appendingPathComponent("home").path
        environment["XDG_DATA_HOME"] = root.appendingPathComponent("data").path
        environment["XDG_CONFIG_HOME"] = root.appendingPathComponent("config").path
        environment["XDG_RUNTIME_DIR"] = root.appendingPathComponent("runtime").path
        environment["XDG_DATA_DIRS"] = "/usr/share"  // the MIME database, and nothing of the machine's apps
        environment["XDG_CONFIG_DIRS"] = root.appendingPathComponent("config").path
        environment.merge(extraEnvironment) { _, new in new }
        try prepare(root)

        bus = Process()
        bus.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        bus.arguments = ["--config-file=\(configFile.path)", "--nofork", "--print-address=1"]
        bus.environment = environment
        let out = Pipe()
        bus.standardOutput = out
        let log = root.appendingPathComponent("logs/bus.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        bus.standardError = try FileHandle(forWritingTo: log)
        try bus.run()
        var line = Data()
        while let byte = try out.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
            line.append(byte)
        }
        address = String(decoding: line, as: UTF8.self)
        guard !address.isEmpty else { throw TestFailure("dbus-daemon printed no address") }
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        self.environment = environment
    }

    /// Kills the bus alone, as when the session ends under its services (they exit with it).
    /// SIGKILL: dbus-daemon does not always stop on SIGTERM while clients are connected.
    public func stopBus() { killAndReap(bus) }

    /// Kills the bus and removes every file of the session.
    public func close() {
        stopBus()
        try? FileManager.default.removeItem(at: root)
    }

    /// What the bus and the services it started logged, for failure messages.
    public var busLog: String {
        (try? String(contentsOf: root.appendingPathComponent("logs/bus.log"), encoding: .utf8)) ?? ""
    }
}
