import Desktop
import Foundation
import Testing
import TestSupport

@Suite("Reading a running process's program")
struct RunningProgramTests {
    let desktop = DesktopTestEnvironment.shared  // first: sets XDG_* before any GLib call

    /// The check the dispatcher makes at registration: the launched process runs the program
    /// its entry names, even when the entry reaches it through a symlink in PATH.
    @Test func aLaunchedProcessRunsItsEntrysProgram() async throws {
        let alias = desktop.uniqueName("sleeper")
        try FileManager.default.createSymbolicLink(atPath: desktop.bin + "/" + alias, withDestinationPath: "/bin/sleep")
        let id = "org.waypost.test." + desktop.uniqueName("Sleeper")
        try await desktop.install(id: id, ["Type=Application", "Name=Sleeper", "Exec=\(alias) 30"])
        try await waitUntil("the catalog has \(id)") { (try? ApplicationCatalog().entry(id: id)) != nil }
        let entry = try ApplicationCatalog().entry(id: id)
        let program = try #require(entry.executablePath)
        #expect(program == URL(fileURLWithPath: "/bin/sleep").resolvingSymlinksInPath().path)

        let pid = try #require(try Launcher().launch(entry).first)
        defer { kill(pid, SIGKILL) }
        // Right after the spawn the pid may still be gio-launch-desktop, which then execs the program.
        try await waitUntil("the launched process runs \(program)") { (try? RunningProgram.executable(ofProcess: pid)) == program }
    }

    /// The opener walk's view of `python3 -uc CODE` where CODE is also a path, through a symlink in
    /// its directory, to an app's script: inline code, so no script and not that app.
    @Test func inlineCodeShapedLikeAPathIsNoScript() async throws {
        let directory = URL(fileURLWithPath: desktop.root).appendingPathComponent(desktop.uniqueName("inline"))
        let links = directory.appendingPathComponent("import waiter#")
        try FileManager.default.createDirectory(at: links, withIntermediateDirectories: true)
        let script = directory.appendingPathComponent("app.py")
        try "print('app')\n".write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: links.appendingPathComponent("app.py").path, withDestinationPath: script.path)
        // The inline `import waiter` runs waiter.py from the working directory: it says so, then waits to be killed.
        try "import time\nprint('ready', flush=True)\ntime.sleep(3600)\n"
            .write(to: directory.appendingPathComponent("waiter.py"), atomically: true, encoding: .utf8)
        let process = try await ChildProcess.start(
            "/bin/sh", ["-c", "cd \"$0\" && exec /usr/bin/python3 -uc 'import waiter#/app.py'", directory.path], environment: [:])
        defer { process.kill() }
        #expect(try await process.nextLine("the program is ready") == "ready")
        let python = try #require(try? RunningProgram.executable(ofProcess: process.pid))
        let programs = InstalledPrograms(["org.example.Py": [ProgramSignature(.script(interpreter: python, script: script.path))]])
        let record = try RunningProgram.record(ofProcess: process.pid, against: programs).get()
        #expect(record.arguments == ["/usr/bin/python3", "-uc", "import waiter#/app.py"])
        #expect(record.script == nil)
        #expect(programs.identify(record) == .none)
    }

    @Test func readsThisProcess() throws {
        let path = try RunningProgram.executable(ofProcess: getpid())
        #expect(path == (try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")))
        #expect(path.hasPrefix("/"))
    }

    /// What the opener walk reads: the whole record, or only what identifying against entries needs.
    @Test func readsThisProcesssRecordAsFarAsIdentifyingNeeds() throws {
        let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let whole = try RunningProgram.record(ofProcess: getpid()).get()
        #expect(whole.executable == exe && whole.arguments == CommandLine.arguments && whole.parent == getppid())
        #expect(whole.startTime > 0 && whole.startTime <= RunningProgram.bootTicksNow())
        #expect(whole.sandbox == nil)
        // No entry runs this program: it decides alone, and the argument vector is not read.
        let lean = try RunningProgram.record(ofProcess: getpid(), against: InstalledPrograms([:])).get()
        #expect(lean.executable == exe && lean.arguments.isEmpty && lean.startTime == whole.startTime && lean.parent == whole.parent)
        // Two entries run it: their arguments break the tie, so they are read.
        let twins = InstalledPrograms(["a": [ProgramSignature(.program(exe))], "b": [ProgramSignature(.program(exe))]])
        #expect(try RunningProgram.record(ofProcess: getpid(), against: twins).get().arguments == CommandLine.arguments)
    }

    @Test func aProcessThatExitedIsGone() async throws {
        let child = try await ChildProcess.start("/bin/true", [], environment: [:])
        _ = try await child.status()
        #expect(RunningProgram.record(ofProcess: child.pid) == .failure(.gone))
        #expect(RunningProgram.record(ofProcess: Int32.max) == .failure(.gone))
    }

    @Test func missingProcessesGetTypedErrors() {
        for pid: Int32 in [0, -4, Int32.max] {
            let error = #expect(throws: RunningProgramError.self) { try RunningProgram.executable(ofProcess: pid) }
            #expect(error?.pid == pid)
        }
        let error = try? #require(throws: RunningProgramError.self) { try RunningProgram.executable(ofProcess: Int32.max) }
        #expect(error?.reason == "No such file or directory")
    }
}
