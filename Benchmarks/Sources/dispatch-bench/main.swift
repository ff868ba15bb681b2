// dispatch-bench: the dispatcher end to end, on a private bus, beside the same hops made in C.
//
//   dispatch-bench                          run everything and print the figures
//   dispatch-bench app ADDRESS FIRST COUNT  (internal) a participating app process with COUNT scenes
//   dispatch-bench opens ADDRESS COUNT      (internal) COUNT sequential Opens from this process
//
// Needs a release `waypost` (WAYPOST=path, default ../.build/release/waypost; `make bench-dispatch`
// builds it statically linked). The C yardsticks are Benchmarks/yardsticks' `echo-server` as app and
// as a router (two hops, the shape of client → dispatcher → app) and `call-client` for the calls, and
// `dbus-send` (libdbus, C) for a whole client process.
import BenchSupport
import DBus
import Foundation
import WaypostContract

let appID = "bench.App"
let appPath: ObjectPath = "/bench/App"
let dispatcher = Contract.busName
let dispatcherPath = Contract.objectPath
let dispatcherInterface = Contract.Dispatcher1.interface
let conditionsPerScene = 4

/// A link of about 120 characters that one scene (`scene-<target>`) prefers.
func link(preferredBy target: Int) -> String {
    "bench://items/show?item=item-\(target)-2&source=benchmark&campaign=dispatcher-round-trip&padding=abcdefghijklmnopqrstuvwxyz0123"
}

// MARK: The participating app (child process, so the daemon's program check sees this executable)

func serveApp(address: String, first: Int, count: Int) async throws -> Never {
    let connection = try await Connection(address: address)
    // Acknowledgements answered at once, as WaypostKit answers them.
    let ok: @Sendable (MethodCall) throws -> Reply = { call in try call.reply() }
    try connection.export(appPath, interfaces: [
        Interface(Contract.Application1.interface, methods: [
            Contract.Application1.openURL.exportedAnsweringAtOnce(ok),
            Contract.Application1.continueUserActivity.exportedAnsweringAtOnce(ok),
            Contract.Application1.createScene.exported { call in try call.reply("created") },
        ])
    ], executor: connection.executor)  // answered on the connection's thread, like the C echo-server
    func callDispatcher<each A: BusValue>(_ member: Contract.Member, _ arguments: repeat each A) async throws {
        _ = try await connection.call(destination: dispatcher, path: dispatcherPath, interface: dispatcherInterface,
                                      member: member.name, repeat each arguments)
    }
    try await callDispatcher(Contract.Dispatcher1.registerApplication, appID, appPath, [String: Variant]())
    let items = Contract.Declaration(id: "items", kind: .windowGroup)
    try await callDispatcher(Contract.Dispatcher1.declareScenes, [items.structure])
    for index in first..<(first + count) {
        let scene = "scene-\(index)"
        try await callDispatcher(Contract.Dispatcher1.addScene, scene, items.id)
        let preferring = (0..<conditionsPerScene).map { "item-\(index)-\($0)&" }
        let modifier = Contract.Modifier(preferring: preferring, allowing: [])
        try await callDispatcher(Contract.Dispatcher1.setExternalEvents, scene, [modifier.structure])
    }
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    _ = try await connection.waitUntilClosed()
    exit(0)
}

// MARK: Measuring

/// Sequential opens, awaited on the connection's thread (no thread hop, like a C client's loop).
func opens(_ connection: Connection, count: Int, target: Int) async throws -> Latency {
    try await withTaskExecutorPreference(connection.executor) {
        try await sequentialOpens(connection, count: count, target: target)
    }
}

func sequentialOpens(_ connection: Connection, count: Int, target: Int) async throws -> Latency {
    var samples: [Double] = []
    samples.reserveCapacity(count)
    let uri = link(preferredBy: target)
    for _ in 0..<count {
        let start = ContinuousClock.now
        let reply = try await connection.call(
            destination: dispatcher, path: dispatcherPath, interface: dispatcherInterface, member: Contract.Dispatcher1.open.name,
            uri, [String: Variant]())
        samples.append((ContinuousClock.now - start).microseconds)
        _ = reply
    }
    return Latency(samples: samples)
}

/// Opens per second from `clients` connections, each keeping `window` opens in flight.
func openThroughput(address: String, clients: Int, window: Int, seconds: Double, scenes: Int) async throws -> Double {
    var connections: [Connection] = []
    for _ in 0..<clients { connections.append(try await Connection(address: address)) }
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    let started = ContinuousClock.now
    let total = try await withThrowingTaskGroup(of: Int.self) { group in
        for (client, connection) in connections.enumerated() {
            for lane in 0..<window {
                group.addTask(executorPreference: connection.executor) {
                    var done = 0
                    var target = client * 97 + lane * 13
                    while ContinuousClock.now < deadline {
                        target = (target + 101) % scenes
                        _ = try await connection.call(
                            destination: dispatcher, path: dispatcherPath, interface: dispatcherInterface, member: Contract.Dispatcher1.open.name,
                            link(preferredBy: target), [String: Variant]())
                        done += 1
                    }
                    return done
                }
            }
        }
        return try await group.reduce(0, +)
    }
    for connection in connections { connection.close() }
    return Double(total) / ((ContinuousClock.now - started) / .seconds(1))
}

/// Wall time of whole processes, spawn to exit, interleaving the commands so noise hits all alike,
/// and the CPU each run cost: the process itself, then each of `servers` (the middle, the app, the bus).
func processTimes(
    _ commands: [(label: String, path: String, arguments: [String], servers: [Int32])], runs: Int,
    environment: [String: String], mustSucceed: Bool = true
) throws -> [String: (latency: Latency, cpu: [Double])] {
    var samples: [String: [Double]] = [:]
    var cpu: [String: [Double]] = [:]
    for _ in 0..<runs {
        for command in commands {
            let before = [waitedChildrenCPUMicroseconds()] + command.servers.map(cpuMicroseconds(of:))
            let (status, elapsed) = try timedRun(command.path, command.arguments, environment: environment, discardingErrors: !mustSucceed)
            let after = [waitedChildrenCPUMicroseconds()] + command.servers.map(cpuMicroseconds(of:))
            guard status == 0 || !mustSucceed else { throw BenchError("\(command.label) exited \(status)") }
            samples[command.label, default: []].append(elapsed.microseconds)
            let spent = zip(after, before).map { ($0 - $1) / Double(runs) }
            cpu[command.label] = zip(cpu[command.label] ?? spent.map { _ in 0 }, spent).map(+)
        }
    }
    return samples.reduce(into: [:]) { times, entry in times[entry.key] = (Latency(samples: entry.value), cpu[entry.key]!) }
}

/// CPU µs of the four parties to one call: the caller (named `first`), the middle, the app, the bus.
func cpuShares(_ each: [Double], first: String) -> String {
    "\(first) \(format(each[0])), middle \(format(each[1])), app \(format(each[2])), bus \(format(each[3])) (sum \(format(each.reduce(0, +))))"
}

// MARK: Driver

func main() async throws {
    let arguments = CommandLine.arguments
    if arguments.count == 5, arguments[1] == "app" {
        try await serveApp(address: arguments[2], first: Int(arguments[3])!, count: Int(arguments[4])!)
    }
    if arguments.count == 4, arguments[1] == "opens", let count = Int(arguments[3]) {
        let connection = try await Connection(address: arguments[2])
        let latency = try await opens(connection, count: count, target: 500)
        print("opens \(count) median_us \(format(latency.median))")
        exit(0)
    }
    let waypost = ProcessInfo.processInfo.environment["WAYPOST"]
        ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath).deletingLastPathComponent()
            .appendingPathComponent(".build/release/waypost").path
    guard FileManager.default.isExecutableFile(atPath: waypost) else {
        throw BenchError("no waypost at \(waypost): run `make release` first, or set WAYPOST")
    }
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("dispatch-bench-\(getpid())")
    let applications = root.appendingPathComponent("data/applications")
    try FileManager.default.createDirectory(at: applications, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: root.appendingPathComponent("config"), withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }

    // The bench app's desktop entry runs this very executable, so the daemon's program check passes.
    let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    try """
        [Desktop Entry]
        Type=Application
        Name=Bench
        Exec=\(me) app
        MimeType=x-scheme-handler/bench;
        X-Waypost=true

        """.write(to: applications.appendingPathComponent("\(appID).desktop"), atomically: true, encoding: .utf8)
    _ = try runToEnd("/usr/bin/update-desktop-database", [applications.path], address: "")
    let session = try await DispatcherSession(root: root, waypost: waypost)
    defer { session.stop() }
    let (bus, daemon, client, environment) = (session.bus, session.daemon, session.client, session.environment)
    let scenes = 1_000
    let app = try start(me, ["app", bus.address, "0", "\(scenes)"], address: bus.address, environment: environment, waitFor: "ready")
    session.adopt(app)

    let yardsticks = try Yardsticks(buildingInto: root.appendingPathComponent("yardsticks"))
    let cApp = try yardsticks.startEchoServer(address: bus.address)
    let router = try yardsticks.startEchoServer(address: bus.address, name: Yardsticks.routerName, forwardingTo: Yardsticks.echoName)
    session.adopt(cApp)
    session.adopt(router)

    let rounds = 25, perRound = 400, warmUp = 100
    print("dispatch-bench: private bus, waypost \(waypost)")
    print("app \(appID) in its own process with \(scenes) open scenes of \(conditionsPerScene) preferring conditions each; links of \(link(preferredBy: 500).count) characters")
    print("\(rounds) rounds of \(perRound) sequential calls per figure, Waypost and C interleaved within each round (which goes first alternates), each batch after \(warmUp) untimed calls")
    print("")
    _ = try await opens(client, count: 500, target: 500)
    var open = Latency(samples: [])
    var oneHop: [Double] = [], twoHops: [Double] = [], ratios: [Double] = []
    // CPU each process spends per call: client, middle, app, bus (for Waypost, then for C).
    var swiftCPU = [Double](repeating: 0, count: 4), cCPU = [Double](repeating: 0, count: 4), cCalls = 0
    let swiftProcesses = [getpid(), daemon.processIdentifier, app.processIdentifier, bus.pid]
    let cServers = [router.processIdentifier, cApp.processIdentifier, bus.pid]
    // Each side's batch starts warm (untimed calls first, as call-client makes its own), and which
    // goes first alternates from round to round, so that neither always follows the other's pause.
    func measureOpens() async throws -> Latency {
        _ = try await opens(client, count: warmUp, target: 500)
        let before = swiftProcesses.map(cpuMicroseconds(of:))
        let batch = try await opens(client, count: perRound, target: 500)
        for (index, pid) in swiftProcesses.enumerated() { swiftCPU[index] += cpuMicroseconds(of: pid) - before[index] }
        return batch
    }
    func measureTwoHops() throws -> Double {
        let before = [waitedChildrenCPUMicroseconds()] + cServers.map(cpuMicroseconds(of:))
        let mean = try yardsticks.meanMicroseconds(
            calls: perRound, to: Yardsticks.routerName, method: "Route", warmUp: warmUp, address: bus.address)
        let after = [waitedChildrenCPUMicroseconds()] + cServers.map(cpuMicroseconds(of:))
        for index in 0..<4 { cCPU[index] += after[index] - before[index] }
        cCalls += perRound + warmUp  // the CPU figures include call-client's untimed calls
        return mean
    }
    for round in 0..<rounds {
        let batch: Latency, c: Double
        if round.isMultiple(of: 2) {
            batch = try await measureOpens()
            c = try measureTwoHops()
        } else {
            c = try measureTwoHops()
            batch = try await measureOpens()
        }
        open.samples += batch.samples
        twoHops.append(c)
        oneHop.append(try yardsticks.meanMicroseconds(calls: perRound, address: bus.address))
        ratios.append(batch.mean / c)
    }
    print("Open → app acknowledged (Swift client, in process)  median \(format(open.median)) µs  p99 \(format(open.p99)) µs  mean \(format(open.mean)) µs  (\(rounds * perRound) sequential)")
    print("C libdbus: one method call            mean \(format(median(oneHop))) µs   (call-client → echo-server; median of the rounds' means)")
    print("C libdbus: two hops through a router  mean \(format(median(twoHops))) µs   (call-client → router → echo-server; median of the rounds' means)")
    print("ratio Open / C two hops: \(String(format: "%.2f", median(ratios)))x   (median of rounds: \(ratios.map { String(format: "%.2f", $0) }.joined(separator: " ")))   target ≤ 1.30x")
    print("ratio Open / C one call: \(String(format: "%.2f", open.mean / median(oneHop)))x")
    func cpu(_ totals: [Double], per calls: Int) -> String {
        cpuShares(totals.map { $0 / Double(calls) }, first: "client")
    }
    print("CPU µs per Open (Waypost):        " + cpu(swiftCPU, per: rounds * perRound))
    print("CPU µs per two-hop call (C):      " + cpu(cCPU, per: cCalls) + "   (C client includes connecting)")
    print("")
    let four = try await openThroughput(address: bus.address, clients: 4, window: 8, seconds: 3, scenes: scenes)
    let sequentialFour = try await openThroughput(address: bus.address, clients: 4, window: 1, seconds: 3, scenes: scenes)
    print("sustained Open from 4 clients, \(scenes) scenes: \(Int(four)) opens/s with 8 in flight each, \(Int(sequentialFour)) opens/s one at a time   target > 10,000/s")

    print("")
    let commands: [(label: String, path: String, arguments: [String], servers: [Int32])] =
        [("waypost open", waypost, ["open", link(preferredBy: 250)], [daemon.processIdentifier, app.processIdentifier, bus.pid])]
        + [("dbus-send (C) two hops", "/usr/bin/dbus-send",
            ["--session", "--print-reply", "--dest=\(Yardsticks.routerName)", Yardsticks.path, "\(Yardsticks.interface).Route", "string:\(Yardsticks.argument)"],
            [router.processIdentifier, cApp.processIdentifier, bus.pid])]
    let processes = try processTimes(commands, runs: 200, environment: environment)
    let whole = processes["waypost open"]!
    func cpu(_ each: [Double]) -> String { cpuShares(each, first: "process") }
    print("`waypost open URI` as a process, spawn to exit after the app acknowledged: median \(format(whole.latency.median)) µs  p99 \(format(whole.latency.p99)) µs")
    if let c = processes["dbus-send (C) two hops"] {
        print("`dbus-send` (libdbus C client process) two hops through the C router:   median \(format(c.latency.median)) µs  p99 \(format(c.latency.p99)) µs")
        print("ratio waypost open / C client process (medians): \(String(format: "%.2f", whole.latency.median / c.latency.median))x")
        print("CPU µs per run, waypost open:  " + cpu(whole.cpu))
        print("CPU µs per run, dbus-send:     " + cpu(c.cpu))
        // Start-up alone: with no bus to reach both fail at once, so what is left is starting.
        var noBus = environment
        noBus["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent"
        let started = try processTimes(
            [("waypost", waypost, ["open", "bench://none"], []),
             ("dbus-send", "/usr/bin/dbus-send", ["--session", "--print-reply", "--dest=a.b", "/a", "a.b.c"], [])],
            runs: 200, environment: noBus, mustSucceed: false)
        let (swiftStart, cStart) = (started["waypost"]!.latency.median, started["dbus-send"]!.latency.median)
        print("start-up alone (no bus, both exit at once): waypost open median \(format(swiftStart)) µs, dbus-send \(format(cStart)) µs:"
            + " \(format(swiftStart - cStart)) of the \(format(whole.latency.median - c.latency.median)) µs between them above")
    }

    print("")
    let daemonPID = "\(daemon.processIdentifier)"
    let rssAtThousand = residentKiB(of: daemonPID)
    session.adopt(try start(me, ["app", bus.address, "\(scenes)", "\(10_000 - scenes)"], address: bus.address, environment: environment, waitFor: "ready"))
    _ = try await opens(client, count: 2_000, target: 7_777)
    let tenThousand = try await opens(client, count: 2_000, target: 7_777)
    let rssAtTenThousand = residentKiB(of: daemonPID)
    let anonymous = statusKiB("RssAnon", of: daemonPID), fileBacked = statusKiB("RssFile", of: daemonPID)
    print("daemon RSS: \(rssAtThousand / 1024) MiB with \(scenes) scenes, \(rssAtTenThousand / 1024) MiB with 10,000 scenes (\(rssAtTenThousand) KiB)   target < 30 MB")
    print("  of which anonymous (heap, stacks) \(anonymous / 1024) MiB, file-backed (code and data of the executable and libraries) \(fileBacked / 1024) MiB")
    print("Open with 10,000 scenes over 2 processes: median \(format(tenThousand.median)) µs  p99 \(format(tenThousand.p99)) µs")
    client.close()
}


try await main()
