// Every program the tests start goes through this file, on swift-subprocess: its pipes are made
// close-on-exec and the child keeps no other descriptor of ours, so no pipe end leaks into another
// test's child; exits are noticed by its own monitor thread (pidfd and epoll), so no test blocks a
// cooperative thread in waitpid, and every child is reaped as soon as it ends.
public import Foundation
import Subprocess
import Synchronization
#if canImport(System)
import System
#else
import SystemPackage
#endif

/// Runs a program to its end and returns its status (the signal number if a signal ended it),
/// stdout and stderr.
///
/// Returns once the program exited and its output reached its end: a program that leaves a
/// daemon holding its output must send the daemon's output elsewhere (as `dbus-daemon --fork`
/// callers do with files).
public func runProgram(
    _ program: String, _ arguments: [String], environment: [String: String], directory: URL? = nil
) async throws -> (status: Int32, output: String, errors: String) {
    let result = try await Subprocess.run(
        .path(FilePath(program)), arguments: Arguments(arguments), environment: .exactly(environment),
        workingDirectory: directory.map { FilePath($0.path) },
        output: .string(limit: 64 << 20), error: .string(limit: 64 << 20))
    return (result.terminationStatus.number, result.standardOutput, result.standardError)
}

/// A long-running program a test started: its standard output as lines, signals sent to it, and its
/// status once it ended. Nothing here waits for it to end but `status()`; the monitor thread reaps it.
public final class ChildProcess: Sendable {
    public let pid: Int32
    /// What it writes to standard output, line by line, until it closes it (one reader).
    public let lines: AsyncStream<String>
    private let signals: Signals
    private let execution: Task<Int32, any Error>

    /// Starts `program`; its standard error is appended to `errors` (discarded when nil), and its
    /// standard input is `input`'s pipe (none when nil).
    public static func start(
        _ program: String, _ arguments: [String], environment: [String: String], errors: URL? = nil, input: ChildInput? = nil
    ) async throws -> ChildProcess {
        let stdin = try input?.takeReadEnd()
        if let errors {
            // Close-on-exec, and closed here once the child has its copy.
            let log = try FileDescriptor.open(
                FilePath(errors.path), .writeOnly, options: [.create, .append, .closeOnExec],
                permissions: [.ownerReadWrite, .groupRead, .otherRead])
            if let stdin {
                return try await start(
                    program, arguments, environment, input: .fileDescriptor(stdin, closeAfterSpawningProcess: true),
                    error: .fileDescriptor(log, closeAfterSpawningProcess: true))
            }
            return try await start(program, arguments, environment, input: .none, error: .fileDescriptor(log, closeAfterSpawningProcess: true))
        }
        if let stdin {
            return try await start(program, arguments, environment, input: .fileDescriptor(stdin, closeAfterSpawningProcess: true), error: .discarded)
        }
        return try await start(program, arguments, environment, input: .none, error: .discarded)
    }

    private static func start(
        _ program: String, _ arguments: [String], _ environment: [String: String], input: some InputProtocol,
        error: some ErrorOutputProtocol
    ) async throws -> ChildProcess {
        let (pids, pidSink) = AsyncStream<Int32>.makeStream()
        let (lines, lineSink) = AsyncStream<String>.makeStream()
        let signals = Signals()
        let execution = Task {
            defer {
                pidSink.finish()
                lineSink.finish()
            }
            let result = try await Subprocess.run(
                .path(FilePath(program)), arguments: Arguments(arguments), environment: .exactly(environment),
                input: input, output: .sequence, error: error
            ) { execution in
                // Signals go through the execution's pidfd, and only while it is valid: never to a reused pid.
                signals.sender.withLock { $0 = { signal in try? execution.send(signal: Signal(rawValue: signal)) } }
                defer { signals.sender.withLock { $0 = nil } }
                pidSink.yield(execution.processIdentifier.value)
                for try await line in execution.standardOutput.strings() { lineSink.yield(line) }
            }
            return result.terminationStatus.number
        }
        var started = pids.makeAsyncIterator()
        guard let pid = await started.next() else {
            _ = try await execution.value
            throw TestFailure("\(program) did not start")
        }
        return ChildProcess(pid: pid, lines: lines, signals: signals, execution: execution)
    }

    private init(pid: Int32, lines: AsyncStream<String>, signals: Signals, execution: Task<Int32, any Error>) {
        self.pid = pid
        self.lines = lines
        self.signals = signals
        self.execution = execution
    }

    /// Sends `signal` at once (nothing once it ended and closed its output).
    public func send(_ signal: Int32) { signals.sender.withLock { $0?(signal) } }

    /// SIGKILL: a test's program has nothing to save.
    public func kill() { send(SIGKILL) }

    /// Its status once it ended and closed its output: the exit code, or the signal's number.
    public func status() async throws -> Int32 { try await execution.value }

    /// The next line it writes, or nil once its output ended. Tests wait with `nextLine(_:)`.
    public func nextLine() async -> String? {
        var reader = lines.makeAsyncIterator()
        return await reader.next()
    }

    /// The next line it writes (nil once its output ended), within `seconds`: `what` names the line
    /// in the failure.
    public func nextLine(_ what: String, seconds: Int = 30) async throws -> String? {
        try await withDeadline(what, seconds: seconds) { await self.nextLine() }
    }
}

/// A pipe that a child started with it reads as its standard input; the test writes to it and
/// closes it (the child then reads the end of its input). Both ends are close-on-exec, so no other
/// child keeps the pipe open. Creating one ignores SIGPIPE in the test process, so that writing to
/// a child that died fails instead of ending the tests (children start with default signals).
public final class ChildInput: Sendable {
    private let readEnd: Mutex<FileDescriptor?>
    private let writeEnd: Mutex<FileDescriptor?>

    public init() throws {
        let ends = try FileDescriptor.pipe(options: .closeOnExec)  // pipe2, both ends at once
        signal(SIGPIPE, SIG_IGN)
        readEnd = Mutex(ends.readEnd)
        writeEnd = Mutex(ends.writeEnd)
    }

    deinit { close() }

    /// The reading end, for `ChildProcess.start` (which closes it once the child has it), once.
    func takeReadEnd() throws -> FileDescriptor {
        guard let end = readEnd.withLock({ end in defer { end = nil }; return end }) else {
            throw TestFailure("a child already reads this input")
        }
        return end
    }

    /// Writes `text` in full.
    public func write(_ text: String) throws {
        try writeEnd.withLock { end in
            guard let end else { throw TestFailure("the input is closed") }
            _ = try end.writeAll(Array(text.utf8))
        }
    }

    /// Closes the writing end (and the reading end, if no child took it): the child reads EOF.
    public func close() {
        writeEnd.withLock { end in try? end?.close(); end = nil }
        readEnd.withLock { end in try? end?.close(); end = nil }
    }
}

/// How to signal a running child: set while its execution is valid, nil before and after.
private final class Signals: Sendable {
    let sender = Mutex<(@Sendable (Int32) -> Void)?>(nil)
}

extension Environment {
    /// Exactly these variables, nothing inherited.
    static func exactly(_ variables: [String: String]) -> Self {
        .custom(Dictionary(uniqueKeysWithValues: variables.compactMap { key, value in Key(rawValue: key).map { ($0, value) } }))
    }
}

extension TerminationStatus {
    /// The exit code, or the number of the signal that ended it.
    var number: Int32 {
        switch self {
        case .exited(let code): code
        case .signaled(let signal): signal
        }
    }
}

/// Programs a fixture started, killed with it.
public final class ChildProcesses: Sendable {
    private let processes = Mutex<[ChildProcess]>([])

    public init() {}

    public func add(_ process: ChildProcess) { processes.withLock { $0.append(process) } }

    public func killAll() {
        for process in processes.withLock({ list in defer { list = [] }; return list }) { process.kill() }
    }
}
