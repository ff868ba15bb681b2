import DBus
import Foundation
import TestSupport
import Testing
import WaypostContract

/// Registration of real processes over the bus: an interpreter running some other script, or code
/// that only names the app's script, or another program behind a bind mount, is refused, and the
/// refusal reaches it. Which launch shapes are the app is a choice over values (ProcessChoiceTests).
@Suite("dispatcher: app identity at registration", .serialized)
struct IdentityTests {
    /// Installs the sample app under `id` with `exec` as its whole `Exec=` line (`CONFIG` and
    /// `SCRIPT` replaced), and returns its config file.
    func install(_ session: DesktopSession, _ id: String, exec: String) async throws -> String {
        let app = try await session.installApp(SampleApp(
            id, schemes: [id.lowercased().replacingOccurrences(of: ".", with: "-")],
            declarations: [("main", ["kind": "window-group"])], scenes: [("w", "main", [([], ["*"])])]))
        let config = session.root.appendingPathComponent("\(app.id).json").path
        try await session.writeEntry(id: id, """
            [Desktop Entry]
            Type=Application
            Name=\(id)
            Exec=\(exec.replacingOccurrences(of: "CONFIG", with: config).replacingOccurrences(of: "SCRIPT", with: DesktopSession.sampleApp.path))
            MimeType=x-scheme-handler/\(id.lowercased().replacingOccurrences(of: ".", with: "-"));
            X-Waypost=true

            """)
        return config
    }

    /// Starts `program arguments` in the session; the first line it prints (`ready`, or nothing when
    /// registration failed) and what it wrote to stderr.
    func run(_ session: DesktopSession, _ program: String, _ arguments: [String]) async throws -> (line: String?, errors: String) {
        let errors = session.root.appendingPathComponent("logs/\(UUID().uuidString).stderr")
        let process = try await ChildProcess.start(program, arguments, environment: session.environment, errors: errors)
        let line = await process.nextLine()
        if line != "ready" { process.kill() }
        return (line, (try? String(contentsOf: errors, encoding: .utf8)) ?? "")
    }

    @Test("python3 running another script cannot register as the app whose Exec is python3 …")
    func otherScriptIsNotTheApp() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let config = try await install(session, "org.example.Py", exec: "/usr/bin/python3 SCRIPT CONFIG")
        // The same code under another name is another script: a stranger to the entry.
        let impostor = session.root.appendingPathComponent("impostor.py")
        try FileManager.default.copyItem(at: DesktopSession.sampleApp, to: impostor)
        let refused = try await run(session, DesktopSession.python, [impostor.path, config])
        #expect(refused.line == nil)
        #expect(refused.errors.contains("io.waypost.Error.ProgramMismatch"), "\(refused.errors)")
        #expect(refused.errors.contains(impostor.path), "the error names what the process runs: \(refused.errors)")
        // The real one still registers.
        let real = try await run(session, DesktopSession.python, [DesktopSession.sampleApp.path, config])
        #expect(real.line == "ready", "\(real.errors)")
    }
    @Test("python3 -uc CODE, with CODE naming the app's script through a symlink in its directory, cannot register")
    func inlineCodeIsNotTheScript() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let config = try await install(session, "org.example.Py", exec: "/usr/bin/python3 SCRIPT CONFIG")
        // In the working directory: `import evil#/sample_app.py` is a real path to the app's script,
        // and `evil.py` runs the app's own code from the inline `import evil`.
        let directory = session.root.appendingPathComponent("attack")
        let linkDirectory = directory.appendingPathComponent("import evil#")
        try FileManager.default.createDirectory(at: linkDirectory, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: linkDirectory.appendingPathComponent("sample_app.py").path, withDestinationPath: DesktopSession.sampleApp.path)
        try """
            import runpy, sys
            sys.argv = [\(String(reflecting: DesktopSession.sampleApp.path)), sys.argv[1]]
            runpy.run_path(sys.argv[0], run_name="__main__")

            """.write(to: directory.appendingPathComponent("evil.py"), atomically: true, encoding: .utf8)
        let refused = try await run(session, "/bin/sh", [
            "-c", "cd \"$0\" && exec \"$1\" -uc 'import evil#/sample_app.py' \"$2\"", directory.path, DesktopSession.python, config,
        ])
        #expect(refused.line == nil)
        #expect(refused.errors.contains("io.waypost.Error.ProgramMismatch"), "\(refused.errors)")
    }

    @Test("a process running python3 bind-mounted over an app's program, in a mount namespace of its own, cannot register as the app",
          .enabled(if: getuid() == 0, "mounts need root (as unprivileged user namespaces would give a user)"))
    func bindMountOverTheProgramIsNotTheProgram() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        // A native app: its program is a copy of a real binary, and nothing else identifies it.
        let program = session.root.appendingPathComponent("bin/notes")
        try FileManager.default.createDirectory(at: program.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "/bin/true", toPath: program.path)
        let config = try await install(session, "org.example.Notes", exec: "\(program.path) CONFIG %U")
        // /proc/PID/exe reads the app's path, but the file there, in its namespace, is python3.
        let refused = try await run(session, "/usr/bin/unshare", [
            "-m", "/bin/sh", "-c", "mount --bind /usr/bin/python3 \"$1\" && exec \"$1\" \"$2\" \"$3\"", "sh",
            program.path, DesktopSession.sampleApp.path, config,
        ])
        #expect(refused.line == nil)
        #expect(refused.errors.contains("io.waypost.Error.ProgramMismatch"), "\(refused.errors)")
        #expect(refused.errors.contains("another file, in mount namespace"), "\(refused.errors)")
    }

    @Test("a connection that leaves the bus as soon as its registration is answered is forgotten; one that stays is listed")
    func leavesRightAfterRegistering() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let id = "org.example.Quick"
        try await session.writeEntry(id: id, """
            [Desktop Entry]
            Type=Application
            Name=Quick
            Exec=\(InProcessApp.program)
            X-Waypost=true

            """)
        let stays = try await session.connect()
        let leaves = try await session.connect()
        for app in [stays, leaves] {
            _ = try await app.call(
                destination: Contract.busName, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
                member: Contract.Dispatcher1.registerApplication.name, id, ObjectPath("/app"), [String: Variant]())
        }
        // Gone before the daemon's watch of its name is surely in place (it is set up after the reply).
        leaves.close()
        try await waitUntil("only the connection that stayed is registered") {
            try await session.status(with: stays).processes.map { $0["owner"] } == [stays.uniqueName.rawValue]
        }
    }
}
