// What every benchmark here needs: a private bus, child processes, the C yardsticks, and statistics.
public import Foundation

/// Samples in microseconds, with the statistics the reports quote.
public struct Latency: Sendable {
    public var samples: [Double]
    public init(samples: [Double]) { self.samples = samples }
    public var median: Double { percentile(0.5) }
    public var p99: Double { percentile(0.99) }
    public var mean: Double { samples.reduce(0, +) / Double(samples.count) }
    public func percentile(_ p: Double) -> Double {
        let sorted = samples.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }
}

/// The median of a few figures (the per-round means and ratios the benchmarks report).
public func median(_ values: [Double]) -> Double { Latency(samples: values).median }

public extension Duration {
    var microseconds: Double { self / .microseconds(1) }
}

/// A private `dbus-daemon --session` (never the user's bus), killed by `stop()`.
public final class PrivateBus {
    public let address: String
    public let pid: Int32
    private let process: Process

    /// - Parameter environment: the bus's environment; activated services inherit it.
    public init(socketDirectory: URL, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = ["--session", "--nofork", "--print-address=1", "--address=unix:dir=\(socketDirectory.path)"]
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var data = Data()
        while !data.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw BenchError("dbus-daemon exited before printing its address") }
            data.append(chunk)
        }
        address = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        pid = process.processIdentifier
    }

    public func stop() { kill(pid, SIGKILL) }
}

public func residentKiB(of pid: String = "self") -> Int { statusKiB("VmRSS", of: pid) }

/// A `KiB` line of `/proc/PID/status` (`VmRSS`, `RssAnon`, `RssFile`, …); -1 when absent.
public func statusKiB(_ field: String, of pid: String = "self") -> Int {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? -1
    }
    return -1
}

/// CPU time process `pid`'s threads have run so far, in µs: the sum of `/proc/PID/task/*/schedstat`,
/// kept in nanoseconds (`/proc/PID/stat` counts 10 ms clock ticks, too coarse for what one call costs).
/// Threads that have already ended are not counted; the servers measured here keep theirs.
public func cpuMicroseconds(of pid: Int32) -> Double {
    guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return .nan }
    var nanoseconds = 0.0
    for thread in threads {
        guard let line = try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/schedstat", encoding: .utf8),
              let running = line.split(separator: " ").first.flatMap({ Double($0) }) else { continue }
        nanoseconds += running
    }
    return nanoseconds / 1_000
}

/// CPU time used by the children this process has waited for, in µs (`RUSAGE_CHILDREN`).
public func waitedChildrenCPUMicroseconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &usage)
    func µs(_ time: timeval) -> Double { Double(time.tv_sec) * 1_000_000 + Double(time.tv_usec) }
    return µs(usage.ru_utime) + µs(usage.ru_stime)
}

/// Starts a child on the bus at `address`; waits until it prints `line` when one is given.
public func start(
    _ executable: String, _ arguments: [String], address: String, environment: [String: String]? = nil,
    waitFor line: String? = nil
) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    var environment = environment ?? ProcessInfo.processInfo.environment
    environment["DBUS_SESSION_BUS_ADDRESS"] = address
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    if let line {
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains(line) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw BenchError("\(executable) exited before saying '\(line)'") }
            seen.append(chunk)
        }
    }
    return process
}

public func runToEnd(_ executable: String, _ arguments: [String], address: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    environment["DBUS_SESSION_BUS_ADDRESS"] = address
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}

public struct BenchError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// `call-client` prints `… us_per_call=80.12 calls_per_s=12481`.
public func field(_ name: String, in line: String) -> Double? {
    for part in line.split(separator: " ") where part.hasPrefix(name + "=") {
        return Double(part.dropFirst(name.count + 1))
    }
    return nil
}

/// The C yardsticks of `Benchmarks/yardsticks`: `echo-server` (an echo service, or with
/// `forwardingTo` a router making the second hop) and `call-client` (round trips, one at a time or
/// several in flight). Plain libdbus, so that Waypost's figures stand beside what C costs on the
/// same bus in the same run.
public struct Yardsticks: Sendable {
    public static let echoName = "io.waypost.bench.Echo"
    public static let routerName = "io.waypost.bench.Router"
    public static let path = "/io/waypost/bench/Echo"
    public static let interface = "io.waypost.bench.Echo"
    /// What `call-client` sends with every call.
    public static let argument = "myscheme://hello"

    public let echoServer: String
    public let callClient: String

    /// Builds them with their Makefile into `directory`.
    /// - Throws: `BenchError` with make's output when they do not build (no C compiler, no libdbus-1-dev).
    public init(buildingInto directory: URL) throws {
        // This file is Benchmarks/Sources/BenchSupport/BenchSupport.swift; the sources sit beside Sources.
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("yardsticks")
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/make")
        make.arguments = ["-s", "-C", source.path, "BIN=\(directory.path)"]
        let output = Pipe()
        make.standardOutput = output
        make.standardError = output
        try make.run()
        let said = output.fileHandleForReading.readDataToEndOfFile()
        make.waitUntilExit()
        guard make.terminationStatus == 0 else {
            throw BenchError("the C yardsticks in \(source.path) did not build:\n" + String(decoding: said, as: UTF8.self))
        }
        echoServer = directory.appendingPathComponent("echo-server").path
        callClient = directory.appendingPathComponent("call-client").path
    }

    /// Starts `echo-server` owning `name`, forwarding `Route` to `target` when one is given; returns once
    /// it owns the name.
    public func startEchoServer(address: String, name: String = echoName, forwardingTo target: String? = nil) throws -> Process {
        try start(echoServer, ["--name", name] + (target.map { ["--forward-to", $0] } ?? []), address: address, waitFor: "ready")
    }

    /// `call-client`'s arguments for `calls` timed calls of `method` on `destination`, after `warmUp` untimed ones.
    public func callClientArguments(
        calls: Int, to destination: String = echoName, method: String = "Echo", inFlight: Int = 1, warmUp: Int = 200
    ) -> [String] {
        ["--calls", "\(calls)", "--to", destination, "--method", method, "--in-flight", "\(inFlight)", "--warm-up", "\(warmUp)"]
    }

    /// Mean µs per call of `calls` sequential calls from a `call-client` process run to its end.
    public func meanMicroseconds(
        calls: Int, to destination: String = echoName, method: String = "Echo", warmUp: Int = 200, address: String
    ) throws -> Double {
        let line = try runToEnd(callClient, callClientArguments(calls: calls, to: destination, method: method, warmUp: warmUp), address: address)
        guard let mean = field("us_per_call", in: line) else { throw BenchError("call-client said no us_per_call: \(line)") }
        return mean
    }
}

public func format(_ value: Double) -> String { String(format: "%.1f", value) }

/// Runs a program to its end with `posix_spawn` and `waitpid`, output (and errors, when they are
/// expected) discarded, and returns its exit status and wall time from spawn to exit. (Foundation's
/// `Process.waitUntilExit` polls its run loop and adds tens of milliseconds, which would swamp a
/// process that lives for one.)
public func timedRun(
    _ path: String, _ arguments: [String], environment: [String: String], discardingErrors: Bool = false
) throws -> (status: Int32, elapsed: Duration) {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    if discardingErrors { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    var pid: pid_t = 0
    let start = ContinuousClock.now
    let spawned = posix_spawn(&pid, path, &actions, nil, argv, envp)
    guard spawned == 0 else { throw BenchError("cannot start \(path): error \(spawned)") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    let elapsed = ContinuousClock.now - start
    return ((status >> 8) & 0xFF, elapsed)
}
