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

/// Runs a program to its end and returns its status, stdout and stderr.
///
/// Async all the way: a test that blocked one of the few cooperative threads while it waited would
/// starve every test running beside it. Output is read once the program exited, so it must fit a
/// pipe (64 KiB), and whatever the program started may keep the pipes open (GIO's launches do).
public func runProgram(
    _ program: String, _ arguments: [String], environment: [String: String], directory: URL? = nil
) async throws -> (status: Int32, output: String, errors: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    process.environment = environment
    if let directory { process.currentDirectoryURL = directory }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let status: Int32 = try await withCheckedThrowingContinuation { continuation in
        process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
        do { try process.run() } catch { continuation.resume(throwing: error) }
    }
    return (status, available(out), available(err))
}

private func available(_ pipe: Pipe) -> String {
    try? pipe.fileHandleForWriting.close()
    let descriptor = pipe.fileHandleForReading.fileDescriptor
    _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    var data = Data()
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = read(descriptor, &chunk, chunk.count)
        guard count > 0 else { break }
        data.append(contentsOf: chunk[0..<count])
    }
    return String(decoding: data, as: UTF8.self)
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
