import DBus
import Foundation
import Testing
import TestSupport

/// A private `dbus-daemon` started from `Fixtures/session.conf`, listening in a fresh temporary
/// directory; never the user's bus.
final class PrivateBus: Sendable {
    let address: String
    let directory: URL
    private let daemon: ChildProcess

    init() async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("waypost-dbus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard let config = Bundle.module.url(forResource: "session", withExtension: "conf", subdirectory: "Fixtures")
        else { throw TestFailure("Fixtures/session.conf is missing from the test bundle") }
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        // Its stderr is dropped: it warns it cannot raise its fd limit.
        daemon = try await ChildProcess.start(
            "/usr/bin/dbus-daemon",
            ["--config-file=\(config.path)", "--nofork", "--print-address=1", "--address=unix:dir=\(directory.path)"],
            environment: environment)
        // The daemon prints its address once it listens.
        guard let address = try? await daemon.nextLine("dbus-daemon prints its address") else {
            daemon.kill()
            throw TestFailure("dbus-daemon exited before printing its address")
        }
        self.address = address.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func connect() async throws -> Connection { try await Connection(address: address) }

    /// Stops the daemon (SIGSTOP): it reads nothing until `resume()`.
    func pause() { daemon.send(SIGSTOP) }
    func resume() { daemon.send(SIGCONT) }

    /// Kills the throwaway bus outright (it does not always leave on SIGTERM) and removes its directory.
    func stop() {
        daemon.kill()
        try? FileManager.default.removeItem(at: directory)
    }

    /// The bus of the running suite (set by the `.privateBus` trait).
    @TaskLocal static var current: PrivateBus?

    static var suiteBus: PrivateBus {
        get throws {
            guard let bus = current else { throw TestFailure("the suite needs the .privateBus trait") }
            return bus
        }
    }
}

/// Starts one private bus for a whole suite and stops it after the suite's last test.
struct PrivateBusTrait: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let bus = try await PrivateBus()
        defer { bus.stop() }
        try await PrivateBus.$current.withValue(bus) { try await function() }
    }
}

extension Trait where Self == PrivateBusTrait {
    static var privateBus: Self { PrivateBusTrait() }
}

/// A peer's word that something happened (a call reached its handler): the test awaits it instead
/// of guessing how long that takes.
final class Beacon: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() { (stream, continuation) = AsyncStream.makeStream() }

    /// Called by the peer when the thing happened (a call reached it, a gate opened).
    func signal() { continuation.yield() }

    /// Returns once `signal()` was called as often as `next` returned before, plus one; fails
    /// naming `what` when that takes longer than a loaded machine could.
    func next(_ what: String) async throws {
        try await TestSupport.next(stream, what)
    }
}

/// A handler that never answers: it waits until its task is cancelled (or for ever).
func stallUntilCancelled() async {
    let (never, keep) = AsyncStream<Never>.makeStream()
    for await _ in never {}
    keep.finish()  // held until here: the stream ends only when the task is cancelled
}
