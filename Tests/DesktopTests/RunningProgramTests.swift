import Desktop
import Foundation
import Testing

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
        #expect(await eventually { (try? ApplicationCatalog().entry(id: id)) != nil })
        let entry = try ApplicationCatalog().entry(id: id)
        let program = try #require(entry.executablePath)
        #expect(program == URL(fileURLWithPath: "/bin/sleep").resolvingSymlinksInPath().path)

        let pid = try #require(try Launcher().launch(entry).first)
        defer { kill(pid, SIGKILL) }
        // Right after the spawn the pid may still be gio-launch-desktop, which then execs the program.
        #expect(await eventually { (try? RunningProgram.executable(ofProcess: pid)) == program })
    }

    @Test func readsThisProcess() throws {
        let path = try RunningProgram.executable(ofProcess: getpid())
        #expect(path == (try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")))
        #expect(path.hasPrefix("/"))
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
