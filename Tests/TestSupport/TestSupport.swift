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
    _ program: String, _ arguments: [String], environment: [String: String]
) async throws -> (status: Int32, output: String, errors: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    process.environment = environment
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

/// Processes a fixture started, killed with it. No `waitUntilExit`: Foundation reaps its children
/// itself, and waiting could hang a test thread on its run loop.
public final class ChildProcesses: Sendable {
    private let processes = Mutex<[Process]>([])

    public init() {}

    public func add(_ process: Process) { processes.withLock { $0.append(process) } }

    public func killAll() {
        let all = processes.withLock { list in defer { list = [] }; return list }
        for process in all where process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
