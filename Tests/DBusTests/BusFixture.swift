import DBus
import Foundation
import Testing

/// A private `dbus-daemon` started from `Fixtures/session.conf`, listening in a fresh temporary
/// directory; never the user's bus.
final class PrivateBus: Sendable {
    let address: String
    let directory: URL
    private let daemon: Process

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("waypost-dbus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard let config = Bundle.module.url(forResource: "session", withExtension: "conf", subdirectory: "Fixtures")
        else { throw FixtureError("Fixtures/session.conf is missing from the test bundle") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = [
            "--config-file=\(config.path)", "--nofork", "--print-address=1",
            "--address=unix:dir=\(directory.path)",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice  // it warns it cannot raise its fd limit
        try process.run()
        daemon = process
        // The daemon prints its address once it listens.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw FixtureError("dbus-daemon exited before printing its address") }
            line.append(chunk)
        }
        address = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func connect() async throws -> Connection { try await Connection(address: address) }

    /// Stops the daemon (SIGSTOP): it reads nothing until `resume()`.
    func pause() { kill(daemon.processIdentifier, SIGSTOP) }
    func resume() { kill(daemon.processIdentifier, SIGCONT) }

    func stop() {
        // A throwaway bus: kill it outright (it does not always leave on SIGTERM).
        // waitpid, not waitUntilExit: Foundation notices an exit only once every copy of the socket it
        // gave the child is closed, which services the bus started may keep open.
        if daemon.isRunning {
            kill(daemon.processIdentifier, SIGKILL)
            var status: Int32 = 0
            while waitpid(daemon.processIdentifier, &status, 0) == -1 && errno == EINTR {}
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// The bus of the running suite (set by the `.privateBus` trait).
    @TaskLocal static var current: PrivateBus?

    static var suiteBus: PrivateBus {
        get throws {
            guard let bus = current else { throw FixtureError("the suite needs the .privateBus trait") }
            return bus
        }
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Starts one private bus for a whole suite and stops it after the suite's last test.
struct PrivateBusTrait: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        try await PrivateBus.$current.withValue(bus) { try await function() }
    }
}

extension Trait where Self == PrivateBusTrait {
    static var privateBus: Self { PrivateBusTrait() }
}

/// Runs `body` with a deadline, so a test that would hang fails instead.
func withDeadline<T: Sendable>(
    _ limit: Duration = .seconds(10), _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        guard let first = try await group.next(), let value = first else {
            group.cancelAll()
            throw FixtureError("no result within \(limit)")
        }
        group.cancelAll()
        return value
    }
}
