import DBus
import Foundation
import Glibc
import TestSupport
import Testing
import WaypostContract

/// Issue 44's findings 6 and 7 through the daemon: its state directory full, and a store path that
/// leads to another program's database.
@Suite("the activity store's file, through the daemon", .serialized)
struct ActivityStoreFileOverTheBusTests {
    static let show = ActivitiesOverTheBusTests.show

    /// Whether the daemon can be given a disk of its own: a mount namespace with a tmpfs in it.
    /// Root only: in a user namespace of its own (how anyone else gets one) the daemon could no
    /// longer read the apps' `/proc/PID/exe`, and would refuse every registration.
    static let canMount: Bool = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["--mount", "--propagation", "private", "/bin/sh", "-c", "mount -t tmpfs -o size=64k probe /mnt"]
        guard getuid() == 0, (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    /// The daemon run in a mount namespace where `$HOME/.local/state/waypost` is a 2 MiB tmpfs: a
    /// disk that fills up, for the daemon alone (and gone with it).
    static func smallStateDisk(in directory: URL) throws -> [String] {
        let script = directory.appendingPathComponent("small-state-disk.sh")
        try """
            #!/bin/sh
            # The daemon's state directory as a disk of its own, 2 MiB, in a mount namespace of its own.
            state="$HOME/.local/state/waypost"
            mkdir -p "$state" || exit 69
            exec /usr/bin/unshare --mount --propagation private \\
                /bin/sh -c 'mount -t tmpfs -o size=2m waypost-state "$0" && exec "$@"' "$state" "$@"

            """.write(to: script, atomically: true, encoding: .utf8)
        return ["/bin/sh", script.path]
    }

    @Test(
        "a full state directory: publishes fail by name while commits fail, none acknowledged is lost, and publishes succeed once there is room",
        .enabled(if: canMount, "needs to mount a tmpfs for the daemon alone (root, unshare)"))
    func fullDisk() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("disk-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let session = try await DesktopSession(daemonWrapper: try Self.smallStateDisk(in: scratch))
        defer { session.close() }
        let app = try await InProcessApp(session, id: "org.example.Notes", activityTypes: [Self.show])
        try await app.openScene("s1")
        try await app.publish("s1", Self.show, ActivitiesOverTheBusTests.activity(title: "Before", target: "before", id: "before"))
        let opener = try await session.connect()
        #expect(try await session.search(opener, ["before"]).count == 1, "committed before the disk fills")
        let daemon = try await Daemon(session)

        // Something else fills the disk, as the daemon sees it (its mount namespace, through /proc).
        let state = "/proc/\(daemon.pid)/root" + session.root.appendingPathComponent("home/.local/state/waypost").path
        let filler = open(state + "/filler", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(filler >= 0, "cannot reach the daemon's state directory: \(String(cString: strerror(errno)))")
        let block = [UInt8](repeating: 0x46, count: 64 * 1024)
        while write(filler, block, block.count) > 0 {}
        #expect(errno == ENOSPC)
        close(filler)

        // The issue's 400 publishes of 4 KB, 16 in flight: those answered are acknowledged, the
        // rest refused once the store's commits fail.
        var (acknowledged, refusals, refusedIDs) = ([String](), [BusError](), Set<String>())
        let note = ["text": Variant(String(repeating: "n", count: 4000))]
        try await withThrowingTaskGroup(of: (String, BusError?).self) { group in
            var next = 0
            func publishNext() {
                let n = next
                next += 1
                group.addTask {
                    do {
                        try await app.publish("s1", Self.show, ActivitiesOverTheBusTests.activity(title: "Note \(n)", target: "n/\(n)", id: "n\(n)", userInfo: note))
                        return ("n\(n)", nil)
                    } catch let error as BusError {
                        return ("n\(n)", error)
                    }
                }
            }
            for _ in 0..<16 { publishNext() }
            for try await (id, error) in group {
                if let error { (refusals, refusedIDs) = (refusals + [error], refusedIDs.union([id])) } else { acknowledged.append(id) }
                if next < 400 { publishNext() }
            }
        }
        let refused = try #require(refusals.first, "400 publishes of 4 KB were all acknowledged on a full 2 MiB disk")
        #expect(refusals.allSatisfy { $0.name.rawValue == "io.waypost.Error.StoreFailed" }, "\(Set(refusals.map(\.name.rawValue)))")
        #expect(refused.message.contains("database or disk is full") && refused.message.contains("kept"), "\(refused.message)")
        // Still refused while there is no room, and the daemon serves everyone else meanwhile.
        await #expect(throws: BusError.self) {
            try await app.publish("s1", Self.show, ActivitiesOverTheBusTests.activity(title: "Refused", target: "r", id: "refused"))
        }
        #expect(try await session.search(opener, ["before"]).count == 1)

        // Room again: the next publish succeeds, and every acknowledged one is there.
        #expect(unlink(state + "/filler") == 0)
        try await app.publish("s1", Self.show, ActivitiesOverTheBusTests.activity(title: "After", target: "after", id: "after"))
        let listed = try await session.allSavedActivities(opener)
        let saved = Set(listed.compactMap { try? $0.activity["persistent-identifier"]?.decode(as: String.self) })
        let lost = acknowledged.filter { !saved.contains($0) }
        #expect(lost.isEmpty, "\(lost.count) of \(acknowledged.count) acknowledged publishes lost")
        print("full disk: \(acknowledged.count) of 400 publishes acknowledged, \(refusals.count) refused, \(lost.count) acknowledged lost; refused: \(refused.message)")
        #expect(saved.contains("before") && saved.contains("after") && !saved.contains("refused"))
        #expect(saved.isDisjoint(with: refusedIDs), "a refused publish was saved")
        #expect(session.busLog.contains("cannot be written"), "the daemon's log says why")
    }

    @Test("activities.sqlite a link to another program's database: the link is set aside, that database untouched, the daemon saves into its own")
    func linkToAnotherProgramsDatabase() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let state = session.root.appendingPathComponent("home/.local/state/waypost")
        let victim = session.root.appendingPathComponent("other-program.sqlite")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let made = try await session.run(DesktopSession.python, ["-c", """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            db.executescript("CREATE TABLE activity (id INTEGER PRIMARY KEY, note TEXT NOT NULL); INSERT INTO activity (note) VALUES ('keep me'), ('and me'); PRAGMA user_version = 1;")
            db.close()
            """, victim.path])
        #expect(made.status == 0, "\(made.output)")
        let before = try Data(contentsOf: victim)
        try FileManager.default.createSymbolicLink(at: state.appendingPathComponent("activities.sqlite"), withDestinationURL: victim)

        let app = try await InProcessApp(session, id: "org.example.Notes", activityTypes: [Self.show])
        try await app.openScene("s1")
        try await app.publish("s1", Self.show, ActivitiesOverTheBusTests.activity(title: "Mine", target: "mine", id: "mine"))
        #expect(try await session.search(try await session.connect(), ["mine"]).count == 1)
        #expect(try Data(contentsOf: victim) == before, "the other program's database was written")
        let aside = try FileManager.default.contentsOfDirectory(atPath: state.path).filter { $0.hasPrefix("activities.sqlite.not-waypost-") }
        #expect(aside.count == 1)
        #expect(session.busLog.contains("is not the store's"))
    }
}
