// A notification click (the server's ActionInvoked) → the app's scene, beside ContinueActivity of the
// same target to the same scene (what `waypost continue` sends), and beside `waypost continue` itself
// as a process. The release binary `make install` installs, on a private bus; the bench process is
// the app (its entry runs it) and the notification server (it owns org.freedesktop.Notifications).
import BenchSupport
import DBus
import Foundation
import Synchronization
import WaypostContract

let dispatcher: BusName = "io.waypost.Dispatcher"
let appID = "io.waypost.bench.Mail"
let activityType = "io.waypost.bench.show"
let target = "conversation/42"
let serverName: BusName = "org.freedesktop.Notifications"
let serverPath: ObjectPath = "/org/freedesktop/Notifications"
let serverInterface: InterfaceName = "org.freedesktop.Notifications"

/// When the app's scene received each event, in order.
let (receipts, receipt) = AsyncStream.makeStream(of: (member: String, at: ContinuousClock.Instant).self)
/// The id of the last notification the server was given, and who posted it.
let shown = Mutex<(id: UInt32, poster: BusName?)>((0, nil))

/// The app's side: every event acknowledged at once, its arrival noted.
func appInterface() -> Interface {
    typealias Members = Contract.Application1
    return Interface(Members.interface, methods: [
        Members.receiveNotificationResponse.exported { call in
            receipt.yield(("ReceiveNotificationResponse", .now))
            return try call.reply()
        },
        Members.continueUserActivity.exported { call in
            receipt.yield(("ContinueUserActivity", .now))
            return try call.reply()
        },
        Members.openURL.exported { call in try call.reply() },
        Members.createScene.exported { call in
            throw BusError(Contract.Failure.noHandler.errorName, "the bench opens no scenes: \(call.member)")
        },
    ])
}

/// The notification server's side: Notify answers a new id, as a real server does.
func notificationServer() -> Interface {
    Interface(serverInterface, methods: [
        Method("Notify", arguments: [
            Argument("app_name", "s"), Argument("replaces_id", "u"), Argument("app_icon", "s"), Argument("summary", "s"),
            Argument("body", "s"), Argument("actions", "as"), Argument("hints", "a{sv}"), Argument("expire_timeout", "i"),
        ], returns: [Argument("id", "u")]) { call in
            let id = shown.withLock { shown in
                shown = (shown.id + 1, call.sender)
                return shown.id
            }
            return try call.reply(id)
        },
        Method("CloseNotification", arguments: [Argument("id", "u")]) { call in try call.reply() },
        Method("GetCapabilities", returns: [Argument("capabilities", "as")]) { call in try call.reply(["actions", "body"]) },
    ])
}

func call<each A: BusValue>(_ bus: Connection, _ member: Contract.Member, _ arguments: repeat each A) async throws -> Message {
    try await bus.call(
        destination: dispatcher, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
        member: member.name, repeat each arguments, timeout: .seconds(60))
}

func main() async throws {
    let waypost = ProcessInfo.processInfo.environment["WAYPOST"]
        ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath).deletingLastPathComponent()
            .appendingPathComponent(".build/release/waypost").path
    guard FileManager.default.isExecutableFile(atPath: waypost) else {
        throw BenchError("no waypost at \(waypost): run `make release` first, or set WAYPOST")
    }
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("notify-bench-\(getpid())")
    let applications = root.appendingPathComponent("data/applications")
    for directory in [applications, root.appendingPathComponent("config"), root.appendingPathComponent("home")] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }
    defer { try? FileManager.default.removeItem(at: root) }
    let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    try """
        [Desktop Entry]
        Type=Application
        Name=Bench Mail
        Exec=\(me)
        X-Waypost=true
        X-Waypost-Activity-Types=\(activityType);

        """.write(to: applications.appendingPathComponent("\(appID).desktop"), atomically: true, encoding: .utf8)
    let session = try await DispatcherSession(root: root, waypost: waypost, more: [
        "HOME": root.appendingPathComponent("home").path, "XDG_STATE_HOME": root.appendingPathComponent("state").path,
    ])
    defer { session.stop() }

    let server = try await Connection(address: session.bus.address)
    try server.export(serverPath, interfaces: [notificationServer()])
    guard try await server.requestName(serverName, flags: [.doNotQueue]) == .primaryOwner else {
        throw BenchError("cannot own \(serverName)")
    }
    let app = try await Connection(address: session.bus.address)
    try app.export("/app", interfaces: [appInterface()])
    _ = try await call(app, Contract.Dispatcher1.registerApplication, appID, ObjectPath("/app"), [String: Variant]())
    _ = try await call(app, Contract.Dispatcher1.declareScenes, [Contract.Declaration(id: "main", kind: .windowGroup).structure])
    _ = try await call(app, Contract.Dispatcher1.addScene, "inbox", "main")
    _ = try await call(app, Contract.Dispatcher1.setExternalEvents, "inbox", [Structure(([String](), ["*"]))])
    _ = try await call(app, Contract.Dispatcher1.addScene, "conversation", "main")
    _ = try await call(app, Contract.Dispatcher1.setExternalEvents, "conversation", [Structure(([target], [String]()))])
    // The inbox was focused last: only the target takes the event to the conversation's scene.
    _ = try await call(app, Contract.Dispatcher1.activateScene, "inbox")
    let opener = session.client
    var arrivals = receipts.makeAsyncIterator()
    func arrival(_ member: String) async throws -> ContinuousClock.Instant {
        guard let next = await arrivals.next() else { throw BenchError("the app stopped receiving") }
        guard next.member == member else { throw BenchError("the app received \(next.member), not \(member)") }
        return next.at
    }
    let content = Contract.NotificationContent(
        title: "Judy wrote", body: "About Friday", targetContentIdentifier: target, userInfo: ["message": .string("m-7")]
    ).variants
    let activity = Contract.ActivityDetails(targetContentIdentifier: target, userInfo: ["message": .string("m-7")]).variants

    /// One click: the server says the user clicked; until the scene has it.
    func click(_ n: Int) async throws -> Double {
        _ = try await call(app, Contract.Dispatcher1.postNotification, "n\(n)", content)
        let (id, poster) = shown.withLock { $0 }
        guard let poster else { throw BenchError("the daemon posted nothing") }
        let start = ContinuousClock.now
        try server.emit(path: serverPath, interface: serverInterface, member: "ActionInvoked", id, "default", destination: poster)
        return (try await arrival("ReceiveNotificationResponse") - start).microseconds
    }
    /// ContinueActivity of the same target, until the scene has it.
    func continued() async throws -> Double {
        let start = ContinuousClock.now
        async let reply = call(opener, Contract.Dispatcher1.continueActivity, activityType, activity, [String: Variant]())
        let at = try await arrival("ContinueUserActivity")
        _ = try await reply
        return (at - start).microseconds
    }
    /// `waypost continue` as a process, until the scene has it.
    func continuedByCommand() async throws -> Double {
        let start = ContinuousClock.now
        let process = Process()
        process.executableURL = URL(fileURLWithPath: waypost)
        process.arguments = ["continue", activityType, "--target", target]
        process.environment = session.environment
        try process.run()
        let at = try await arrival("ContinueUserActivity")
        process.waitUntilExit()
        return (at - start).microseconds
    }

    print("notify-bench: private bus, waypost \(waypost)")
    for n in 0..<100 { _ = try await click(-n - 1); _ = try await continued() }  // warm-up
    let rounds = 5, perRound = 400, commands = 40
    var clicks: [Double] = [], calls: [Double] = [], processes: [Double] = []
    var ratios: [Double] = [], commandRatios: [Double] = []
    for round in 0..<rounds {
        var roundClicks: [Double] = [], roundCalls: [Double] = [], roundProcesses: [Double] = []
        for index in 0..<perRound {
            roundClicks.append(try await click(round * perRound + index))
            roundCalls.append(try await continued())
            if index % (perRound / commands) == 0 { roundProcesses.append(try await continuedByCommand()) }
        }
        clicks += roundClicks
        calls += roundCalls
        processes += roundProcesses
        ratios.append(median(roundClicks) / median(roundCalls))
        commandRatios.append(median(roundClicks) / median(roundProcesses))
    }
    let click = Latency(samples: clicks), continuation = Latency(samples: calls), command = Latency(samples: processes)
    print("to the scene (\(rounds) rounds of \(perRound) clicks and ContinueActivity calls, interleaved, and \(commands) `waypost continue` runs), median / p99 µs:")
    print("  notification click (ActionInvoked → scene)          \(format(click.median)) / \(format(click.p99))")
    print("  ContinueActivity, same target, same scene            \(format(continuation.median)) / \(format(continuation.p99))")
    print("  `waypost continue`, same target, same scene (process) \(format(command.median)) / \(format(command.p99))")
    print("  click / ContinueActivity, median of rounds:      \(String(format: "%.2f", median(ratios)))×  (target ≤ 1.1×)")
    print("  click / `waypost continue`, median of rounds:    \(String(format: "%.2f", median(commandRatios)))×")
}

try await main()
exit(0)
