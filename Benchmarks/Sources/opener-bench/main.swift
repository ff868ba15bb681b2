// opener-bench: what finding the opener of each event costs, two ways:
//
//   walk   in process: `OpenerSearch.opener` from a pid up its ancestors against the installed
//          programs (this machine's entries), each process read as the daemon reads it —
//          from this process (no app above it: the whole chain to init is read, the worst case)
//          and from the bench app's process (an app at once); and one whole record (registration's
//          read: arguments and all) of the app's process
//   owned  Open("https://bench.example/item/1") to the daemon: the app owns the link (its entry
//          claims bench.example, the installed association names it), so routing waits for the
//          opener (the self-loop guard) before delivering to the app's scene
//   scheme Open("bench://item/1"): the same app, the same scene, by its x-scheme-handler; nothing
//          waits for the opener (the yardstick)
//   pid    GetConnectionUnixProcessID on the bus: the first step of every lookup
//
// Both links are sent three times over: on one connection (the daemon keeps a connection's
// opener, so after the first link that is an app sending links over its own connection); each on a
// new connection of this process (as `gio open` and `waypost open` connect anew; connecting is not
// timed; this process and its ancestors are the same each time, so the daemon knows them after the
// first walk); and each from a fresh process (a click: a chat app, bench.Chat, spawns a new child
// for every link, as an app runs `gio open`; the child connects untimed, times its Open and exits),
// so that the daemon meets a process it never saw, whose parent is an app. Interleaved call by
// call; the added latency is owned − scheme.
//
//   WAYPOST=/abs/release/waypost opener-bench [ROUNDS]
//   opener-bench app ADDRESS     (internal) the participating app process
//   opener-bench chat ADDRESS    (internal) the chat app: spawns `opener-bench open` per line of stdin
//   opener-bench open ADDRESS URI (internal) one Open on a new connection: prints its µs
import BenchSupport
import DBus
import Desktop
import Foundation
import WaypostContract

let appID = "bench.Opener"
let appPath: ObjectPath = "/bench/Opener"
let dispatcher = Contract.busName

func serveApp(address: String) async throws -> Never {
    let connection = try await Connection(address: address)
    try connection.export(appPath, interfaces: [
        Interface(Contract.Application1.interface, methods: [
            Contract.Application1.openURL.exported { call in try call.reply() },
            Contract.Application1.continueUserActivity.exported { call in try call.reply() },
            Contract.Application1.createScene.exported { call in try call.reply("created") },
        ])
    ], executor: connection.executor)
    func callDispatcher<each A: BusValue>(_ member: Contract.Member, _ arguments: repeat each A) async throws {
        _ = try await connection.call(destination: dispatcher, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
                                      member: member.name, repeat each arguments)
    }
    try await callDispatcher(Contract.Dispatcher1.registerApplication, appID, appPath, [String: Variant]())
    let main = Contract.Declaration(id: "main", kind: .windowGroup)
    try await callDispatcher(Contract.Dispatcher1.declareScenes, [main.structure])
    try await callDispatcher(Contract.Dispatcher1.addScene, "main", main.id)
    try await callDispatcher(Contract.Dispatcher1.setExternalEvents, "main", [Contract.Modifier(preferring: [], allowing: ["*"]).structure])
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    _ = try await connection.waitUntilClosed()
    exit(0)
}

/// The chat app: for each URI on stdin, a new child process sends it; its answer line is passed on.
func serveChat(address: String, child: String) throws -> Never {
    while let uri = readLine() {
        let output = try runToEnd(child, ["open", address, uri], address: address)
        let line = output.split(separator: "\n").last.map(String.init) ?? "failed: no output"
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
    exit(0)
}

/// One Open on a connection of its own, timed from the call to the reply; prints the µs.
func openOnce(address: String, uri: String) async throws -> Never {
    let connection = try await Connection(address: address)
    let start = ContinuousClock.now
    let reply = try await connection.call(
        destination: dispatcher, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
        member: Contract.Dispatcher1.open.name, uri, [String: Variant]())
    let took = (ContinuousClock.now - start).microseconds
    let outcome = try reply.decode([String: Variant].self)
    guard (try? outcome["app-id"]?.decode(as: String.self)) == appID else { print("failed: \(uri) did not reach the app: \(outcome)"); exit(1) }
    print("us=\(took)")
    exit(0)
}

func format(_ value: Double) -> String { String(format: value < 10 ? "%.2f" : "%.1f", value) }

/// The walk from `pid`, timed `count` times (µs each), and what it found.
/// With `known`, processes are kept between walks as the daemon keeps them (`KnownProcesses`).
func walks(from pid: Int32, _ programs: InstalledPrograms, count: Int, known: KnownProcesses? = nil) -> (Latency, Opener) {
    var samples: [Double] = []
    var found: Opener = .unknown(reason: "not run")
    for _ in 0..<count {
        let start = ContinuousClock.now
        found = OpenerSearch.opener(
            caller: pid, askedAt: RunningProgram.bootTicksNow(), programs: programs,
            read: { known?.record(ofProcess: $0, against: programs) ?? RunningProgram.record(ofProcess: $0, against: programs) },
            currentParent: { known?.currentParent(of: $0) ?? $0.parent })
        samples.append((ContinuousClock.now - start).microseconds)
    }
    return (Latency(samples: samples), found)
}

/// One whole record of `pid` (registration's read), timed `count` times (µs each).
func wholeRecords(of pid: Int32, count: Int) -> Latency {
    var samples: [Double] = []
    for _ in 0..<count {
        let start = ContinuousClock.now
        _ = RunningProgram.record(ofProcess: pid)
        samples.append((ContinuousClock.now - start).microseconds)
    }
    return Latency(samples: samples)
}

func main() async throws {
    let arguments = CommandLine.arguments
    if arguments.count == 3, arguments[1] == "app" { try await serveApp(address: arguments[2]) }
    if arguments.count == 4, arguments[1] == "chat" { try serveChat(address: arguments[2], child: arguments[3]) }
    if arguments.count == 4, arguments[1] == "open" { try await openOnce(address: arguments[2], uri: arguments[3]) }
    let rounds = arguments.count > 1 ? Int(arguments[1]) ?? 5 : 5
    let waypost = ProcessInfo.processInfo.environment["WAYPOST"]
        ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath).deletingLastPathComponent()
            .appendingPathComponent(".build/release/waypost").path
    guard FileManager.default.isExecutableFile(atPath: waypost) else {
        throw BenchError("no waypost at \(waypost): run `make release` first, or set WAYPOST")
    }
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("opener-bench-\(getpid())")
    let applications = root.appendingPathComponent("data/applications")
    let associations = root.appendingPathComponent("data/waypost/associations")
    try FileManager.default.createDirectory(at: applications, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: associations, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: root.appendingPathComponent("config"), withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }

    // The app runs a copy of this executable: this process, the client, is then no process of the
    // app (else the self-loop guard would send the owned link to a browser), and its walk reads
    // its whole chain of ancestors.
    let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    let appProgram = root.appendingPathComponent("opener-bench-app").path
    try FileManager.default.copyItem(atPath: me, toPath: appProgram)
    try """
        [Desktop Entry]
        Type=Application
        Name=Opener bench
        Exec=\(appProgram) app
        MimeType=x-scheme-handler/bench;
        X-Waypost=true
        X-Waypost-Associated-Domains=bench.example;

        """.write(to: applications.appendingPathComponent("\(appID).desktop"), atomically: true, encoding: .utf8)
    // The chat app, which opens links through a fresh child each time (a copy too, so that the
    // child, running this executable, is no process of it).
    let chatProgram = root.appendingPathComponent("opener-bench-chat").path
    try FileManager.default.copyItem(atPath: me, toPath: chatProgram)
    try """
        [Desktop Entry]
        Type=Application
        Name=Opener bench chat
        Exec=\(chatProgram) chat %u

        """.write(to: applications.appendingPathComponent("bench.Chat.desktop"), atomically: true, encoding: .utf8)
    try #"{"applinks": {"details": [{"appIDs": ["bench.Opener"], "components": [{"/": "/item/*"}]}]}}"#
        .write(to: associations.appendingPathComponent("bench.example.json"), atomically: true, encoding: .utf8)
    _ = try runToEnd("/usr/bin/update-desktop-database", [applications.path], address: "")
    let session = try await DispatcherSession(root: root, waypost: waypost)
    defer { session.stop() }
    let (bus, client, environment) = (session.bus, session.client, session.environment)
    let app = try start(appProgram, ["app", bus.address], address: bus.address, environment: environment, waitFor: "ready")
    session.adopt(app)

    // The walk, in process, against the entries the daemon sees (this machine's and the app's).
    for key in ["XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_DATA_DIRS"] { setenv(key, environment[key]!, 1) }
    let programs = try ApplicationCatalog().installedPrograms()
    _ = walks(from: getpid(), programs, count: 200)
    let (fromHere, hereOpener) = walks(from: getpid(), programs, count: 5_000)
    let (fromApp, appOpener) = walks(from: app.processIdentifier, programs, count: 5_000)
    let whole = wholeRecords(of: app.processIdentifier, count: 5_000)
    let known = KnownProcesses()
    let (fromHereKnown, _) = walks(from: getpid(), programs, count: 5_000, known: known)
    let (fromAppKnown, _) = walks(from: app.processIdentifier, programs, count: 5_000, known: known)
    var depth = 0, pid = getpid()
    while pid > 1, case .success(let record) = RunningProgram.record(ofProcess: pid), depth < OpenerSearch.maximumDepth {
        depth += 1
        pid = record.parent
    }

    // Over the bus, interleaved call by call, on the client connection's thread.
    func open(_ uri: String, on client: Connection = client) async throws -> Double {
        let start = ContinuousClock.now
        let reply = try await client.call(
            destination: dispatcher, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
            member: Contract.Dispatcher1.open.name, uri, [String: Variant]())
        let outcome = try reply.decode([String: Variant].self)
        guard (try? outcome["app-id"]?.decode(as: String.self)) == appID else { throw BenchError("\(uri) did not reach the app: \(outcome)") }
        return (ContinuousClock.now - start).microseconds
    }
    let ownName = client.uniqueName
    func pidRoundTrip() async throws -> Double {
        let start = ContinuousClock.now
        _ = try await client.processID(of: ownName)
        return (ContinuousClock.now - start).microseconds
    }
    let perRound = 2_000
    var owned: [Double] = [], scheme: [Double] = [], pids: [Double] = [], added: [Double] = []
    try await withTaskExecutorPreference(client.executor) {
        for _ in 0..<500 {
            _ = try await open("https://bench.example/item/1")
            _ = try await open("bench://item/1")
        }
        for _ in 0..<rounds {
            var o: [Double] = [], s: [Double] = []
            for _ in 0..<perRound {
                o.append(try await open("https://bench.example/item/1"))
                s.append(try await open("bench://item/1"))
                pids.append(try await pidRoundTrip())
            }
            owned += o
            scheme += s
            added.append(Latency(samples: o).median - Latency(samples: s).median)
        }
    }
    // Each link on a connection of its own, opened and closed untimed.
    func openAlone(_ uri: String) async throws -> Double {
        let alone = try await Connection(address: bus.address)
        defer { alone.close() }
        return try await open(uri, on: alone)
    }
    let alonePerRound = 200
    var ownedAlone: [Double] = [], schemeAlone: [Double] = [], addedAlone: [Double] = []
    for _ in 0..<20 {
        _ = try await openAlone("https://bench.example/item/1")
        _ = try await openAlone("bench://item/1")
    }
    for _ in 0..<rounds {
        var o: [Double] = [], s: [Double] = []
        for _ in 0..<alonePerRound {
            o.append(try await openAlone("https://bench.example/item/1"))
            s.append(try await openAlone("bench://item/1"))
        }
        ownedAlone += o
        schemeAlone += s
        addedAlone.append(Latency(samples: o).median - Latency(samples: s).median)
    }
    // Each link from a fresh child of the chat app (spawning and connecting not timed).
    let chat = Process()
    chat.executableURL = URL(fileURLWithPath: chatProgram)
    chat.arguments = ["chat", bus.address, me]
    chat.environment = environment
    let toChat = Pipe(), fromChat = Pipe()
    (chat.standardInput, chat.standardOutput) = (toChat, fromChat)
    try chat.run()
    session.adopt(chat)
    var chatOutput = Data()
    func openFromChild(_ uri: String) throws -> Double {
        toChat.fileHandleForWriting.write(Data((uri + "\n").utf8))
        while !chatOutput.contains(UInt8(ascii: "\n")) {
            let chunk = fromChat.fileHandleForReading.availableData
            if chunk.isEmpty { throw BenchError("the chat app exited") }
            chatOutput.append(chunk)
        }
        let end = chatOutput.firstIndex(of: UInt8(ascii: "\n"))!
        let line = String(decoding: chatOutput[chatOutput.startIndex..<end], as: UTF8.self)
        chatOutput = Data(chatOutput[chatOutput.index(after: end)...])
        guard let took = field("us", in: line) else { throw BenchError("a child of the chat app: \(line)") }
        return took
    }
    let childPerRound = 200
    var ownedChild: [Double] = [], schemeChild: [Double] = [], addedChild: [Double] = []
    for _ in 0..<10 {
        _ = try openFromChild("https://bench.example/item/1")
        _ = try openFromChild("bench://item/1")
    }
    for _ in 0..<rounds {
        var o: [Double] = [], s: [Double] = []
        for _ in 0..<childPerRound {
            o.append(try openFromChild("https://bench.example/item/1"))
            s.append(try openFromChild("bench://item/1"))
        }
        ownedChild += o
        schemeChild += s
        addedChild.append(Latency(samples: o).median - Latency(samples: s).median)
    }
    toChat.fileHandleForWriting.closeFile()

    let ownedLatency = Latency(samples: owned), schemeLatency = Latency(samples: scheme), pidLatency = Latency(samples: pids)
    let ownedAloneLatency = Latency(samples: ownedAlone), schemeAloneLatency = Latency(samples: schemeAlone)
    print("opener-bench: \(rounds) rounds × \(perRound) interleaved calls each; walk 5,000 times from each pid")
    print("walk from this process (\(depth) processes up to init, no app: \(hereOpener.label)): median \(format(fromHere.median)) µs  p99 \(format(fromHere.p99)) µs")
    print("walk from the app's process (found at once: \(appOpener.label)): median \(format(fromApp.median)) µs  p99 \(format(fromApp.p99)) µs")
    print("the same two walks with the processes kept from the walk before (KnownProcesses): median \(format(fromHereKnown.median)) / \(format(fromAppKnown.median)) µs  p99 \(format(fromHereKnown.p99)) / \(format(fromAppKnown.p99)) µs")
    print("one whole record of the app's process (registration's read): median \(format(whole.median)) µs  p99 \(format(whole.p99)) µs")
    print("installed entries with a program: \(programs.signatures.count)")
    print("one connection (\(rounds) rounds × \(perRound) pairs):")
    print("Open owned https (waits for the opener): median \(format(ownedLatency.median)) µs  p99 \(format(ownedLatency.p99)) µs")
    print("Open bench: scheme (no wait, yardstick): median \(format(schemeLatency.median)) µs  p99 \(format(schemeLatency.p99)) µs")
    print("GetConnectionUnixProcessID round trip:   median \(format(pidLatency.median)) µs  p99 \(format(pidLatency.p99)) µs")
    print("added by the owned link, median of the per-round medians: \(format(median(added))) µs (rounds: \(added.map(format).joined(separator: ", ")))   target ≤ 50 µs at p50")
    print("a new connection for each link (\(rounds) rounds × \(alonePerRound) pairs; connecting not timed):")
    print("Open owned https (waits for the opener): median \(format(ownedAloneLatency.median)) µs  p99 \(format(ownedAloneLatency.p99)) µs")
    print("Open bench: scheme (no wait, yardstick): median \(format(schemeAloneLatency.median)) µs  p99 \(format(schemeAloneLatency.p99)) µs")
    print("added by the owned link, median of the per-round medians: \(format(median(addedAlone))) µs (rounds: \(addedAlone.map(format).joined(separator: ", ")))   target ≤ 50 µs at p50")
    let ownedChildLatency = Latency(samples: ownedChild), schemeChildLatency = Latency(samples: schemeChild)
    print("a fresh process for each link, the child of an app (\(rounds) rounds × \(childPerRound) pairs; spawning and connecting not timed):")
    print("Open owned https (waits for the opener): median \(format(ownedChildLatency.median)) µs  p99 \(format(ownedChildLatency.p99)) µs")
    print("Open bench: scheme (no wait, yardstick): median \(format(schemeChildLatency.median)) µs  p99 \(format(schemeChildLatency.p99)) µs")
    print("added by the owned link, median of the per-round medians: \(format(median(addedChild))) µs (rounds: \(addedChild.map(format).joined(separator: ", ")))   target ≤ 50 µs at p50")
    client.close()
}

try await main()
