import DBus
import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing
import WaypostContract

/// Issue 44's findings 1 and 2 as a hostile process on the same bus tries them: strangers reading
/// one app's saved activities (its dock menu, the listing, a search of limit 1,000) and searching
/// with words without end, while another app's `Open` must still be answered. At the issue's
/// sizes scaled to the suite's time: 1,500 activities of 15 KB user info (the issue: 10,000).
/// What each call costs is read from the daemon's process: bytes it read (`/proc/PID/io`, SQLite's
/// pages among them) and its peak resident memory (`VmHWM`), before and after the attack.
@Suite("reading saved activities under attack", .serialized)
struct ActivityReadAttackTests {
    static let show = ActivitiesOverTheBusTests.show
    static let saved = 1500

    /// An activity of about 15 KB of user info (220 strings of 64 bytes under 4-byte keys).
    static func heavy(_ n: Int) -> [String: Variant] {
        var info: [String: Variant] = [:]
        for key in 0..<220 { info[String(format: "k%03d", key)] = .string(String(repeating: Character(UnicodeScalar(UInt8(97 + key % 26))), count: 64)) }
        return Contract.ActivityDetails(
            targetContentIdentifier: "item/\(n)", title: "Common \(n)", userInfo: info, eligibleForSearch: true,
            eligibleForHandoff: true, expirationDate: 4_000_000_000, persistentIdentifier: "p\(n)"
        ).variants
    }

    /// The app with `saved` heavy activities and a dock menu; the path docks are told it is at.
    static func bigApp(_ session: DesktopSession) async throws -> (InProcessApp, ObjectPath) {
        let dock = try await session.connect()
        var updates = try await dock.signals(matching: MatchRule(interface: "com.canonical.Unity.LauncherEntry", member: "Update"))
            .makeAsyncIterator()
        let app = try await InProcessApp(session, id: "org.example.Big", activityTypes: [Self.show])
        try await app.openScene("s1")
        for n in 0..<saved { try await app.publish("s1", Self.show, Self.heavy(n)) }
        try await app.call(Contract.Dispatcher1.setShortcutItems, [Contract.ShortcutItem(type: Self.show, title: "Compose", targetContentIdentifier: "new").variants])
        guard let update = try await updates.next() else { throw TestFailure("no LauncherEntry.Update") }
        let (_, properties) = try update.decode(String.self, [String: Variant].self)
        return (app, try ObjectPath(try properties["quicklist"]?.decode(as: String.self) ?? ""))
    }

    /// Another app, started as the user would, that takes any `contacts:` link.
    static func victim(_ session: DesktopSession) async throws {
        try await session.start(try await session.installApp(RoutingTests.contactsApp(scenes: [("any", "contacts", [([], ["*"])])])))
    }

    @Test("a dock's menu, the listing and a search of limit 1,000 read what they return: bytes read, reply and memory bounded, another app's Open answered meanwhile")
    func readsAreBounded() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let (_, menu) = try await Self.bigApp(session)
        try await Self.victim(session)
        let daemon = try await Daemon(session)

        // 16 strangers reading the dock menu: five recent items, no payload read.
        let layouts = try await Attack.run(session, daemon, attackers: 16) { bus in
            let reply = try await bus.call(
                destination: Contract.busName, path: menu, interface: Contract.DBusMenu.interface,
                member: Contract.DBusMenu.getLayout.name, Int32(0), Int32(-1), [String](), timeout: .seconds(60))
            let (revision, root) = try reply.decode(UInt32.self, Structure<Int32, [String: Variant], [Variant]>.self)
            #expect(root.fields.2.count == 1 + 1 + 5, "the item, a separator, five recent activities")
            return try WireBytes.encode(revision, root).count
        }
        layouts.expectBounded("GetLayout", bytesReadPerCall: 256 * 1024, replyBytes: 16 * 1024, memoryGrowth: 32 << 20)

        // The listing: a page of at most 100 and 1 MiB, and the pages list every activity once.
        let lists = try await Attack.run(session, daemon, attackers: 8) { bus in
            let results = try await session.dispatcher(bus, Contract.Dispatcher1.listSavedActivities, "").decode([[String: Variant]].self)
            #expect(results.count <= 100)
            return try WireBytes.encode(results).count
        }
        lists.expectBounded("ListSavedActivities", bytesReadPerCall: 3 << 20, replyBytes: (1 << 20) + (64 << 10), memoryGrowth: 128 << 20)
        let listed = try await session.allSavedActivities(try await session.connect(), app: "org.example.Big")
        #expect(listed.map(\.id).count == Self.saved)
        #expect(Set(listed.map(\.id)).count == Self.saved)

        // A search every activity matches, limit 1,000: 1 MiB of them, not 25 MB.
        let searches = try await Attack.run(session, daemon, attackers: 8) { bus in
            let results = try await session.dispatcher(bus, Contract.Dispatcher1.searchActivities, ["common"], UInt32(1000))
                .decode([[String: Variant]].self)
            #expect(!results.isEmpty)
            return try WireBytes.encode(results).count
        }
        searches.expectBounded("SearchActivities", bytesReadPerCall: 3 << 20, replyBytes: (1 << 20) + (64 << 10), memoryGrowth: 128 << 20)
    }

    @Test("search words are bounded and deduplicated: 32 terms of 1 KiB are refused by name at once, the worst search allowed stalls nobody")
    func searchWordsAreBounded() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let app = try await InProcessApp(session, id: "org.example.Words", activityTypes: [Self.show])
        try await app.openScene("s1")
        let letters = "abcdefgh".map(String.init)
        for n in 0..<Self.saved {
            let title = letters.enumerated().map { index, letter in "\(letter)\(n % (index + 2))" }.joined(separator: " ")
            try await app.publish("s1", Self.show, ActivitiesOverTheBusTests.activity(title: title, target: "w/\(n)", id: "w\(n)"))
        }
        try await Self.victim(session)
        let daemon = try await Daemon(session)
        let bus = try await session.connect()

        // The attack: 676 different two-letter words in 32 terms of 1 KiB, refused by their bytes
        // before any is split into words.
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz")
        let words = alphabet.flatMap { a in alphabet.map { b in String([a, b]) } }
        let terms = (0..<32).map { term in (0..<340).map { words[(term * 340 + $0) % words.count] }.joined(separator: " ") }
        do {
            _ = try await session.dispatcher(bus, Contract.Dispatcher1.searchActivities, terms, UInt32(1000))
            Issue.record("32 terms of 1 KiB were searched")
        } catch let error as BusError {
            #expect(error.name.rawValue == "io.waypost.Error.InvalidArgument")
            #expect(error.message.contains("32608 bytes of terms") && error.message.contains("at most 4096"), "\(error.message)")
        }
        // Within the bytes, more than 8 different words are refused by their count.
        let many = (0..<4).map { term in (0..<100).map { words[(term * 100 + $0) % words.count] }.joined(separator: " ") }
        do {
            _ = try await session.dispatcher(bus, Contract.Dispatcher1.searchActivities, many, UInt32(1000))
            Issue.record("400 different words were searched")
        } catch let error as BusError {
            #expect(error.name.rawValue == "io.waypost.Error.InvalidArgument")
            #expect(error.message.contains("400 different words") && error.message.contains("at most 8"), "\(error.message)")
        }
        // One word again and again is one word.
        let repeated = Array(repeating: String(repeating: "a1 ", count: 40), count: 32)
        #expect(try await session.dispatcher(bus, Contract.Dispatcher1.searchActivities, repeated, UInt32(5)).decode([[String: Variant]].self).count == 5)

        // The worst search allowed (eight one-letter words, each matching every activity), from 8 strangers.
        let worst = try await Attack.run(session, daemon, attackers: 8) { bus in
            let results = try await session.dispatcher(bus, Contract.Dispatcher1.searchActivities, letters, UInt32(1000))
                .decode([[String: Variant]].self)
            #expect(!results.isEmpty)
            return try WireBytes.encode(results).count
        }
        worst.expectBounded("SearchActivities", bytesReadPerCall: 3 << 20, replyBytes: (1 << 20) + (64 << 10), memoryGrowth: 128 << 20)
    }
}

/// The daemon's process as /proc shows it.
struct Daemon {
    let pid: Int32

    init(_ session: DesktopSession) async throws {
        let bus = try await session.connect()
        let pid = try await bus.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetConnectionUnixProcessID", Contract.busName.rawValue).decode(UInt32.self)
        self.pid = Int32(pid)
    }

    /// Bytes it read through read(2), pread(2) and the like (`rchar`): SQLite's pages among them.
    func bytesRead() throws -> Int { try field("/proc/\(pid)/io", "rchar:") }

    /// Its peak resident memory, in bytes (`VmHWM`).
    func peakMemory() throws -> Int { try field("/proc/\(pid)/status", "VmHWM:") * 1024 }

    private func field(_ file: String, _ name: String) throws -> Int {
        let text = try String(contentsOfFile: file, encoding: .utf8)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name) }),
              let value = Int(line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
        else { throw TestFailure("no \(name) in \(file)") }
        return value
    }
}

/// Strangers calling one member again and again, each as soon as its last call is answered, until
/// another app's `Open` has been answered and each has made `perAttacker` calls.
struct Attack {
    /// Calls answered (refused `Busy` not counted), their bytes read in all, the largest reply.
    var calls = 0
    var busy = 0
    var bytesRead = 0
    var largestReply = 0
    var memoryGrowth = 0
    /// Attack calls sent and not yet answered when the `Open`'s answer came.
    var inFlightAtOpen = 0
    var openScene = ""

    static func run(
        _ session: DesktopSession, _ daemon: Daemon, attackers: Int, perAttacker: Int = 4,
        _ call: @escaping @Sendable (Connection) async throws -> Int
    ) async throws -> Attack {
        var connections: [Connection] = []
        for _ in 0..<attackers { connections.append(try await session.connect()) }
        let opener = try await session.connect()
        let (read, peak) = (try daemon.bytesRead(), try daemon.peakMemory())
        final class State: Sendable { let state = Mutex((attack: Attack(), sent: 0, openAnswered: false)) }
        let shared = State()
        let (started, attacking) = AsyncStream.makeStream(of: Void.self)
        var report = try await withThrowingTaskGroup(of: Void.self) { group in
            for connection in connections {
                group.addTask {
                    var made = 0
                    while made < perAttacker || !shared.state.withLock({ $0.openAnswered }) {
                        shared.state.withLock { $0.sent += 1 }
                        do {
                            let bytes = try await call(connection)
                            shared.state.withLock { $0.attack.calls += 1; $0.attack.largestReply = max($0.attack.largestReply, bytes) }
                        } catch let error as BusError where error.name.rawValue == "io.waypost.Error.Busy" {
                            shared.state.withLock { $0.attack.busy += 1 }
                        }
                        shared.state.withLock { $0.sent -= 1 }
                        made += 1
                        if made == 1 { attacking.yield() }
                    }
                }
            }
            // The Open goes once every stranger has had a call answered, and while they go on.
            var first = started.makeAsyncIterator()
            for _ in 0..<attackers { await first.next() }
            let outcome = try await session.open("contacts://show?id=during-the-attack", with: opener)
            shared.state.withLock {
                $0.attack.inFlightAtOpen = $0.sent
                $0.attack.openScene = outcome["scene-id"] ?? ""
                $0.openAnswered = true
            }
            try await group.waitForAll()
            return shared.state.withLock { $0.attack }
        }
        report.bytesRead = try daemon.bytesRead() - read
        report.memoryGrowth = try daemon.peakMemory() - peak
        return report
    }

    /// Each call within its bounds, and the other app's `Open` answered while calls were in flight.
    func expectBounded(_ member: String, bytesReadPerCall: Int, replyBytes: Int, memoryGrowth: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(calls > 0, "\(member): no call was answered but Busy (\(busy))", sourceLocation: sourceLocation)
        #expect(bytesRead / max(calls, 1) <= bytesReadPerCall, "\(member): \(bytesRead / max(calls, 1)) bytes read per call", sourceLocation: sourceLocation)
        #expect(largestReply <= replyBytes, "\(member): a reply of \(largestReply) bytes", sourceLocation: sourceLocation)
        #expect(self.memoryGrowth <= memoryGrowth, "\(member): the daemon's peak grew by \(self.memoryGrowth >> 20) MiB", sourceLocation: sourceLocation)
        #expect(openScene == "any", "\(member): the other app's Open went to \(openScene)", sourceLocation: sourceLocation)
        #expect(inFlightAtOpen > 0, "\(member): the attack had ended when the Open was answered", sourceLocation: sourceLocation)
        print("\(member): \(calls) calls (\(busy) busy), \(bytesRead / max(calls, 1)) bytes read per call, reply ≤ \(largestReply) bytes, peak +\(self.memoryGrowth >> 10) KiB, \(inFlightAtOpen) in flight at the Open's answer")
    }
}

extension TestDesktop {
    /// Every saved activity (of one app, or all), page by page as `waypost activities list` reads them.
    func allSavedActivities(_ bus: Connection, app: String = "") async throws -> [Contract.SavedActivity] {
        var (listed, after) = ([Contract.SavedActivity](), "")
        repeat {
            let (results, next) = try await dispatcher(bus, Contract.Dispatcher1.listSavedActivitiesPage, app, after, UInt32(0))
                .decode([[String: Variant]].self, String.self)
            listed += try results.map { try Contract.SavedActivity($0) }
            after = next
        } while !after.isEmpty
        return listed
    }
}
