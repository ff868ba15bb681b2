import DBus
import Desktop
@testable import Dispatcher
import Foundation
import TestSupport
import Testing

/// A registered connection whose process changes: the parent forks and exits while the child keeps
/// the socket, or the process execs another program. The registration ends with the process it
/// identified (docs/threat-model.md). The app speaks over a raw socket (Tests/Apps/raw_bus_app.py),
/// which survives both.
@Suite("dispatcher: a registered connection whose process changes", .serialized)
struct ProcessChangeTests {
    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Apps/raw_bus_app.py")
    static let app = "org.example.Raw"

    /// Installs the raw app's entry, starts a plain process of it holding scene "other" and then a
    /// process in `mode` holding scene "first" (so links go to "first" first).
    func start(_ session: DesktopSession, mode: String, environment extra: [String: String] = [:]) async throws -> ChildProcess {
        try await session.writeEntry(id: Self.app, """
            [Desktop Entry]
            Type=Application
            Name=Raw
            Exec=\(DesktopSession.python) \(Self.script.path) %u
            MimeType=x-scheme-handler/raw;
            X-Waypost=true

            """)
        for (mode, scene) in [("plain", "other"), (mode, "first")] {
            let errors = session.root.appendingPathComponent("logs/raw-\(scene).stderr")
            let process = try await ChildProcess.start(
                DesktopSession.python, [Self.script.path, mode, Self.app, scene],
                environment: session.environment.merging(extra) { _, new in new }, errors: errors)
            guard await process.nextLine() == "ready" else {
                throw TestFailure("raw app \(mode) failed: \((try? String(contentsOf: errors, encoding: .utf8)) ?? "")")
            }
            if scene == "first" { return process }
        }
        throw TestFailure("unreachable")
    }

    @Test("fork, then the parent exits: the child's calls get NotRegistered, it cannot register again, and links go to the app's other process")
    func forkThenParentExits() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let forking = try await start(session, mode: "plain")
        defer { forking.kill() }
        let bus = try await session.connect()
        #expect(try await session.open("raw://before", with: bus)["scene-id"] == "first")
        let (_, scenes) = try await session.status(with: bus)
        guard let owner = scenes.first(where: { $0["scene-id"] == "first" })?["owner"].flatMap({ try? BusName($0) }) else {
            throw TestFailure("no scene \"first\": \(scenes)")
        }
        func control(_ member: MemberName, _ arguments: String...) async throws -> Message {
            switch arguments.first {
            case let argument?: try await bus.call(destination: owner, path: "/app", interface: "io.waypost.test.Raw", member: member, argument)
            case nil: try await bus.call(destination: owner, path: "/app", interface: "io.waypost.test.Raw", member: member)
            }
        }
        // Answered by the child once the parent has exited.
        let child = try await control("Fork").decode(UInt32.self)
        defer { kill(Int32(child), SIGKILL) }
        #expect(Int32(child) != forking.pid)
        let addScene = try await control("Try", "AddScene").decode(String.self)
        #expect(addScene.hasPrefix("io.waypost.Error.NotRegistered"), "\(addScene)")
        #expect(addScene.contains("its process \(forking.pid) exited"), "\(addScene)")
        let again = try await control("Try", "RegisterApplication").decode(String.self)
        #expect(again.hasPrefix("io.waypost.Error.NotRegistered"), "\(again)")

        // The link goes to the app's other process; the child, still on the bus, gets nothing.
        #expect(try await session.open("raw://after", with: bus)["scene-id"] == "other")
        let (processes, left) = try await session.status(with: bus)
        #expect(processes.count == 1 && processes.map { $0["owner"] } == left.map { $0["owner"] })
        #expect(left.map { $0["scene-id"] } == ["other"])
        #expect(try await control("Received").decode([String].self) == ["raw://before"])
    }

    @Test("the registered process execs another program keeping the socket: ProgramMismatch, then NotRegistered; links go elsewhere")
    func execAnotherProgram() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        // The same code under another name is another program.
        let impostor = session.root.appendingPathComponent("impostor.py")
        try FileManager.default.copyItem(at: Self.script, to: impostor)
        let execing = try await start(session, mode: "exec", environment: ["RAW_BUS_EXEC": impostor.path])
        defer { execing.kill() }
        var lines = execing.lines.makeAsyncIterator()
        execing.send(SIGUSR1)
        #expect(await lines.next() == "execed")
        let first = await lines.next() ?? ""
        #expect(first.hasPrefix("AddScene io.waypost.Error.ProgramMismatch"), "\(first)")
        #expect(first.contains("process \(execing.pid)"), "\(first)")
        #expect(first.contains(impostor.path) && first.contains(Self.script.path), "names both programs: \(first)")
        let second = await lines.next() ?? ""
        #expect(second.hasPrefix("AddScene io.waypost.Error.NotRegistered"), "\(second)")

        let bus = try await session.connect()
        #expect(try await session.open("raw://after", with: bus)["scene-id"] == "other")
        let (processes, _) = try await session.status(with: bus)
        #expect(processes.count == 1)
        execing.kill()
        var rest: [String] = []
        while let line = await lines.next() { rest.append(line) }
        #expect(rest.isEmpty, "\(rest)")
    }
}

/// What counts as running the same program as at registration, without a process.
@Suite("registered identities")
struct RegisteredIdentitiesTests {
    static func record(_ executable: String, script: (String, String)? = nil) -> ProcessRecord {
        ProcessRecord(
            pid: 7, parent: 1, name: "p", startTime: 1, executable: executable, arguments: [executable, script?.0 ?? ""],
            script: script.map { ($0.0, $0.1, 1) })
    }

    @Test("the same program replaced on disk, or the same script from another directory, is the same; another program or script is not")
    func runsTheSame() {
        let registered = Self.record("/usr/bin/python3.11", script: ("app.py", "/home/u/app/app.py"))
        let same = RegisteredIdentities.runsTheSame
        #expect(same(Self.record("/usr/bin/python3.11 (deleted)", script: ("app.py", "/home/u/app/app.py")), registered))
        #expect(same(Self.record("/usr/bin/python3.11", script: ("app.py", "/elsewhere/app.py")), registered))
        #expect(!same(Self.record("/usr/bin/python3.11", script: ("other.py", "/home/u/app/other.py")), registered))
        #expect(!same(Self.record("/usr/bin/perl", script: ("app.py", "/home/u/app/app.py")), registered))
        #expect(!same(Self.record("/usr/bin/python3.11"), registered))
        #expect(same(Self.record("/usr/bin/contacts (deleted)"), Self.record("/usr/bin/contacts")))
        #expect(!same(Self.record("/tmp/contacts"), Self.record("/usr/bin/contacts")))
    }
}
