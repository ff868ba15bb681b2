// What activities cost: a publish (SetCurrentActivity, saved for search) beside an AddScene round trip;
// the desktop's search (GetInitialResultSet, GetSubsearchResultSet) over 100,000 saved activities;
// the store's size on disk and the daemon's RSS growth with it. The release binary `make install`
// installs, on a private bus, the bench process itself being the apps (their entries run it).
import BenchSupport
import DBus
import Foundation
import WaypostContract

let dispatcher: BusName = "io.waypost.Dispatcher"
let activityType = "io.waypost.bench.show"
let apps = 10
let perApp = 10_000

let adjectives = ["amber", "brisk", "calm", "dusty", "eager", "faint", "giant", "hollow", "icy", "jolly", "keen", "lunar",
                  "misty", "noble", "olive", "proud", "quiet", "rusty", "silent", "tidy", "urban", "vivid", "windy", "young", "zesty"]
let nouns = ["harbor", "meadow", "canyon", "garden", "lantern", "orchard", "island", "market", "bridge", "cottage",
             "river", "forest", "tower", "valley", "window", "station", "library", "theatre", "museum", "kitchen"]

/// The activity a scene publishes: a title of two words and a number, keywords, a little user info.
func activity(_ n: Int, search: Bool = true) -> [String: Variant] {
    let title = "\(adjectives[n % adjectives.count].capitalized) \(nouns[(n / adjectives.count) % nouns.count].capitalized) \(n)"
    return Contract.ActivityDetails(
        targetContentIdentifier: "item/\(n)", title: title, userInfo: ["id": .int64(Int64(n)), "page": .string("p\(n % 7)")],
        keywords: [nouns[(n * 7) % nouns.count], "bench"], eligibleForSearch: search, persistentIdentifier: "item-\(n)"
    ).variants
}

struct App {
    let id: String
    let bus: Connection

    func call<each A: BusValue>(_ member: Contract.Member, _ arguments: repeat each A) async throws -> Message {
        try await bus.call(
            destination: dispatcher, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
            member: member.name, repeat each arguments, timeout: .seconds(60))
    }
}

func timed(_ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    return (ContinuousClock.now - start).microseconds
}

func main() async throws {
    let waypost = ProcessInfo.processInfo.environment["WAYPOST"]
        ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath).deletingLastPathComponent()
            .appendingPathComponent(".build/release/waypost").path
    guard FileManager.default.isExecutableFile(atPath: waypost) else {
        throw BenchError("no waypost at \(waypost): run `make release` first, or set WAYPOST")
    }
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("activity-bench-\(getpid())")
    let applications = root.appendingPathComponent("data/applications")
    for directory in [applications, root.appendingPathComponent("config"), root.appendingPathComponent("home")] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }
    defer { if ProcessInfo.processInfo.environment["ACTIVITY_BENCH_KEEP"] == nil { try? FileManager.default.removeItem(at: root) } }
    let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    for index in 0..<apps {
        try """
            [Desktop Entry]
            Type=Application
            Name=Bench \(index)
            Exec=\(me)
            X-Waypost=true
            X-Waypost-Activity-Types=\(activityType);

            """.write(to: applications.appendingPathComponent("io.waypost.bench.App\(index).desktop"), atomically: true, encoding: .utf8)
    }
    let session = try await DispatcherSession(root: root, waypost: waypost, more: [
        "HOME": root.appendingPathComponent("home").path, "XDG_STATE_HOME": root.appendingPathComponent("state").path,
    ])
    defer { session.stop() }
    let (bus, daemon, opener) = (session.bus, session.daemon, session.client)

    var registered: [App] = []
    for index in 0..<apps {
        let app = App(id: "io.waypost.bench.App\(index)", bus: try await Connection(address: bus.address))
        _ = try await app.call(Contract.Dispatcher1.registerApplication, app.id, ObjectPath("/app"), [String: Variant]())
        _ = try await app.call(Contract.Dispatcher1.declareScenes, [Contract.Declaration(id: "main", kind: .windowGroup).structure])
        _ = try await app.call(Contract.Dispatcher1.addScene, "window", "main")
        registered.append(app)
    }
    let daemonPID = "\(daemon.processIdentifier)"
    let rssBefore = residentKiB(of: daemonPID)
    print("daemon anonymous RSS at start: \(statusKiB("RssAnon", of: daemonPID) / 1024) MiB")
    print("activity-bench: private bus, waypost \(waypost)")
    print("")

    // A. Publish beside AddScene, interleaved in rounds; each publish saves a new row.
    let rounds = 5, perRound = 500
    let app = registered[0]
    var addScene = Latency(samples: []), publish = Latency(samples: []), current = Latency(samples: [])
    var ratios: [Double] = []
    var next = perApp * apps
    for round in 0..<rounds {
        var adds: [Double] = [], publishes: [Double] = [], currents: [Double] = []
        for index in 0..<perRound {
            let scene = "bench-\(round)-\(index)"
            adds.append(try await timed { _ = try await app.call(Contract.Dispatcher1.addScene, scene, "main") })
            next += 1
            let saved = activity(next)
            publishes.append(try await timed { _ = try await app.call(Contract.Dispatcher1.setCurrentActivity, "window", activityType, saved) })
            let notSaved = activity(next, search: false)
            currents.append(try await timed { _ = try await app.call(Contract.Dispatcher1.setCurrentActivity, "window", activityType, notSaved) })
            _ = try await app.call(Contract.Dispatcher1.removeScene, scene)
        }
        addScene.samples += adds
        publish.samples += publishes
        current.samples += currents
        ratios.append(Latency(samples: publishes).median / Latency(samples: adds).median)
    }
    print("round trips (\(rounds) rounds of \(perRound), interleaved), median / p99 µs:")
    print("  AddScene                                    \(format(addScene.median)) / \(format(addScene.p99))")
    print("  SetCurrentActivity, saved for search        \(format(publish.median)) / \(format(publish.p99))")
    print("  SetCurrentActivity, current only            \(format(current.median)) / \(format(current.p99))")
    print("  publish (saved) / AddScene, median of rounds: \(String(format: "%.2f", median(ratios)))×")
    _ = try await app.call(Contract.Dispatcher1.deleteAllSavedActivities)
    if ProcessInfo.processInfo.environment["ACTIVITY_BENCH_ROUND_TRIPS_ONLY"] != nil { return }
    let rssAfterRoundTrips = statusKiB("RssAnon", of: daemonPID)

    // B. 100,000 saved activities: 10 apps of 10,000, the apps publishing side by side.
    let fillStart = ContinuousClock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for (index, app) in registered.enumerated() {
            group.addTask {
                for n in (index * perApp)..<((index + 1) * perApp) {
                    _ = try await app.call(Contract.Dispatcher1.setCurrentActivity, "window", activityType, activity(n))
                }
            }
        }
        try await group.waitForAll()
    }
    let fillSeconds = (ContinuousClock.now - fillStart).microseconds / 1e6
    let saved = try await opener.call(
        destination: dispatcher, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
        member: Contract.Dispatcher1.listSavedActivities.name, "io.waypost.bench.App3").decode([[String: Variant]].self).count
    print("")
    let rssAfterFill = statusKiB("RssAnon", of: daemonPID)
    print("filled \(apps * perApp) saved activities in \(String(format: "%.1f", fillSeconds)) s (\(String(format: "%.0f", Double(apps * perApp) / fillSeconds))/s); App3 lists \(saved)")

    // C. The desktop's search, called as GNOME Shell calls it, with prefixes of every length.
    let provider = Contract.SearchProvider2.self
    func search(_ terms: [String]) async throws -> [String] {
        try await opener.call(
            destination: dispatcher, path: provider.objectPath, interface: provider.interface,
            member: provider.getInitialResultSet.name, terms).decode([String].self)
    }
    func subsearch(_ previous: [String], _ terms: [String]) async throws -> [String] {
        try await opener.call(
            destination: dispatcher, path: provider.objectPath, interface: provider.interface,
            member: provider.getSubsearchResultSet.name, previous, terms).decode([String].self)
    }
    let words = adjectives + nouns
    let queries: [(String, [[String]])] = [
        ("1 letter", words.map { [String($0.prefix(1))] }),
        ("2 letters", words.map { [String($0.prefix(2))] }),
        ("3 letters", words.map { [String($0.prefix(3))] }),
        ("a word", words.map { [$0] }),
        ("two words", adjectives.map { [$0, nouns[$0.count % nouns.count]] }),
        ("a number", (0..<45).map { ["\($0 * 2221)"] }),
    ]
    print("")
    print("GetInitialResultSet over \(apps * perApp) activities, µs (median / p99 of \(queries.count) kinds × repeated terms):")
    var initialAll = Latency(samples: [])
    for (kind, termSets) in queries {
        var latency = Latency(samples: [])
        for _ in 0..<4 {
            for terms in termSets { latency.samples.append(try await timed { _ = try await search(terms) }) }
        }
        initialAll.samples += latency.samples
        print("  \(kind.padding(toLength: 10, withPad: " ", startingAt: 0))  \(format(latency.median)) / \(format(latency.p99))")
    }
    print("  all         \(format(initialAll.median)) / \(format(initialAll.p99))")
    var sub = Latency(samples: [])
    for _ in 0..<4 {
        for word in words {
            let first = try await search([String(word.prefix(2))])
            sub.samples.append(try await timed { _ = try await subsearch(first, [String(word.prefix(3))]) })
        }
    }
    print("GetSubsearchResultSet (2 letters, then 3): \(format(sub.median)) / \(format(sub.p99))")

    // D. What it costs to keep them, once the daemon has handed freed memory back (5 s after writes).
    let rssAfterQueries = statusKiB("RssAnon", of: daemonPID)
    try await Task.sleep(for: .seconds(6))
    let state = root.appendingPathComponent("state/waypost")
    let files = (try? FileManager.default.contentsOfDirectory(atPath: state.path)) ?? []
    let bytes = files.reduce(0) { total, file in
        total + ((try? FileManager.default.attributesOfItem(atPath: state.appendingPathComponent(file).path)[.size] as? Int) ?? 0)
    }
    let rssAfter = residentKiB(of: daemonPID)
    print("")
    print("store on disk: \(String(format: "%.1f", Double(bytes) / 1_048_576)) MiB (\(files.sorted().joined(separator: ", ")))")
    print("daemon RSS: \(rssBefore / 1024) MiB before, \(rssAfter / 1024) MiB after (+\(String(format: "%.1f", Double(rssAfter - rssBefore) / 1024)) MiB; anonymous \(statusKiB("RssAnon", of: daemonPID) / 1024) MiB)")
    print("daemon anonymous RSS: \(rssAfterRoundTrips / 1024) MiB after the round trips, \(rssAfterFill / 1024) MiB after filling, \(rssAfterQueries / 1024) MiB after the searches")
    if ProcessInfo.processInfo.environment["ACTIVITY_BENCH_KEEP"] != nil { print("kept \(root.path)") }
}

if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "phases", let count = Int(CommandLine.arguments[3]) {
    try await phases(address: CommandLine.arguments[2], count: count)
} else {
    try await main()
}
