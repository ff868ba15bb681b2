import Desktop
import Testing

/// The pure half of "which installed app is process P": launch shapes read from `Exec=`, the `/proc`
/// formats, matching a process against entries, and the walk up to the opener. No I/O.
@Suite("Process identity (pure)")
struct ProcessIdentityTests {
    @Test func execLinesGiveTheProgramProcessesRun() {
        func shape(_ argv: [String]) -> LaunchShape? { LaunchShape.of(execArguments: argv) }
        #expect(shape(["/usr/bin/notes", "--new", "%U"]) == LaunchShape(.program("/usr/bin/notes"), arguments: ["--new"]))
        #expect(shape(["env", "-u", "X", "GDK_BACKEND=x11", "A=1", "notes", "%u"]) == LaunchShape(.program("notes")))
        #expect(shape(["sh", "-c", "cd /opt/notes && exec ./bin/notes --x \"$@\"", "sh", "%U"])
            == LaunchShape(.program("./bin/notes"), arguments: ["--x"]))
        #expect(shape(["/bin/bash", "-c", "FOO=1 exec /opt/n/notes"]) == LaunchShape(.program("/opt/n/notes")))
        #expect(shape(["python3", "-u", "-X", "dev", "/usr/share/notes/notes.py", "--gui", "%F"])
            == LaunchShape(.script(interpreter: "python3", script: "/usr/share/notes/notes.py"), arguments: ["--gui"]))
        #expect(shape(["python3", "-m", "notes"]) == LaunchShape(.program("python3"), arguments: ["-m", "notes"]))
        #expect(shape(["/usr/bin/flatpak", "run", "org.example.Notes", "@@u", "%u", "@@"]) == nil)
        #expect(shape([]) == nil)
    }

    @Test func interpretersAreKnownByFamilyWhateverTheirVersion() {
        #expect(Interpreter.family(of: "python3.11")?.name == "python")
        #expect(Interpreter.family(of: "perl5.36")?.name == "perl")
        #expect(Interpreter.family(of: "dash")?.isShell == true)
        #expect(Interpreter.family(of: "notes") == nil)
        let python = Interpreter.family(of: "python3")!
        #expect(Interpreter.scriptArgument(["python3", "-W", "ignore", "app.py", "x"], family: python)! == ("app.py", 3))
        #expect(Interpreter.scriptArgument(["python3", "-c", "print(1)", "app.py"], family: python) == nil)
        #expect(Interpreter.scriptArgument(["python3", "--", "-odd.py"], family: python)! == ("-odd.py", 2))
    }

    @Test func interpreterCommandLinesFollowTheInterpretersOwnGrammar() {
        func runs(_ argv: [String]) -> Interpreter.Invocation {
            Interpreter.invocation(argv, family: Interpreter.family(of: argv[0])!)
        }
        // CPython: short options cluster; -c and -m end them, wherever they sit in a cluster.
        #expect(runs(["python3", "-uc", "import evil#/app.py"]) == .inline)
        #expect(runs(["python3", "-Sc", "x", "/usr/share/app/app.py"]) == .inline)
        #expect(runs(["python3", "-Im", "app", "/usr/share/app/app.py"]) == .inline)
        #expect(runs(["python3", "-ucimport os", "/usr/share/app/app.py"]) == .inline)
        // A valued option takes the rest of its word, or the next word.
        #expect(runs(["python3", "-Wignore", "app.py"]) == .script("app.py", index: 2))
        #expect(runs(["python3", "-uW", "ignore", "app.py"]) == .script("app.py", index: 3))
        #expect(runs(["python3", "-X", "dev", "-OO", "app.py"]) == .script("app.py", index: 4))
        #expect(runs(["python3", "--check-hash-based-pycs", "never", "app.py"]) == .script("app.py", index: 3))
        #expect(runs(["python3", "-", "app.py"]) == .standardInput)
        #expect(runs(["python3", "-u"]) == .standardInput)
        #expect(runs(["python3", "--", "-c"]) == .script("-c", index: 2))
        // Perl: -e anywhere is inline code; -i.bak and -0777 take only what is attached.
        #expect(runs(["perl", "-ne", "print", "/usr/share/app/app.pl"]) == .inline)
        #expect(runs(["perl", "-i.bak", "-w", "app.pl"]) == .script("app.pl", index: 3))
        #expect(runs(["perl", "-0777ne", "/usr/share/app/app.pl"]) == .inline)
        #expect(runs(["perl", "-I", "/tmp/lib", "app.pl"]) == .script("app.pl", index: 3))
        // Node does not cluster: -pe is print; --eval=… is inline; --require takes the next word.
        #expect(runs(["node", "-pe", "1", "app.js"]) == .inline)
        #expect(runs(["node", "--eval=1", "app.js"]) == .inline)
        #expect(runs(["node", "--require", "x", "app.js"]) == .script("app.js", index: 3))
        // Shells: a c anywhere among the options makes the first operand the command text.
        #expect(runs(["sh", "-ec", "exec /usr/bin/app", "sh"]) == .command("exec /usr/bin/app", index: 2))
        #expect(runs(["bash", "-o", "pipefail", "-c", "x"]) == .command("x", index: 4))
        #expect(runs(["sh", "-s", "app.sh"]) == .standardInput)
        #expect(runs(["dash", "-e", "app.sh"]) == .script("app.sh", index: 2))
        #expect(runs(["lua", "-e", "x", "app.lua"]) == .inline)
        #expect(runs(["php", "-f", "app.php"]) == .script("app.php", index: 2))
        #expect(runs(["php", "-r", "x", "app.php"]) == .inline)
        #expect(runs(["gjs", "--command=x", "app.js"]) == .inline)
        // Exec lines read alike: a clustered -c is inline code, a clustered shell -c is followed.
        #expect(LaunchShape.of(execArguments: ["python3", "-uc", "import app", "/usr/share/app/app.py"])?.kind == .program("python3"))
        #expect(LaunchShape.of(execArguments: ["sh", "-ec", "exec /opt/app/bin/app \"$@\"", "sh", "%U"]) == LaunchShape(.program("/opt/app/bin/app")))
    }

    @Test func wrappersThatExecAnInterpreterWithAScriptAreFollowed() {
        let wrapper = """
            #!/bin/sh
            cd /usr/share/app || exit 1
            exec python3 -u /usr/share/app/app.py --gui "$@"
            """
        #expect(Shebang.execShapes(ofScript: Array(wrapper.utf8))
            == [LaunchShape(.script(interpreter: "python3", script: "/usr/share/app/app.py"), arguments: ["--gui"])])
        // A relative script depends on the directory: not followed, unless after a cd to an absolute one; nor inline code.
        #expect(Shebang.execShapes(ofScript: Array("#!/bin/sh\nexec python3 app.py\nexec python3 -c 'x'\n".utf8)).isEmpty)
        #expect(Shebang.execShapes(ofScript: Array("#!/bin/sh\ncd \"$HOME\"\nexec python3 app.py\n".utf8)).isEmpty)
        #expect(Shebang.execShapes(ofScript: Array("#!/bin/sh\ncd /usr/share/app && exec python3 app.py \"$@\"\n".utf8))
            == [LaunchShape(.script(interpreter: "python3", script: "/usr/share/app/app.py"))])
        #expect(Shebang.execShapes(ofScript: Array("#!/bin/sh\nexec env A=1 /usr/bin/node /opt/a/main.js\n".utf8))
            == [LaunchShape(.script(interpreter: "/usr/bin/node", script: "/opt/a/main.js"))])
    }

    @Test func shebangLinesAndWrapperScripts() {
        let direct = Shebang(head: Array("#!/usr/bin/python3 -u\nprint()".utf8))
        #expect(direct?.interpreter == "/usr/bin/python3")
        #expect(direct?.argument == "-u")
        #expect(direct?.program == "/usr/bin/python3")
        #expect(Shebang(head: Array("#! /usr/bin/env -S python3 -u\n".utf8))?.program == "python3")
        #expect(Shebang(head: Array("#!/usr/bin/env node\n".utf8))?.program == "node")
        #expect(Shebang(head: Array("\u{7F}ELF".utf8)) == nil)
        let firefox = """
            #!/bin/sh
            # exec /not/this
            MOZ_APP=firefox
            if [ -x /usr/lib/firefox/firefox ]; then MOZ_X=1 exec /usr/lib/firefox/firefox "$@"; fi
            echo 'exec /quoted/text'
            exec "/opt/fallback" --flag
            """
        #expect(Shebang.execTargets(ofScript: Array(firefox.utf8)) == ["/usr/lib/firefox/firefox", "/opt/fallback"])
    }

    @Test func procFilesAreReadAsTheKernelWritesThem() {
        let stat = "4242 (my (odd) app) S 4100 4242 4100 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 987654 1000 100"
        #expect(ProcFiles.stat(stat)! == ("my (odd) app", 4100, 987654))
        #expect(ProcFiles.stat("garbage") == nil)
        #expect(ProcFiles.arguments(Array("python3\0/a b/app.py\0\0x\0".utf8)) == ["python3", "/a b/app.py", "", "x"])
        #expect(ProcFiles.snap(cgroup: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/snap.zoom-client.zoom-client-0e7c3d5a-1b2c-4d5e-8f90-a1b2c3d4e5f6.scope\n")
            == .snap(name: "zoom-client", app: "zoom-client"))
        #expect(ProcFiles.snap(cgroup: "1:name=systemd:/user.slice/snap.firefox.geckodriver.1234.scope") == .snap(name: "firefox", app: "geckodriver"))
        #expect(ProcFiles.snap(cgroup: "0::/user.slice/user@1000.service/app.slice/app-gnome-org.gnome.Terminal-1.scope") == nil)
        #expect(ProcFiles.flatpak(info: "[Application]\nname=org.example.Chat\nruntime=runtime/x\n[Instance]\ninstance-id=1\n") == .flatpak(appID: "org.example.Chat"))
        #expect(ProcFiles.flatpak(info: "[Runtime]\nname=org.gnome.Platform\n") == nil)
        #expect(Sandbox.snap(name: "zoom-client", app: "zoom-client").appID == "zoom-client_zoom-client")
    }

    // MARK: Matching processes to entries

    static let python = "/usr/bin/python3.11"
    static let programs = InstalledPrograms([
        "org.example.Py": [ProgramSignature(.script(interpreter: python, script: "/usr/share/py/app.py"))],
        "org.example.Notes": [ProgramSignature(.program("/usr/bin/notes"))],
        "org.example.NotesPrivate": [ProgramSignature(.program("/usr/bin/notes"), arguments: ["--private"])],
        "org.example.Twin1": [ProgramSignature(.program("/usr/bin/twin"))],
        "org.example.Twin2": [ProgramSignature(.program("/usr/bin/twin"))],
        // Debian's python3.11.desktop: the bare interpreter, in a terminal.
        "python3.11": [ProgramSignature(.program(python))],
    ])

    static func process(
        _ pid: Int32, parent: Int32 = 1, name: String = "p", start: UInt64 = 100, exe: String?, _ argv: [String],
        script: (String, String, Int)? = nil, sandbox: Sandbox? = nil
    ) -> ProcessRecord {
        ProcessRecord(pid: pid, parent: parent, name: name, startTime: start, executable: exe, arguments: argv,
                      script: script.map { (written: $0.0, resolved: $0.1, index: $0.2) }, sandbox: sandbox)
    }

    @Test func aProcessIsTheAppWhoseProgramItRuns() {
        let py = Self.process(10, exe: Self.python, ["python3", "app.py"], script: ("app.py", "/usr/share/py/app.py", 1))
        #expect(Self.programs.identify(py) == .app("org.example.Py"))
        // Any other script under the same python is not that app.
        let other = Self.process(11, exe: Self.python, ["python3", "/tmp/evil.py"], script: ("/tmp/evil.py", "/tmp/evil.py", 1))
        #expect(Self.programs.identify(other) == .none)
        #expect(!InstalledPrograms.isProcess(other, of: "org.example.Py", Self.programs.signatures["org.example.Py"]!))
        // The interpreter's own entry is the bare interpreter only, never a script it runs.
        let bare = Self.process(12, exe: Self.python, ["python3"])
        #expect(Self.programs.identify(bare) == .app("python3.11"))
        #expect(!InstalledPrograms.isProcess(py, of: "python3.11", Self.programs.signatures["python3.11"]!))
        // The entry whose literal arguments the process starts with wins; a tie is never guessed.
        #expect(Self.programs.identify(Self.process(13, exe: "/usr/bin/notes", ["notes", "--private", "x"])) == .app("org.example.NotesPrivate"))
        #expect(Self.programs.identify(Self.process(14, exe: "/usr/bin/notes", ["notes", "x"])) == .app("org.example.Notes"))
        #expect(Self.programs.identify(Self.process(15, exe: "/usr/bin/twin", ["twin"])) == .ambiguous(["org.example.Twin1", "org.example.Twin2"]))
        // A sandbox names its app, whatever the program inside.
        let flatpak = Self.process(16, exe: "/usr/bin/notes", ["notes"], sandbox: .flatpak(appID: "org.example.Chat"))
        #expect(Self.programs.identify(flatpak) == .app("org.example.Chat"))
        #expect(!InstalledPrograms.isProcess(flatpak, of: "org.example.Notes", Self.programs.signatures["org.example.Notes"]!))
    }

    // MARK: What the walk reads of each process

    @Test func argumentsAreReadOnlyWhereTheyDecide() {
        // No entry runs gio: its program decides (that it is no app).
        #expect(!Self.programs.needsArguments(toIdentify: "/usr/bin/gio"))
        #expect(!Self.programs.needsArguments(toIdentify: nil))
        // Two entries run /usr/bin/notes (one with --private): the arguments break the tie.
        #expect(Self.programs.needsArguments(toIdentify: "/usr/bin/notes"))
        #expect(Self.programs.needsArguments(toIdentify: "/usr/bin/twin"))
        // An interpreter: the script it runs is the app, and a bare one is not a script's app.
        #expect(Self.programs.needsArguments(toIdentify: Self.python))
        #expect(Self.programs.needsArguments(toIdentify: "/usr/bin/dash"))
        #expect(InstalledPrograms([:]).needsArguments(toIdentify: "/usr/bin/perl5.36"))
        // Without its arguments, a program one entry runs is still that entry's app.
        let single = InstalledPrograms(["org.example.Gio": [ProgramSignature(.program("/usr/bin/gio"), arguments: ["open"])]])
        #expect(!single.needsArguments(toIdentify: "/usr/bin/gio"))
        #expect(single.identify(Self.process(20, exe: "/usr/bin/gio", [])) == .app("org.example.Gio"))
    }

    @Test func aSandboxIsLookedForOnlyWhereOneCanBe() {
        // Another mount namespace (Flatpak, strict snaps): always, whatever it runs.
        #expect(Sandbox.isPossible(inOwnMountNamespace: false, running: "/usr/bin/python3"))
        #expect(Sandbox.isPossible(inOwnMountNamespace: false, running: nil))
        // The daemon's namespace: only a classic snap's program, or a process whose program is unknown.
        #expect(Sandbox.isPossible(inOwnMountNamespace: true, running: "/snap/zoom-client/230/zoom/zoom"))
        #expect(Sandbox.isPossible(inOwnMountNamespace: true, running: nil))
        #expect(!Sandbox.isPossible(inOwnMountNamespace: true, running: "/usr/bin/gio"))
        #expect(!Sandbox.isPossible(inOwnMountNamespace: true, running: "/usr/lib/snapd/snap-confine-not-a-snap"))
    }

    @Test func procBytesAreReadWithoutAStringOfTheWholeFile() {
        let line = "4242 (a) b) R 7 4242 7 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 18446744073709551615 1000 100\n"
        #expect(ProcFiles.stat(bytes: Array(line.utf8))! == ("a) b", 7, UInt64.max))
        // Ends at field 22 without a space; a ppid that is no number is malformed.
        #expect(ProcFiles.stat(bytes: Array("1 (x) S 0 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 55".utf8))! == ("x", 0, 55))
        #expect(ProcFiles.stat(bytes: Array("1 (x) S ? 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 55".utf8)) == nil)
        #expect(ProcFiles.stat(bytes: Array("1 (x) S 1 1".utf8)) == nil)
        #expect(ProcFiles.snap(cgroup: Array("0::/user.slice/app.slice/snap.zoom-client.zoom-client-1.scope\n".utf8))
            == .snap(name: "zoom-client", app: "zoom-client-1"))
        #expect(ProcFiles.snap(cgroup: Array("0::/user.slice/app.slice/ssnap-not.scope\n".utf8)) == nil)
    }

    // MARK: The walk to the opener

    /// A process table: pid → record (absent pids have exited).
    static func table(_ records: [ProcessRecord], strangers: Set<Int32> = []) -> (Int32) -> Result<ProcessRecord, ProcessReadFailure> {
        { pid in
            if strangers.contains(pid) { return .failure(.stranger) }
            return records.first { $0.pid == pid }.map { .success($0) } ?? .failure(.gone)
        }
    }

    @Test func theOpenerIsTheFirstAncestorThatIsAnApp() {
        let notes = Self.process(100, parent: 50, name: "notes", start: 10, exe: "/usr/bin/notes", ["notes"])
        let shell = Self.process(200, parent: 100, name: "xdg-open", start: 20, exe: "/usr/bin/dash", ["/bin/sh", "/usr/bin/xdg-open", "x"],
                                 script: ("/usr/bin/xdg-open", "/usr/bin/xdg-open", 1))
        let waypost = Self.process(300, parent: 200, name: "waypost", start: 30, exe: "/usr/bin/waypost", ["waypost", "open", "x"])
        let read = Self.table([notes, shell, waypost, Self.process(50, parent: 1, name: "systemd", start: 1, exe: "/usr/lib/systemd/systemd", [])])
        #expect(OpenerSearch.opener(caller: 300, askedAt: 40, programs: Self.programs, read: read) == .app(id: "org.example.Notes", process: "notes"))
        // No app up the chain: the caller's name.
        let lone = Self.process(400, parent: 50, name: "gio", start: 30, exe: "/usr/bin/gio", ["gio", "open", "x"])
        #expect(OpenerSearch.opener(caller: 400, askedAt: 40, programs: Self.programs, read: Self.table([lone, notes]))
            == .unidentified(process: "gio"))
    }

    /// A record kept from an earlier walk may name a parent that exited since: the walk then follows
    /// the parent the child has now, never the process that took the old parent's pid.
    @Test func aChildReparentedSinceItWasKeptIsFollowedToItsParentNow() {
        let kept = Self.process(300, parent: 100, name: "bash", start: 30, exe: "/usr/bin/bash", ["bash"])
        let stranger = Self.process(100, parent: 1, name: "notes", start: 35, exe: "/usr/bin/notes", ["notes"])
        let reaper = Self.process(90, parent: 1, name: "notes", start: 5, exe: "/usr/bin/notes", ["notes"])
        let table = Self.table([kept, stranger, reaper])
        #expect(OpenerSearch.opener(caller: 300, askedAt: 40, programs: Self.programs, read: table, currentParent: { _ in 90 })
            == .app(id: "org.example.Notes", process: "notes"))
        // Its old parent's pid is free: the same.
        #expect(OpenerSearch.opener(caller: 300, askedAt: 40, programs: Self.programs, read: Self.table([kept, reaper]), currentParent: { _ in 90 })
            == .app(id: "org.example.Notes", process: "notes"))
        // The child itself is gone by then: nothing above it is known.
        #expect(OpenerSearch.opener(caller: 300, askedAt: 40, programs: Self.programs, read: table, currentParent: { _ in nil })
            == .unidentified(process: "bash"))
    }

    @Test func exitedReusedAndStrangersAreUnknownNeverAWrongApp() {
        let notes = Self.process(100, parent: 1, name: "notes", start: 10, exe: "/usr/bin/notes", ["notes"])
        // The caller exited before the walk.
        #expect(OpenerSearch.opener(caller: 300, askedAt: 40, programs: Self.programs, read: Self.table([notes]))
            == .unknown(reason: "the caller (pid 300) exited before it was seen"))
        // Its pid now belongs to an app started after the request: not the opener.
        let reused = Self.process(300, parent: 1, name: "notes", start: 41, exe: "/usr/bin/notes", ["notes"])
        guard case .unknown = OpenerSearch.opener(caller: 300, askedAt: 40, programs: Self.programs, read: Self.table([reused])) else {
            Issue.record("a reused pid was taken for the opener")
            return
        }
        // The parent exited and an app took its pid after the child started: not the opener either.
        let child = Self.process(300, parent: 100, name: "gio", start: 30, exe: "/usr/bin/gio", ["gio"])
        let youngParent = Self.process(100, parent: 1, name: "notes", start: 35, exe: "/usr/bin/notes", ["notes"])
        #expect(OpenerSearch.opener(caller: 300, askedAt: 40, programs: Self.programs, read: Self.table([child, youngParent]))
            == .unidentified(process: "gio"))
        // Another user's caller, or ancestor.
        guard case .unknown = OpenerSearch.opener(caller: 300, askedAt: 40, programs: Self.programs, read: Self.table([child], strangers: [300])) else {
            Issue.record("a stranger's process was identified")
            return
        }
        #expect(OpenerSearch.opener(caller: 300, askedAt: 40, programs: Self.programs, read: Self.table([child, notes], strangers: [100]))
            == .unidentified(process: "gio"))
        // A parent started in the same clock tick as its child is believed only if the child still names it.
        let twinTick = Self.process(100, parent: 1, name: "notes", start: 30, exe: "/usr/bin/notes", ["notes"])
        #expect(OpenerSearch.opener(caller: 300, askedAt: 40, programs: Self.programs, read: Self.table([child, twinTick]),
                                    currentParent: { _ in 1 }) == .unidentified(process: "gio"))
        #expect(OpenerSearch.opener(caller: 300, askedAt: 40, programs: Self.programs, read: Self.table([child, twinTick]),
                                    currentParent: { $0.parent }) == .app(id: "org.example.Notes", process: "notes"))
        // The portal: the app it names, or just "via portal".
        let portal = Self.process(500, parent: 1, name: "xdg-desktop-por", start: 5, exe: "/usr/libexec/xdg-desktop-portal", [])
        #expect(OpenerSearch.opener(caller: 500, askedAt: 40, programs: Self.programs, read: Self.table([portal])) == .portal(app: nil))
        #expect(OpenerSearch.opener(caller: 500, askedAt: 40, programs: Self.programs, portalAppID: "org.example.Chat", read: Self.table([portal]))
            == .portal(app: "org.example.Chat"))
    }
}
