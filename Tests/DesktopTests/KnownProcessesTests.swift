import Desktop
import Foundation
import Testing
import TestSupport

/// Processes kept between walks (`KnownProcesses`) against real processes: a kept process that
/// `exec`s another program, or whose pid a newer process takes, is never taken for what it was.
/// One test at a time: the pid-reuse test winds the kernel's next pid back, and a process started
/// meanwhile may take the pid of another test's exited child, which that test expects gone.
@Suite("Processes kept between walks", .serialized)
struct KnownProcessesTests {
    static let shell = URL(fileURLWithPath: "/bin/sh").resolvingSymlinksInPath().path
    static let sleep = URL(fileURLWithPath: "/bin/sleep").resolvingSymlinksInPath().path
    /// The shell's entry and the sleeper's, and each alone.
    static let both = InstalledPrograms([
        "org.example.Shell": [ProgramSignature(.program(shell))], "org.example.Sleeper": [ProgramSignature(.program(sleep))],
    ])
    static let sleeperOnly = InstalledPrograms(["org.example.Sleeper": [ProgramSignature(.program(sleep))]])
    static let shellOnly = InstalledPrograms(["org.example.Shell": [ProgramSignature(.program(shell))]])

    static func identify(_ pid: Int32, _ kept: KnownProcesses, _ programs: InstalledPrograms) -> InstalledPrograms.Identification? {
        guard case .success(let record) = kept.record(ofProcess: pid, against: programs) else { return nil }
        return programs.identify(record)
    }

    /// A shell that was no app (or another app) when kept, then `exec`s an app's program, is that app.
    @Test func aKeptProcessThatExecsAnotherProgramIsReadAnew() async throws {
        let fifo = NSTemporaryDirectory() + "waypost-exec-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        let child = try await ChildProcess.start(Self.shell, ["-c", "echo ready; read go < \(fifo); exec \(Self.sleep) 30"], environment: [:])
        defer { child.kill() }
        #expect(try await child.nextLine("the child is ready") == "ready")
        let kept = KnownProcesses()
        #expect(Self.identify(child.pid, kept, Self.sleeperOnly) == InstalledPrograms.Identification.none)
        #expect(Self.identify(child.pid, kept, Self.shellOnly) == .app("org.example.Shell"))
        #expect(Self.identify(child.pid, kept, Self.both) == .app("org.example.Shell"))
        #expect(kept.count == 1)

        // The shell reads its line and execs sleep: same pid, same start, another program.
        let writer = try #require(FileHandle(forWritingAtPath: fifo))
        writer.write(Data("go\n".utf8))
        try writer.close()
        try await waitUntil("the child runs sleep") { (try? RunningProgram.executable(ofProcess: child.pid)) == Self.sleep }
        #expect(Self.identify(child.pid, kept, Self.sleeperOnly) == .app("org.example.Sleeper"))
        #expect(Self.identify(child.pid, kept, Self.shellOnly) == InstalledPrograms.Identification.none)
        #expect(Self.identify(child.pid, kept, Self.both) == .app("org.example.Sleeper"))
        let record = try kept.record(ofProcess: child.pid, against: Self.both).get()
        #expect(record.name == "sleep")
    }

    @Test func aKeptProcessThatExitedIsGone() async throws {
        let child = try await ChildProcess.start(Self.sleep, ["30"], environment: [:])
        let kept = KnownProcesses()
        #expect(Self.identify(child.pid, kept, Self.both) == .app("org.example.Sleeper"))
        child.kill()
        _ = try? await child.status()
        #expect(kept.record(ofProcess: child.pid, against: Self.both) == .failure(.gone))
        #expect(kept.count == 0)
    }

    /// The kernel hands out the next pid after `ns_last_pid`: as root, a kept process's pid is given to
    /// a newer process running another app's program, which is read as itself.
    @Test(.enabled(if: access("/proc/sys/kernel/ns_last_pid", W_OK) == 0, "setting the next pid needs root"))
    func aPidTakenByANewerProcessIsThatProcess() async throws {
        let first = try await ChildProcess.start(Self.sleep, ["30"], environment: [:])
        let pid = first.pid
        let kept = KnownProcesses()
        #expect(Self.identify(pid, kept, Self.sleeperOnly) == .app("org.example.Sleeper"))
        first.kill()
        _ = try? await first.status()
        // A shell sets the next pid and forks at once (other processes of the machine may still take
        // it first: tried again). The forked shell waits on a FIFO nobody opens, running no child.
        let fifo = NSTemporaryDirectory() + "waypost-reuse-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        let script = "echo \(pid - 1) > /proc/sys/kernel/ns_last_pid; \(Self.shell) -c 'echo $$; read x < \(fifo); :' & wait"
        var taken = false
        for _ in 0..<200 where !taken {
            let outer = try await ChildProcess.start(Self.shell, ["-c", script], environment: [:])
            defer { outer.kill() }
            guard let line = try await outer.nextLine("the forked shell's pid"), let inner = Int32(line) else { continue }
            defer { kill(inner, SIGKILL) }
            guard inner == pid else { continue }
            taken = true
            #expect(Self.identify(pid, kept, Self.sleeperOnly) == InstalledPrograms.Identification.none)
            #expect(Self.identify(pid, kept, Self.shellOnly) == .app("org.example.Shell"))
        }
        #expect(taken, "pid \(pid) was never given out again")
    }
}
