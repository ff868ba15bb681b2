// open-bench: how long `gio open URL` takes until a running app's handler runs, three ways, interleaved:
//
//   waypost  gio open → org.freedesktop.Application.Open on the dispatcher → OpenURL in the app
//   direct   gio open → org.freedesktop.Application.Open on the same app, its own DBusActivatable entry
//            (the floor a GIO opener allows)
//   exec     gio open → spawn of an Exec= entry (a tiny C program: what users get from a plain handler)
//   spawned  gio open → spawn of `waypost open %U` from an entry without DBusActivatable → the
//            dispatcher → OpenURL in the app: the handler entry's other possible shape (what the
//            portal 1.16 would pass a token to), beside `waypost`, the shape installed
//   owned    gio open https://bench.example/… → the dispatcher → OpenURL in the app whose entry claims
//            bench.example and whose installed association names it (a universal link)
//   unowned  gio open https://unowned.example/… → the dispatcher → Application.Open on the browser, the
//            same DBusActivatable entry as `direct` (the https default before `install --web`)
//   process  `waypost open benchwp://…` as a whole process → the dispatcher → OpenURL in the app: what
//            xdg-open runs where GIO's D-Bus activation is not used (i3, sway), beside `waypost`
//   before   the same with the binary WAYPOST_BEFORE names, when set (another build, same daemon)
//
// Every opener runs under `/usr/bin/time -f %M`, for its peak resident memory (time's own fork, not
// this process's posix_spawn, whose child would count this process's memory as its peak), and the
// time runs from before time is spawned, so every path pays time's start alike.
//
//   WAYPOST=/abs/release/waypost [WAYPOST_BEFORE=/abs/other/waypost] open-bench [ROUNDS]
//   open-bench app FIFO          (internal) the app process, serving both interfaces
//
// Everything runs on a private dbus-daemon with throwaway HOME and XDG dirs; Waypost is set up by its
// own `waypost install --user` and started by D-Bus activation. Each handler writes the CLOCK_MONOTONIC
// time it ran to a FIFO; the bench takes the time just before spawning gio.
import DBus
import WaypostContract
import Foundation
import Glibc
import Synchronization

func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

func report(_ fifo: String, _ kind: String) {
    let line = "\(kind) \(monotonicNanoseconds())\n"
    let descriptor = open(fifo, O_WRONLY | O_NONBLOCK)
    guard descriptor >= 0 else { return }
    _ = line.withCString { write(descriptor, $0, strlen($0)) }
    close(descriptor)
}

// MARK: The app (child process)

func runApp(fifo: String) async throws -> Never {
    let connection = try await Connection.session()
    let directPath: ObjectPath = "/io/waypost/bench/Direct"
    let appPath: ObjectPath = "/io/waypost/bench/App"
    typealias Freedesktop = Contract.FreedesktopApplication
    try connection.export(directPath, interfaces: [
        Interface(Freedesktop.interface, methods: [
            Freedesktop.activate.exported { call in try call.reply() },
            Freedesktop.open.exported { call in
                report(fifo, "direct")
                return try call.reply()
            },
            Freedesktop.activateAction.exported { call in try call.reply() },
        ])
    ])
    typealias App = Contract.Application1
    try connection.export(appPath, interfaces: [
        Interface(App.interface, methods: [
            App.openURL.exported { call in
                report(fifo, "waypost")
                return try call.reply()
            },
            App.createScene.exported { call in
                report(fifo, "waypost-create")
                return try call.reply("unexpected")
            },
            App.continueUserActivity.exported { call in try call.reply() },
        ])
    ])
    guard try await connection.requestName("io.waypost.bench.Direct", flags: .doNotQueue) == .primaryOwner else { exit(2) }
    func callDispatcher<each A: BusValue>(_ member: Contract.Member, _ arguments: repeat each A) async throws {
        _ = try await connection.call(
            destination: Contract.busName, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
            member: member.name, repeat each arguments, timeout: .seconds(20))
    }
    // Registering starts the dispatcher by D-Bus activation.
    try await callDispatcher(Contract.Dispatcher1.registerApplication, "io.waypost.bench.Routed", appPath, [String: Variant]())
    let main = Contract.Declaration(id: "main", kind: .windowGroup)
    try await callDispatcher(Contract.Dispatcher1.declareScenes, [main.structure])
    try await callDispatcher(Contract.Dispatcher1.addScene, "main", main.id)
    try await callDispatcher(Contract.Dispatcher1.setExternalEvents, "main", [Contract.Modifier(preferring: [], allowing: ["*"]).structure])
    report(fifo, "ready")
    _ = try await connection.waitUntilClosed()
    exit(0)
}

// MARK: Spawning

func spawn(_ program: String, _ arguments: [String], environment: [String: String]) -> pid_t {
    var pid: pid_t = 0
    let argv = ([program] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { (argv + envp).forEach { free($0) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    guard posix_spawn(&pid, program, &actions, nil, argv, envp) == 0 else { fatalError("cannot start \(program)") }
    return pid
}

@discardableResult
func waitFor(_ pid: pid_t) -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return status
}

/// Reads lines `kind nanoseconds` from the FIFO, each within `timeout` seconds.
final class FIFOReader {
    let descriptor: Int32
    var buffer: [UInt8] = []
    init(_ path: String) { descriptor = open(path, O_RDWR) }  // O_RDWR: never EOF, writers never block

    func next(timeout: Int32 = 10_000) -> (String, UInt64)? {
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                let parts = line.split(separator: " ")
                guard parts.count == 2, let value = UInt64(parts[1]) else { continue }
                return (String(parts[0]), value)
            }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, timeout) > 0 else { return nil }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(descriptor, &chunk, chunk.count)
            if count > 0 { buffer += chunk[0..<count] }
        }
    }
}

// MARK: Setting up the desktop

func write(_ text: String, to path: String) throws {
    try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try text.write(toFile: path, atomically: true, encoding: .utf8)
}

func median(_ values: [Double]) -> Double { let sorted = values.sorted(); return sorted[sorted.count / 2] }
func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

func runBench(rounds: Int) async throws {
    guard let waypost = ProcessInfo.processInfo.environment["WAYPOST"], waypost.hasPrefix("/") else {
        fatalError("set WAYPOST to the absolute path of a release waypost (make bench-open does)")
    }
    let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("open-bench-\(getpid())").path
    defer { try? FileManager.default.removeItem(atPath: root) }
    for dir in ["home", "data/applications", "config", "runtime"] {
        try FileManager.default.createDirectory(atPath: "\(root)/\(dir)", withIntermediateDirectories: true)
    }
    chmod("\(root)/runtime", 0o700)
    let fifo = "\(root)/handlers.fifo"
    mkfifo(fifo, 0o600)
    let reader = FIFOReader(fifo)

    // The Exec= handler: a tiny C program, compiled here (what a plain handler costs at best).
    let handlerSource = """
        #include <fcntl.h>
        #include <stdio.h>
        #include <string.h>
        #include <time.h>
        #include <unistd.h>
        int main(int argc, char **argv) {
            struct timespec now; clock_gettime(CLOCK_MONOTONIC, &now);
            char line[64]; int n = snprintf(line, sizeof line, "exec %llu\\n",
                (unsigned long long)now.tv_sec * 1000000000ULL + (unsigned long long)now.tv_nsec);
            int fd = open(argv[1], O_WRONLY | O_NONBLOCK); if (fd < 0) return 1;
            write(fd, line, (size_t)n); close(fd); return 0;
        }
        """
    try write(handlerSource, to: "\(root)/handler.c")
    let handler = "\(root)/exec-handler"
    guard waitFor(spawn("/usr/bin/cc", ["-O2", "-o", handler, "\(root)/handler.c"], environment: ProcessInfo.processInfo.environment)) == 0 else {
        fatalError("cc failed")
    }

    try write("""
        <busconfig>
          <type>session</type>
          <listen>unix:tmpdir=/tmp</listen>
          <auth>EXTERNAL</auth>
          <servicedir>\(root)/data/dbus-1/services</servicedir>
          <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
        </busconfig>
        """, to: "\(root)/session.conf")
    var environment = ProcessInfo.processInfo.environment.filter { ["PATH", "LANG", "LC_ALL"].contains($0.key) }
    environment["HOME"] = "\(root)/home"
    environment["XDG_DATA_HOME"] = "\(root)/data"
    environment["XDG_CONFIG_HOME"] = "\(root)/config"
    environment["XDG_RUNTIME_DIR"] = "\(root)/runtime"
    environment["XDG_DATA_DIRS"] = "/usr/share"
    environment["XDG_CONFIG_DIRS"] = "\(root)/config"

    let bus = Process()
    bus.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
    bus.arguments = ["--config-file=\(root)/session.conf", "--nofork", "--print-address=1"]
    bus.environment = environment
    let out = Pipe()
    bus.standardOutput = out
    try bus.run()
    defer { kill(bus.processIdentifier, SIGKILL) }
    var address = Data()
    while let byte = try out.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) { address.append(byte) }
    environment["DBUS_SESSION_BUS_ADDRESS"] = String(decoding: address, as: UTF8.self)

    let applications = "\(root)/data/applications"
    try write("[Desktop Entry]\nType=Application\nName=Routed\nExec=\(me) app \(fifo)\nMimeType=x-scheme-handler/benchwp;x-scheme-handler/benchsp;\nX-Waypost=true\nX-Waypost-Associated-Domains=bench.example;\n",
              to: "\(applications)/io.waypost.bench.Routed.desktop")
    try write("[Desktop Entry]\nType=Application\nName=Spawned\nExec=\(waypost) open %U\nNoDisplay=true\nStartupNotify=true\nMimeType=x-scheme-handler/benchsp;\n",
              to: "\(applications)/io.waypost.bench.Spawned.desktop")
    try write("[Desktop Entry]\nType=Application\nName=Direct\nExec=\(me) app \(fifo)\nDBusActivatable=true\nMimeType=x-scheme-handler/benchdirect;x-scheme-handler/https;\n",
              to: "\(applications)/io.waypost.bench.Direct.desktop")
    try write("[Desktop Entry]\nType=Application\nName=Exec\nExec=\(handler) \(fifo) %u\nMimeType=x-scheme-handler/benchexec;\n",
              to: "\(applications)/io.waypost.bench.Exec.desktop")
    try write("[Default Applications]\nx-scheme-handler/benchdirect=io.waypost.bench.Direct.desktop;\nx-scheme-handler/benchexec=io.waypost.bench.Exec.desktop;\nx-scheme-handler/https=io.waypost.bench.Direct.desktop;\n",
              to: "\(root)/config/mimeapps.list")
    try write(#"{"applinks": {"details": [{"appIDs": ["io.waypost.bench.Routed"], "components": [{"/": "/item/*"}]}]}}"#,
              to: "\(root)/data/waypost/associations/bench.example.json")
    waitFor(spawn("/usr/bin/update-desktop-database", [applications], environment: environment))
    guard waitFor(spawn(waypost, ["install", "--user", "--web"], environment: environment)) == 0 else { fatalError("waypost install failed") }
    // benchsp goes through Waypost too, but by the spawned entry: the other shape, beside the installed one.
    let mimeApps = try String(contentsOfFile: "\(root)/config/mimeapps.list", encoding: .utf8)
    try mimeApps.replacingOccurrences(of: "x-scheme-handler/benchsp=io.waypost.Dispatcher.desktop;", with: "x-scheme-handler/benchsp=io.waypost.bench.Spawned.desktop;")
        .write(toFile: "\(root)/config/mimeapps.list", atomically: true, encoding: .utf8)

    // The daemon's own time per link (Open received → app acknowledged), from its Routed signal,
    // which it emits only while someone called MonitorRouted.
    let observer = try await Connection(address: environment["DBUS_SESSION_BUS_ADDRESS"]!)
    let routed = try await observer.signals(matching: MatchRule(interface: "io.waypost.Dispatcher1", member: "Routed"))
    let daemonMicros = Mutex<[Double]>([])
    let collector = Task {
        for try await signal in routed {
            if let (_, outcome) = try? signal.decode(String.self, [String: Variant].self),
               let micros = try? outcome["micros"]?.decode(as: UInt64.self) {
                daemonMicros.withLock { $0.append(Double(micros)) }
            }
        }
    }
    defer { collector.cancel() }

    let app = spawn(me, ["app", fifo], environment: environment)
    defer { kill(app, SIGKILL); waitFor(app) }
    guard let (ready, _) = reader.next(timeout: 20_000), ready == "ready" else { fatalError("the app did not become ready") }

    // Path → (the handler that reports it, the opener, the link).
    let gio = "/usr/bin/gio"
    var kinds: [(String, String, String, (Int) -> String)] = [
        ("waypost", "waypost", gio, { "benchwp://item?round=\($0)" }),
        ("direct", "direct", gio, { "benchdirect://item?round=\($0)" }),
        ("exec", "exec", gio, { "benchexec://item?round=\($0)" }),
        ("spawned", "waypost", gio, { "benchsp://item?round=\($0)" }),
        ("owned", "waypost", gio, { "https://bench.example/item/\($0)" }),
        ("unowned", "direct", gio, { "https://unowned.example/item/\($0)" }),
        ("process", "waypost", waypost, { "benchwp://item?process=\($0)" }),
    ]
    let before = ProcessInfo.processInfo.environment["WAYPOST_BEFORE"].flatMap { $0.hasPrefix("/") ? $0 : nil }
    if let before { kinds.append(("before", "waypost", before, { "benchwp://item?before=\($0)" })) }
    var samples: [String: [Double]] = [:]
    var peaks: [String: [Double]] = [:]
    var generator = SystemRandomNumberGenerator()
    let warmup = 5
    for round in 0..<(rounds + warmup) {
        for (kind, handler, opener, link) in kinds.shuffled(using: &generator) {
            let started = monotonicNanoseconds()
            let process = spawn("/usr/bin/time", ["-f", "%M", "-o", "\(root)/peak", opener, "open", link(round)], environment: environment)
            guard let (seen, at) = reader.next() else { fatalError("\(kind): no handler ran within 10 s") }
            let status = waitFor(process)
            let peak = (try? String(contentsOfFile: "\(root)/peak", encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            guard seen == handler, status == 0, let peak else { fatalError("\(kind): expected its handler \(handler), got \(seen); status \(status)") }
            if round >= warmup {
                samples[kind, default: []].append(Double(at - started) / 1e6)
                peaks[kind, default: []].append(Double(peak))
            }
            usleep(2_000)  // let the exec handler's process and gio's exit settle
        }
    }

    print("gio open until a running app's handler runs, \(rounds) rounds interleaved (ms)")
    print("  path      median    p90   opener's peak memory (median KiB)")
    for (kind, _, _, _) in kinds {
        let values = samples[kind]!
        print("  \(kind.padding(toLength: 8, withPad: " ", startingAt: 0))  \(String(format: "%6.2f", median(values)))  \(String(format: "%6.2f", percentile(values, 0.9)))  \(String(format: "%8.0f", median(peaks[kind]!)))")
    }
    let waypostMedian = median(samples["waypost"]!), direct = median(samples["direct"]!), exec = median(samples["exec"]!)
    print(String(format: "  waypost / direct (target ≤ 1.10): %.2f×", waypostMedian / direct))
    print(String(format: "  exec / direct: %.2f×   waypost / exec: %.2f×", exec / direct, waypostMedian / exec))
    print(String(format: "  the handler entry spawned instead (`waypost open %%U`) / direct: %.2f×   / waypost, D-Bus activated: %.2f×",
                 median(samples["spawned"]!) / direct, median(samples["spawned"]!) / waypostMedian))
    print(String(format: "  owned https link / direct (target ≤ 1.10): %.2f×", median(samples["owned"]!) / direct))
    print(String(format: "  unowned https link to the browser / gio open straight to it (target ≤ 1.05): %.2f×", median(samples["unowned"]!) / direct))
    for kind in ["process"] + (before == nil ? [] : ["before"]) {
        print("  \(kind): `waypost open` process / gio open of the same link (target ≤ 1.30): "
              + String(format: "%.2f× wall, %.2f× peak memory (target ≤ 2)", median(samples[kind]!) / waypostMedian, median(peaks[kind]!) / median(peaks["waypost"]!)))
    }
    // Then, apart (so that its signals do not weigh on the figures above), the daemon's own share.
    _ = try await observer.call(
        destination: "io.waypost.Dispatcher", path: "/io/waypost/Dispatcher", interface: "io.waypost.Dispatcher1",
        member: "MonitorRouted", [String: Variant]())
    for round in 0..<50 {
        let gio = spawn("/usr/bin/gio", ["open", "benchwp://item?monitored=\(round)"], environment: environment)
        guard reader.next() != nil else { fatalError("waypost: no handler ran within 10 s") }
        waitFor(gio)
    }
    try await Task.sleep(for: .milliseconds(100))
    let micros = daemonMicros.withLock { $0 }
    if !micros.isEmpty {
        print(String(format: "  inside the daemon (Open received → app acknowledged, its Routed signal): median %.0f µs", median(micros)))
    }
}

let arguments = CommandLine.arguments
if arguments.count == 3, arguments[1] == "app" {
    try await runApp(fifo: arguments[2])
} else {
    try await runBench(rounds: arguments.count > 1 ? Int(arguments[1]) ?? 60 : 60)
}
