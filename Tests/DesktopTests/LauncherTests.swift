import Desktop
import Foundation
import Testing
import TestSupport

/// Launches real programs from real entries: a shell script that records its arguments, the
/// tokens in its environment and its open descriptors into `<directory>/<pid>`.
@Suite("Launching desktop entries")
struct LauncherTests {
    let desktop = DesktopTestEnvironment.shared  // first: sets XDG_* before any GLib call
    let catalog: ApplicationCatalog
    let launcher: Launcher

    init() throws {
        catalog = try ApplicationCatalog()
        launcher = try Launcher()
    }

    static let recorderBody = """
        #!/bin/sh
        # Records how it was launched: one file per process, named by its pid, in the directory given first.
        directory="$1"; shift
        {
          echo "pid=$$"
          for argument in "$@"; do echo "arg=$argument"; done
          echo "XDG_ACTIVATION_TOKEN=${XDG_ACTIVATION_TOKEN-<unset>}"
          echo "DESKTOP_STARTUP_ID=${DESKTOP_STARTUP_ID-<unset>}"
          for descriptor in /proc/$$/fd/*; do echo "fd=${descriptor##*/}"; done
        } > "$directory/.$$" && mv "$directory/.$$" "$directory/$$"

        """

    /// What one launched process recorded.
    struct Record {
        let pid: Int32
        let arguments: [String]
        let environment: [String: String]
        let descriptors: Set<Int32>
    }

    /// Installs an entry running the recorder with `fieldCode`; returns it and its output directory.
    func recorderEntry(
        _ stem: String, fieldCode: String, extra: [String] = []
    ) async throws -> (ApplicationEntry, String) {
        let id = "org.waypost.test." + desktop.uniqueName(stem)
        let recorder = try desktop.writeScript(desktop.uniqueName("record-launch"), Self.recorderBody)
        let output = desktop.root + "/launches/" + id
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        try await desktop.install(id: id, [
            "Type=Application", "Name=\(stem)", "Exec=\(recorder) \(output) \(fieldCode)",
        ] + extra)
        try await waitUntil("the catalog has \(id)") { (try? catalog.entry(id: id)) != nil }
        return (try catalog.entry(id: id), output)
    }

    /// Waits (bounded) for the records of `pids` and reads them.
    func records(of pids: [Int32], in directory: String) async throws -> [Record] {
        try await waitUntil("launched processes \(pids) write their records") {
            pids.allSatisfy { FileManager.default.fileExists(atPath: "\(directory)/\($0)") }
        }
        return try pids.map { pid in
            let lines = try String(contentsOfFile: "\(directory)/\(pid)", encoding: .utf8).split(separator: "\n")
            func values(_ key: String) -> [String] {
                lines.filter { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
            }
            return Record(
                pid: Int32(values("pid").first ?? "") ?? -1,
                arguments: values("arg"),
                environment: Dictionary(uniqueKeysWithValues: ["XDG_ACTIVATION_TOKEN", "DESKTOP_STARTUP_ID"].map {
                    ($0, values($0).first ?? "")
                }),
                descriptors: Set(values("fd").compactMap { Int32($0) }))
        }
    }

    /// Those of `pids` that are still our children, running or dead and not reaped. The recorder
    /// exits once it has written its record, so a launched process stays on this list only while
    /// it runs, or for good when nobody reaps it (a zombie). Only the test's own: other tests in
    /// this process start programs too.
    func unreaped(_ pids: [Int32]) -> [Int32] {
        let me = getpid()
        return pids.filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")")
            else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == me
        }
    }

    @Test func launchesWithoutURIs() async throws {
        let (entry, output) = try await recorderEntry("NoURI", fieldCode: "%u")
        // A descriptor without close-on-exec, numbered far from the shell's own.
        let stray = fcntl(open("/dev/null", O_RDONLY), F_DUPFD, 200)
        defer { close(stray) }
        try #require(stray >= 200)

        let pids = try launcher.launch(entry)
        #expect(pids.count == 1)
        let launched = try await records(of: pids, in: output)
        #expect(launched.map(\.pid) == pids)
        #expect(launched.first?.arguments == [], "%u with no URI expands to nothing")
        #expect(launched.first?.environment == [
            "XDG_ACTIVATION_TOKEN": "<unset>", "DESKTOP_STARTUP_ID": "<unset>",
        ], "our own stale tokens must not leak")
        #expect(launched.first.map { !$0.descriptors.contains(stray) } == true)
        #expect(launched.first.map { $0.descriptors.allSatisfy { $0 < 200 } } == true)
        // The launcher reaps what it started (its one child each): one left behind would stay a zombie.
        try await waitUntil("the launched processes exit and are reaped", context: "\(unreaped(pids))") { unreaped(pids).isEmpty }
    }

    @Test func launchesOneProcessPerURIForPercentU() async throws {
        let (entry, output) = try await recorderEntry("PerURI", fieldCode: "%u")
        let uris = ["waypost-test://first/a?b=c", "waypost-test://second/it's \"quoted\""]
        let pids = try launcher.launch(entry, uris: uris)
        #expect(pids.count == 2)
        #expect(Set(pids).count == 2)
        let launched = try await records(of: pids, in: output)
        #expect(launched.map(\.arguments) == [[uris[0]], [uris[1]]])
        // The launcher reaps what it started (its one child each): one left behind would stay a zombie.
        try await waitUntil("the launched processes exit and are reaped", context: "\(unreaped(pids))") { unreaped(pids).isEmpty }
    }

    @Test func launchesOneProcessForAllURIsWithPercentCapitalU() async throws {
        let (entry, output) = try await recorderEntry("AllURIs", fieldCode: "%U")
        let uris = ["waypost-test://one", "waypost-test://two"]
        let pids = try launcher.launch(entry, uris: uris)
        #expect(pids.count == 1)
        let launched = try await records(of: pids, in: output)
        #expect(launched.first?.arguments == uris)
    }

    @Test func activationTokenReachesTheChild() async throws {
        let (entry, output) = try await recorderEntry("Token", fieldCode: "%u")
        let pids = try launcher.launch(
            entry, uris: ["waypost-test://token"],
            platformData: LaunchPlatformData(activationToken: "token-123", desktopStartupID: "startup-456"))
        let launched = try await records(of: pids, in: output)
        #expect(launched.first?.environment == [
            "XDG_ACTIVATION_TOKEN": "token-123", "DESKTOP_STARTUP_ID": "startup-456",
        ])
    }

    @Test func launchFailuresCarryTheEntryAndGLibsMessage() async throws {
        // A working directory that does not exist fails inside GLib's spawn, before the program runs.
        // (A program that fails after exec, e.g. a bad #! line, is not reported: GIO runs entries
        // through gio-launch-desktop, which has already started by then.)
        let id = "org.waypost.test." + desktop.uniqueName("BadPath")
        let missingDirectory = desktop.root + "/no-such-directory"
        try await desktop.install(id: id, ["Type=Application", "Name=Bad", "Exec=/bin/true %u", "Path=\(missingDirectory)"])
        try await waitUntil("the catalog has \(id)") { (try? catalog.entry(id: id)) != nil }
        let entry = try catalog.entry(id: id)

        let error = #expect(throws: LaunchError.self) { try launcher.launch(entry, uris: ["waypost-test://x"]) }
        #expect(error?.applicationID == id)
        #expect(error?.uris == ["waypost-test://x"])
        #expect(error?.message.contains(missingDirectory) == true, "\(String(describing: error))")

        let nul = #expect(throws: LaunchError.self) { try launcher.launch(entry, uris: ["waypost-test://a\0b"]) }
        #expect(nul?.applicationID == id)
        #expect(nul?.message.contains("NUL") == true)

        try FileManager.default.removeItem(atPath: entry.filePath)
        let gone = #expect(throws: LaunchError.self) { try launcher.launch(entry) }
        #expect(gone?.applicationID == id)
    }
    /// `SigBlk:` or `SigIgn:` of `/proc/PID/status`, as the kernel's hexadecimal mask.
    static func signalMask(_ field: String, ofProcess pid: Int32) -> UInt64? {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") }
        return line.flatMap { UInt64($0.dropFirst(field.count + 1).trimmingCharacters(in: .whitespaces), radix: 16) }
    }

    @Test func launchedAppsStartWithNoSignalBlockedAndDieOfSIGTERM() async throws {
        let id = "org.waypost.test." + desktop.uniqueName("Stoppable")
        // The app runs until it is stopped; `sleep` takes SIGTERM's default action, death.
        let app = try desktop.writeScript(desktop.uniqueName("stoppable"), "#!/bin/sh\nexec sleep 2147483647\n")
        try await desktop.install(id: id, ["Type=Application", "Name=Stoppable", "Exec=\(app) %u"])
        try await waitUntil("the catalog has \(id)") { (try? catalog.entry(id: id)) != nil }
        let entry = try catalog.entry(id: id)
        // Launched from a thread that blocks and ignores what the daemon's worker threads may.
        let launcher = launcher
        let pids: [Int32] = try await withCheckedThrowingContinuation { continuation in
            Thread {
                var all = sigset_t()
                sigfillset(&all)
                pthread_sigmask(SIG_SETMASK, &all, nil)
                continuation.resume(with: Result { try launcher.launch(entry) })
            }.start()
        }
        let pid = try #require(pids.first)
        // GLib returns once the child has exec'd, so its setup has run: no signal blocked or ignored
        // (but glibc's own two, 32 and 33, which no program may touch).
        let glibcs: UInt64 = 0b11 << 31
        let blocked = Self.signalMask("SigBlk", ofProcess: pid).map { $0 & ~glibcs }
        let ignored = Self.signalMask("SigIgn", ofProcess: pid).map { $0 & ~glibcs }
        guard blocked == 0, ignored == 0 else {
            kill(pid, SIGKILL)
            Issue.record("the launched app blocks \(String(blocked ?? 0, radix: 16)) and ignores \(String(ignored ?? 0, radix: 16))")
            return
        }
        let handle = try ProcessHandle(pid: pid)
        let (exits, exited) = AsyncStream<Void>.makeStream()
        ProcessExits.shared.watch(handle) { exited.yield() }
        #expect(kill(pid, SIGTERM) == 0)
        _ = try await next(exits, "the launched app exits")
        #expect(handle.hasExited)
    }
}
