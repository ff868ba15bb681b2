import DBus
import Foundation
import Synchronization
import TestSupport
import Testing
import WaypostContract

/// docs/delivery.md, sentence by sentence: what an opener's success and each error mean, with apps
/// that hang, answer wrongly or are flooded, and a daemon killed mid-flood.
@Suite("dispatcher: at most once, and the opener learns the truth", .serialized)
struct DeliveryTests {
    @Test("OpenURL answered with '(s)' is an error from that app: InvalidReply naming it, and no other scene gets the link")
    func wrongOpenURLReply() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let app = try await CountingApp(session, id: "org.example.Wrong", behaviour: .answerWrongly)
        try await app.openScene("a")
        try await app.openScene("b")
        let bus = try await session.connect()
        let error = await Self.failure { _ = try await session.open("wrong://x", with: bus) }
        #expect(error?.name.rawValue == "io.waypost.Error.InvalidReply")
        #expect(error?.message.contains("org.example.Wrong") == true, "\(String(describing: error))")
        #expect(app.received == ["OpenURL wrong://x"])
    }

    @Test("CreateScene answered with '(i)' is an error from that app, not a refusal: no second window is asked for")
    func wrongCreateSceneReply() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let app = try await CountingApp(session, id: "org.example.Wrong", behaviour: .answerWrongly)
        let bus = try await session.connect()
        let error = await Self.failure { _ = try await session.open("wrong://new", with: bus) }
        #expect(error?.name.rawValue == "io.waypost.Error.InvalidReply")
        #expect(app.received == ["CreateScene wrong://new"])
    }

    @Test("one process's Opens count together over its connections: 32 in flight, the next Busy on any of them; another app's link is delivered meanwhile")
    func busyProcessOverSeveralConnections() async throws {
        let session = try await DesktopSession(deliveryTimeout: 60)
        defer { session.close() }
        let slow = try await CountingApp(session, id: "org.example.Slow", behaviour: .hang)
        defer { slow.release() }
        try await slow.openScene("a")
        let fast = try await CountingApp(session, id: "org.example.Fast", behaviour: .acknowledge)
        try await fast.openScene("f")
        let (first, second) = try await (session.connect(), session.connect())
        let flood = Task {
            await withTaskGroup(of: String?.self) { group in
                for index in 0..<80 {
                    group.addTask {
                        await Self.failure { _ = try await session.open("slow://\(index)", with: index % 2 == 0 ? first : second) }?.name.rawValue
                    }
                }
                return await group.reduce(into: [String]()) { $0.append($1 ?? "delivered") }
            }
        }
        try await waitUntil("the hung app holds 32 links", context: session.busLog) { slow.count == 32 }
        // A third connection of the same process is the same caller: its share is spent.
        let third = try await session.connect()
        let more = await Self.failure { _ = try await session.open("slow://more", with: third) }
        #expect(more?.name.rawValue == "io.waypost.Error.Busy")
        #expect(more?.message.contains("process \(getpid()) has 32 calls of Open in flight") == true, "\(more.map { "\($0)" } ?? "answered")")
        // Another process is another caller: its link to another app goes while the flood holds.
        let other = try await runProgram(DesktopSession.waypost.path, ["open", "fast://while"], environment: session.environment)
        #expect(other.status == 0, "\(other.errors)")
        #expect(fast.received == ["OpenURL fast://while"])

        slow.release()
        let outcomes = await flood.value
        #expect(outcomes.filter { $0 == "delivered" }.count == 32, "\(outcomes)")
        #expect(outcomes.filter { $0 == "io.waypost.Error.Busy" }.count == 48, "\(outcomes)")
        #expect(slow.count == 32)
    }

    @Test("a connection with 32 Opens in flight gets Busy naming Open at once for the next, nothing of it delivered; its other members are served meanwhile")
    func busyConnection() async throws {
        let session = try await PeerDesktop(deliveryTimeout: 60)
        defer { session.close() }
        let app = try await CountingApp(session, id: "org.example.Slow", behaviour: .hang)
        defer { app.release() }
        try await app.openScene("a")
        let bus = try await session.connect()
        let flood = Task {
            await withTaskGroup(of: (String, String?).self) { group in
                for index in 0..<40 {
                    group.addTask {
                        let uri = "slow://\(index)"
                        return (uri, await Self.failure { _ = try await session.open(uri, with: bus) }?.name.rawValue)
                    }
                }
                return await group.reduce(into: [String: String]()) { $0[$1.0] = $1.1 ?? "delivered" }
            }
        }
        // The app holds what reached it, unanswered: 32 Opens are in flight until it is released.
        try await waitUntil("the hung app holds 32 links", context: session.busLog) { app.count == 32 }
        let more = await Self.failure { _ = try await session.open("slow://more", with: bus) }
        #expect(more?.name.rawValue == "io.waypost.Error.Busy")
        #expect(more?.message.contains("has 32 calls of Open in flight") == true, "\(more.map { "\($0)" } ?? "answered")")
        // The flood of one member starves none of the others on the same connection.
        let (processes, scenes) = try await session.status(with: bus)
        #expect(processes.map { $0["app-id"] } == ["org.example.Slow"])
        #expect(scenes.map { $0["scene-id"] } == ["a"])
        #expect(app.count == 32)

        app.release()
        let outcomes = await flood.value
        let busy = Set(outcomes.filter { $0.value == "io.waypost.Error.Busy" }.keys)
        #expect(busy.count == 40 - 32, "\(outcomes)")
        #expect(outcomes.values.filter { $0 == "delivered" }.count == 32, "\(outcomes)")
        #expect(app.received.count == 32)
        #expect(app.received.allSatisfy { !busy.contains(String($0.dropFirst("OpenURL ".count))) })
    }

    @Test("a daemon killed with SIGKILL mid-flood: no link arrives twice, and every link reported delivered arrived")
    func daemonKilledMidFlood() async throws {
        let session = try await DesktopSession()
        defer { session.close() }
        let app = try await CountingApp(session, id: "org.example.Flood", behaviour: .acknowledge)
        try await app.openScene("a")
        let watcher = try await session.connect()
        // Openers call the daemon by its unique name: once it is dead, nothing starts another.
        guard let daemon = try await watcher.nameOwner(of: Contract.busName) else { throw TestFailure("no daemon") }
        let pid = Int32(try await watcher.processID(of: daemon))
        let openers = try await (0..<4).asyncMap { _ in try await session.connect() }
        let perOpener = 1500
        let killed = Flag()
        let results = try await withThrowingTaskGroup(of: [(String, Bool)].self) { group in
            for (number, opener) in openers.enumerated() {
                group.addTask {
                    // 16 in flight per opener.
                    try await withThrowingTaskGroup(of: (String, Bool).self) { calls in
                        var results: [(String, Bool)] = []
                        for index in 0..<perOpener {
                            if index >= 16, let done = try await calls.next() { results.append(done) }
                            let uri = "flood://\(number)/\(index)"
                            calls.addTask {
                                do {
                                    _ = try await opener.call(
                                        destination: daemon, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
                                        member: Contract.Dispatcher1.open.name, uri, [String: Variant](), timeout: .seconds(30))
                                    return (uri, true)
                                } catch { return (uri, false) }
                            }
                            if app.count >= 500, !killed.value.exchange(true, ordering: .sequentiallyConsistent) { kill(pid, SIGKILL) }
                        }
                        for try await done in calls { results.append(done) }
                        return results
                    }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let didKill = killed.value.load(ordering: .sequentiallyConsistent)
        #expect(didKill)
        let received = app.received.map { String($0.dropFirst("OpenURL ".count)) }
        let counts = Dictionary(received.map { ($0, 1) }, uniquingKeysWith: +)
        #expect(counts.values.allSatisfy { $0 == 1 }, "received twice: \(counts.filter { $0.value > 1 }.keys.sorted())")
        let succeeded = results.filter(\.1).map(\.0)
        #expect(!succeeded.isEmpty)
        #expect(succeeded.count < results.count, "the daemon died before the flood ended")
        #expect(succeeded.allSatisfy { counts[$0] == 1 }, "reported delivered, never received")
    }

    /// The bus error a call failed with, nil when it succeeded.
    static func failure(_ call: () async throws -> Void) async -> BusError? {
        do { try await call(); return nil } catch let error as BusError { return error } catch {
            return BusError(.failed, "\(error)")
        }
    }
}

final class Flag: Sendable { let value = Atomic<Bool>(false) }

/// Shut until `open()`; then every waiter, and every later one, goes on.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let open = state.withLock { state in
                if !state.open { state.waiting.append(continuation) }
                return state.open
            }
            if open { continuation.resume() }
        }
    }

    func open() {
        let waiting = state.withLock { state in
            state.open = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for waiter in waiting { waiter.resume() }
    }
}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}

/// A participating app served by this test process (its entry runs the test binary, so it may
/// register), with one window group "main", that counts every event it receives.
final class CountingApp: Sendable {
    enum Behaviour: Sendable {
        /// Acknowledges at once.
        case acknowledge
        /// OpenURL answers `(s)`, CreateScene `(i)`.
        case answerWrongly
        /// Answers only once the test calls `release()`: an app that hangs.
        case hang
    }

    let id: String
    let bus: Connection
    /// Opened by `release()`: what a hanging app's calls wait for.
    private let released = Gate()
    private final class Log: Sendable { let entries = Mutex<[String]>([]) }
    private let log = Log()

    /// What it received, in order: "OpenURL <uri>" or "CreateScene <uri>".
    var received: [String] { log.entries.withLock { $0 } }
    var count: Int { log.entries.withLock { $0.count } }

    init(_ session: some TestDesktop, id: String, behaviour: Behaviour) async throws {
        self.id = id
        let scheme = String(id.split(separator: ".").last!).lowercased()
        try await session.writeEntry(id: id, """
            [Desktop Entry]
            Type=Application
            Name=\(id)
            Exec=\(InProcessApp.program)
            MimeType=x-scheme-handler/\(scheme);
            X-Waypost=true

            """)
        bus = try await session.connect()
        let log = log
        let released = released
        let platform = Argument("platform_data", "a{sv}")
        @Sendable func answer(_ call: MethodCall, _ right: () throws -> Reply, wrong: () throws -> Reply) async throws -> Reply {
            switch behaviour {
            case .acknowledge: return try right()
            case .answerWrongly: return try wrong()
            case .hang:
                await released.wait()
                return try right()
            }
        }
        try bus.export("/app", interfaces: [Interface(
            Contract.Application1.interface,
            methods: [
                // Declared with the reply they send, so that the bus layer lets a wrong one through.
                Method(
                    Contract.Application1.openURL.name,
                    arguments: [Argument("scene_id", "s"), Argument("uri", "s"), platform],
                    returns: behaviour == .answerWrongly ? [Argument("oops", "s")] : []
                ) { call in
                    let (_, uri, _) = try call.arguments(String.self, String.self, [String: Variant].self)
                    log.entries.withLock { $0.append("OpenURL \(uri)") }
                    return try await answer(call, { try call.reply() }, wrong: { try call.reply("received") })
                },
                Method(
                    Contract.Application1.createScene.name,
                    arguments: [Argument("declaration_id", "s"), Argument("event", "a{sv}"), platform],
                    returns: [Argument("scene_id", behaviour == .answerWrongly ? "i" : "s")]
                ) { call in
                    let (_, event, _) = try call.arguments(String.self, [String: Variant].self, [String: Variant].self)
                    log.entries.withLock { $0.append("CreateScene \((try? event["uri"]?.decode(as: String.self)) ?? "?")") }
                    return try await answer(call, { try call.reply("never") }, wrong: { try call.reply(Int32(7)) })
                },
            ])])
        try await call(Contract.Dispatcher1.registerApplication, id, ObjectPath("/app"), [String: Variant]())
        try await call(Contract.Dispatcher1.declareScenes, [Contract.Declaration(id: "main", kind: .windowGroup).structure])
    }

    /// Lets a hanging app answer what it holds (too late: the dispatcher has timed out).
    func release() { released.open() }

    /// Opens a scene that allows any link.
    func openScene(_ scene: String) async throws {
        try await call(Contract.Dispatcher1.addScene, scene, "main")
        try await call(Contract.Dispatcher1.setExternalEvents, scene, [Contract.Modifier(preferring: [], allowing: ["*"]).structure])
    }

    func call<each Argument: BusValue>(_ member: Contract.Member, _ arguments: repeat each Argument) async throws {
        _ = try await bus.call(
            destination: Contract.busName, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
            member: member.name, repeat each arguments, timeout: .seconds(30))
    }
}

/// Budgets over the bus: what the review tried as a hostile app is refused, named, before any work.
@Suite("dispatcher: budgets", .serialized)
struct BudgetTests {
    @Test("oversized condition sets, matching sets and activity fields get BudgetExceeded naming the amount; others keep being served")
    func hostileApp() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let hostile = try await CountingApp(session, id: "org.example.Hostile", behaviour: .acknowledge)
        try await hostile.openScene("a")
        let neighbour = try await CountingApp(session, id: "org.example.Neighbour", behaviour: .acknowledge)
        try await neighbour.openScene("n")

        // 1,024 conditions of 4 KiB on one scene: 4 MiB, over the scene's 64 KiB.
        let big = (0..<1024).map { "\($0)-" + String(repeating: "c", count: 4000) }
        let sets = await DeliveryTests.failure {
            try await hostile.call(Contract.Dispatcher1.setExternalEvents, "a", [Contract.Modifier(preferring: big, allowing: []).structure])
        }
        #expect(sets?.name.rawValue == "io.waypost.Error.BudgetExceeded")
        #expect(sets?.message.contains("over its budget of 65536") == true, "\(String(describing: sets))")
        // Scene after scene of 64 KiB each: the app's 1 MiB runs out on the 17th.
        let perScene = (0..<16).map { "\($0)-" + String(repeating: "d", count: 4000) }
        var refusedAt: Int?
        for index in 0..<20 where refusedAt == nil {
            try await hostile.call(Contract.Dispatcher1.addScene, "s\(index)", "main")
            let error = await DeliveryTests.failure {
                try await hostile.call(
                    Contract.Dispatcher1.setExternalEvents, "s\(index)",
                    [Contract.Modifier(preferring: perScene.map { "\(index)/\($0)" }, allowing: []).structure])
            }
            if let error {
                #expect(error.name.rawValue == "io.waypost.Error.BudgetExceeded")
                refusedAt = index
            }
        }
        #expect(refusedAt == 16)
        // 7,000 matching conditions of 4 KiB.
        let matching = (0..<7000).map { "\($0)-" + String(repeating: "m", count: 4000) }
        let declared = await DeliveryTests.failure {
            try await hostile.call(
                Contract.Dispatcher1.declareScenes,
                [Contract.Declaration(id: "main", kind: .windowGroup, matching: matching).structure])
        }
        #expect(declared?.name.rawValue == "io.waypost.Error.BudgetExceeded")
        // A 1 MiB activity target.
        let target = String(repeating: "t", count: 1 << 20)
        let activity = await DeliveryTests.failure {
            try await hostile.call(
                Contract.Dispatcher1.setCurrentActivity, "a", "org.example.thing", ["target-content-identifier": Variant.string(target)])
        }
        #expect(activity?.name.rawValue == "io.waypost.Error.BudgetExceeded")
        #expect(activity?.message.contains("1048576") == true, "\(String(describing: activity))")

        // The neighbour is served, and the hostile app's accepted scenes still route.
        let bus = try await session.connect()
        #expect(try await session.open("neighbour://x", with: bus)["scene-id"] == "n")
        #expect(try await session.open("hostile://x", with: bus)["app-id"] == "org.example.Hostile")
    }

    @Test("a change over the app's change rate is held, not refused: other apps are served meanwhile, then it is made")
    func heldChange() async throws {
        let session = try await PeerDesktop()
        defer { session.close() }
        let churn = try await CountingApp(session, id: "org.example.Churn", behaviour: .acknowledge)
        try await churn.openScene("a")
        let neighbour = try await CountingApp(session, id: "org.example.Neighbour", behaviour: .acknowledge)
        try await neighbour.openScene("n")
        let bus = try await session.connect()

        // 17 changes of ~60 KiB spend the 1 MiB burst; each change of ~60 KiB after them is then
        // about 0.9 s ahead of the rate (under the 1 s that would make it Busy).
        let filler = (0..<15).map { "\($0)-" + String(repeating: "f", count: 4000) }
        func change(_ preferring: [String]) async throws {
            try await churn.call(Contract.Dispatcher1.setExternalEvents, "a", [Contract.Modifier(preferring: preferring, allowing: ["*"]).structure])
        }
        for round in 0..<17 { try await change(filler.map { "\(round)/\($0)" }) }
        #expect(try await session.open("churn://held", with: bus)["rule"] == "allowing")
        // Another app is served while a change waits: the daemon logs each wait as it begins, so a
        // wait of a good part of a second is known to be under way before the neighbour's link is
        // sent. Two changes sent just before it, unanswered, are made one after the other in the
        // daemon (one connection's calls take turns), so the bucket is empty when it comes,
        // however slow the round trips; should the neighbour's link still take longer than the
        // wait (a loaded machine), it is tried again, up to ten times.
        var servedDuringAWait = false
        for round in 17..<27 where !servedDuringAWait {
            let waitsBefore = Self.waits(in: session.busLog).count
            for name in ["a", "b"] {
                try churn.bus.send(
                    destination: Contract.busName, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
                    member: Contract.Dispatcher1.setExternalEvents.name, "a",
                    [Contract.Modifier(preferring: filler.map { "\(round)\(name)/\($0)" }, allowing: ["*"]).structure])
            }
            let made = Mutex(false)
            let held = Task {
                try await change(["churn://held"] + filler.map { "\(round)/\($0)" })
                made.withLock { $0 = true }
            }
            var wait: Int?
            try await waitUntil("the daemon logs the change's wait, or makes it", context: session.busLog) {
                wait = Self.waits(in: session.busLog).dropFirst(waitsBefore).first
                return wait != nil || made.withLock { $0 }
            }
            if let wait, wait >= 300 {
                #expect(try await session.open("neighbour://\(round)", with: bus)["scene-id"] == "n")
                servedDuringAWait = !made.withLock { $0 }
            }
            try await held.value  // not Busy: held, then made
        }
        #expect(servedDuringAWait, "no change over the rate waited while another app's link was served: \(Self.waits(in: session.busLog))")
        #expect(try await session.open("churn://held", with: bus)["rule"] == "preferring")
    }

    /// The waits the daemon logged for changes over an app's rate, in milliseconds, in order.
    static func waits(in log: String) -> [Int] {
        log.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "bytes a second: a change waits ") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
    }
}
