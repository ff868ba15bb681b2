import DBus
@testable import Desktop
@testable import Dispatcher
import Foundation
import Testing
import WaypostContract

/// Which app a process is, without a bus: processes as values (`RunningProcesses`), what each entry
/// runs as `InstalledPrograms` reads it from the entry's `Exec` and the files it names.
@Suite("which app a process is")
struct ProcessChoiceTests {
    /// Processes by pid, as `/proc` would show them.
    struct Processes: RunningProcesses {
        var records: [Int32: ProcessRecord] = [:]
        /// What each entry runs; an entry not here is read from its `Exec` as the daemon reads it.
        var signatures: [String: [ProgramSignature]] = [:]

        func record(ofProcess pid: Int32) -> Result<ProcessRecord, ProcessReadFailure> {
            records[pid].map { .success($0) } ?? .failure(.gone)
        }
        func record(ofProcess pid: Int32, against programs: InstalledPrograms) -> Result<ProcessRecord, ProcessReadFailure> {
            record(ofProcess: pid)
        }
        func currentParent(of process: ProcessRecord) -> Int32? { records[process.pid]?.parent }
        func executable(ofProcess pid: Int32) throws(RunningProgramError) -> String {
            guard let executable = records[pid]?.executable else { throw RunningProgramError(pid: pid, reason: "No such process") }
            return executable
        }
        func signatures(of entry: ApplicationEntry) -> [ProgramSignature] {
            signatures[entry.id] ?? ProcessTable().signatures(of: entry)
        }
        func forget(_ pid: Int32) {}
    }

    static let sampleApp = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Apps/sample_app.py").path
    /// What `/proc/PID/exe` reads for Debian's python3 (the link resolved).
    static let python = URL(fileURLWithPath: "/usr/bin/python3").resolvingSymlinksInPath().path
    static let config = "/home/ada/.config/app.json"

    static func entry(_ id: String, exec: String) -> ApplicationEntry {
        ApplicationEntry(
            id: id, filePath: "/apps/\(id).desktop", name: id, participates: true, schemes: [], contentTypes: [],
            activityTypes: [], isDBusActivatable: false, startupNotify: false, exec: exec, tryExec: nil,
            executablePath: exec.split(separator: " ").first.map(String.init))
    }

    /// python3 running `script` (at `index` in its arguments) with the config, as the kernel shows it.
    static func python(_ pid: Int32, _ arguments: [String], script: String, index: Int) -> ProcessRecord {
        ProcessRecord(
            pid: pid, parent: 1, name: "python3", startTime: 100, executable: python, arguments: arguments,
            script: (written: script, resolved: script, index: index))
    }

    static func identified(_ pid: Int32, _ entry: ApplicationEntry, _ processes: Processes) -> String? {
        do { return try Dispatcher.identify(pid: UInt32(pid), of: entry, in: processes).name } catch { return "\(error)" }
    }

    @Test("apps launched through env, sh -c, a #! script and a #!/bin/sh wrapper that execs python3 are themselves")
    func launchShapes() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("process-choice-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.appendingPathComponent("shebang-app")
        try "#!/usr/bin/python3\nprint('hi')\n".write(to: script, atomically: true, encoding: .utf8)
        let wrapper = directory.appendingPathComponent("wrapped-app")
        try "#!/bin/sh\nPATH=/usr/bin:$PATH\nexec python3 -u \(Self.sampleApp) \"$@\"\n".write(to: wrapper, atomically: true, encoding: .utf8)
        for file in [script, wrapper] { try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.path) }

        let viaEnv = Self.entry("org.example.ViaEnv", exec: "env SAMPLE=1 /usr/bin/python3 \(Self.sampleApp) \(Self.config) %u")
        let viaShell = Self.entry("org.example.ViaShell", exec: "sh -c 'cd / && exec python3 \(Self.sampleApp) \"$1\"' sh \(Self.config)")
        let shebang = Self.entry("org.example.Shebang", exec: "\(script.path) \(Self.config) %U")
        let wrapped = Self.entry("org.example.Wrapped", exec: "\(wrapper.path) \(Self.config) %U")
        var processes = Processes()
        processes.records[10] = Self.python(10, ["/usr/bin/python3", Self.sampleApp, Self.config], script: Self.sampleApp, index: 1)
        processes.records[11] = Self.python(11, ["python3", Self.sampleApp, Self.config], script: Self.sampleApp, index: 1)
        // The kernel runs a #! script as its interpreter with the script's path as the first argument.
        processes.records[12] = Self.python(12, ["/usr/bin/python3", script.path, Self.config], script: script.path, index: 1)
        processes.records[13] = Self.python(13, ["python3", "-u", Self.sampleApp, Self.config], script: Self.sampleApp, index: 2)

        #expect(Self.identified(10, viaEnv, processes) == "python3")
        #expect(Self.identified(11, viaShell, processes) == "python3")
        #expect(Self.identified(12, shebang, processes) == "python3")
        #expect(Self.identified(13, wrapped, processes) == "python3")
        // The same python3 running another script is none of them.
        processes.records[14] = Self.python(14, ["python3", "-u", "/tmp/impostor.py", Self.config], script: "/tmp/impostor.py", index: 2)
        for entry in [viaEnv, viaShell, shebang, wrapped] {
            do {
                _ = try Dispatcher.identify(pid: 14, of: entry, in: processes)
                Issue.record("\(entry.id) took python3 running /tmp/impostor.py")
            } catch {
                guard case .programMismatch(entry.id, _, let running) = error else { Issue.record("\(error)"); continue }
                #expect(running == "\(Self.python) running /tmp/impostor.py")
            }
        }
    }

    @Test("python3 running another script is not the app whose Exec is python3 …: ProgramMismatch names what it runs")
    func otherScriptIsNotTheApp() {
        let app = Self.entry("org.example.Py", exec: "/usr/bin/python3 \(Self.sampleApp) \(Self.config)")
        var processes = Processes()
        processes.records[20] = Self.python(20, ["/usr/bin/python3", "/tmp/impostor.py", Self.config], script: "/tmp/impostor.py", index: 1)
        #expect(throws: DispatchError.programMismatch(
            app: app.id, expected: "\(Self.python) running \(Self.sampleApp)", running: "\(Self.python) running /tmp/impostor.py")
        ) { try Dispatcher.identify(pid: 20, of: app, in: processes) }
        // The real one is the app; one that cannot be read is nobody.
        processes.records[21] = Self.python(21, ["/usr/bin/python3", Self.sampleApp, Self.config], script: Self.sampleApp, index: 1)
        #expect(Self.identified(21, app, processes) == "python3")
        #expect(throws: DispatchError.programMismatch(app: app.id, expected: "/usr/bin/python3", running: "process 22 cannot be read (gone)")) {
            try Dispatcher.identify(pid: 22, of: app, in: processes)
        }
    }

    @Test("a registered process read again: the same program still, another after an exec, or gone")
    func readAgain() {
        let registered = ProcessRecord(pid: 30, parent: 1, name: "notes", startTime: 5, executable: "/usr/bin/notes", arguments: ["notes"])
        var processes = Processes()
        processes.records[30] = registered
        let same = RegisteredIdentities.reread(30, as: registered, in: processes)
        #expect(same.map { RegisteredIdentities.runsTheSame($0, as: registered) } == true)
        processes.records[30] = ProcessRecord(pid: 30, parent: 1, name: "sh", startTime: 5, executable: "/bin/dash", arguments: ["sh"])
        let execed = RegisteredIdentities.reread(30, as: registered, in: processes)
        #expect(execed?.executable == "/bin/dash")
        #expect(execed.map { RegisteredIdentities.runsTheSame($0, as: registered) } == false)
        processes.records[30] = nil
        #expect(RegisteredIdentities.reread(30, as: registered, in: processes) == nil)
        // A sandboxed app stays its sandbox's, whatever it runs now: nothing is read.
        let sandboxed = ProcessRecord(
            pid: 31, parent: 1, name: "chat", startTime: 5, executable: "/app/bin/chat", arguments: [], sandbox: .flatpak(appID: "org.example.Chat"))
        #expect(RegisteredIdentities.reread(31, as: sandboxed, in: processes) == sandboxed)
    }

    @Test("registration needs an installed, opted-in entry whose program the caller runs, each refusal under its contract name")
    func whoMayRegister() throws {
        let contacts = Self.entry("org.example.Contacts", exec: "/usr/bin/python3 \(Self.sampleApp) \(Self.config)")
        var shy = Self.entry("org.example.Shy", exec: "/bin/true")
        shy = ApplicationEntry(
            id: shy.id, filePath: shy.filePath, name: shy.name, participates: false, schemes: ["shy"], contentTypes: [],
            activityTypes: [], isDBusActivatable: false, startupNotify: false, exec: shy.exec, tryExec: nil, executablePath: "/bin/true")
        let directory = DesktopAppsTests.Directory(installed: [contacts, shy])
        func refusal(_ id: String, process: ProcessRecord? = nil) -> String? {
            do {
                let entry = try Dispatcher.registrable(id, in: directory)
                var processes = Processes()
                processes.records[40] = process
                _ = try Dispatcher.identify(pid: 40, of: entry, in: processes)
                return nil
            } catch { return error.failure.errorName.rawValue }
        }
        #expect(refusal("org.example.Nobody") == "io.waypost.Error.UnknownApplication")
        #expect(refusal("org.example.Shy") == "io.waypost.Error.UnknownApplication")
        #expect(refusal("") == "io.waypost.Error.InvalidArgument")
        // A process that is not the Python program the Contacts entry runs (a test runner), then one that is.
        let runner = ProcessRecord(pid: 40, parent: 1, name: "swift-test", startTime: 5, executable: "/build/WaypostPackageTests.xctest", arguments: [])
        #expect(refusal(contacts.id, process: runner) == "io.waypost.Error.ProgramMismatch")
        #expect(refusal(contacts.id, process: Self.python(40, ["python3", Self.sampleApp, Self.config], script: Self.sampleApp, index: 1)) == nil)
    }

    @Test("a link's opener is the first app up from the caller's process, past generic openers; a caller newer than the request is nobody")
    func opener() {
        let programs = InstalledPrograms([
            "org.example.Chat": [ProgramSignature(.program("/usr/bin/chat"))],
            "xdg-open": [ProgramSignature(.program("/usr/bin/xdg-open"))],
        ])
        var processes = Processes()
        processes.records[40] = ProcessRecord(pid: 40, parent: 1, name: "chat", startTime: 10, executable: "/usr/bin/chat", arguments: ["chat"])
        processes.records[45] = ProcessRecord(pid: 45, parent: 40, name: "xdg-open", startTime: 20, executable: "/usr/bin/xdg-open", arguments: [])
        processes.records[50] = ProcessRecord(pid: 50, parent: 45, name: "gio", startTime: 30, executable: "/usr/bin/gio", arguments: ["gio", "open"])
        func opener(_ pid: UInt32, askedAt: UInt64 = 100) -> Opener {
            OpenerLookup.opener(
                ofProcess: pid, askedAt: askedAt, portalAppID: nil, programs: programs, processes: processes,
                passesLinksOn: { $0 == "xdg-open" })
        }
        #expect(opener(50) == .app(id: "org.example.Chat", process: "chat"))
        #expect(opener(40) == .app(id: "org.example.Chat", process: "chat"))
        guard case .unknown = opener(50, askedAt: 25) else { Issue.record("\(opener(50, askedAt: 25))"); return }
        // Its parent gone (and not followed to a newer one): the caller is all that is known.
        processes.records[45] = nil
        #expect(opener(50) == .unidentified(process: "gio"))
    }
}
