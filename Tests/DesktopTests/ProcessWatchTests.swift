import Desktop
import Foundation
import TestSupport
import Testing

/// A process held by a handle (pidfd), and told of when it exits.
@Suite("process watch")
struct ProcessWatchTests {
    @Test("a watched process that is killed is reported exited once, through its handle")
    func exitIsReported() async throws {
        let child = try await ChildProcess.start("/bin/sleep", ["infinity"], environment: [:])
        defer { child.kill() }
        let handle = try ProcessHandle(pid: child.pid)
        #expect(!handle.hasExited)
        let (exits, exited) = AsyncStream<Void>.makeStream()
        ProcessExits.shared.watch(handle) { exited.yield() }
        child.kill()
        _ = try await next(exits, "the watch reports the exit")
        #expect(handle.hasExited)
    }

    @Test("a process that is not there cannot be held, and the error names its pid")
    func goneProcess() async throws {
        let child = try await ChildProcess.start("/bin/true", [], environment: [:])
        _ = try await child.status()
        #expect(throws: RunningProgramError.self) { try ProcessHandle(pid: child.pid) }
        let error = #expect(throws: RunningProgramError.self) { try ProcessHandle(pid: -1) }
        #expect(error?.pid == -1)
    }
}
