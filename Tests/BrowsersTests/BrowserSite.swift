import Browsers
import Desktop
import Foundation
import Synchronization
import TestSupport

/// One browser test's world: a throwaway home, an X screen, a loopback page server and, when asked,
/// a session bus; the browser entries it writes run with exactly this environment (`env -i`).
/// `close()` ends every process started here, the browsers' helpers included (found by the home
/// in their environment), and removes the files.
final class BrowserSite: Sendable {
    let root: String
    let homes: BrowserHomes
    let port: Int
    private let screen: VirtualScreen
    private let children = ChildProcesses()
    private let busAddress = Mutex<String?>(nil)

    init() async throws {
        var template = Array((NSTemporaryDirectory() + "/waypost-browsers-XXXXXX").utf8CString)
        guard mkdtemp(&template) != nil else { throw TestFailure("mkdtemp failed: \(errno)") }
        root = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).replacingOccurrences(of: "//", with: "/")
        homes = BrowserHomes(home: root + "/home", configHome: root + "/home/.config")
        for directory in [homes.configHome, root + "/pages", root + "/applications", root + "/logs"] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        for name in ["work", "profile", "private", "usual", "home", "personal"] {
            try Data("<!DOCTYPE html><title>\(name)</title><p>\(name)".utf8).write(to: URL(fileURLWithPath: root + "/pages/\(name).html"))
        }
        screen = try await VirtualScreen(size: "1280x800x24", errors: URL(fileURLWithPath: root + "/logs/xvfb.log"))
        let server = try await ChildProcess.start(
            Built.python, ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", root + "/pages"],
            environment: ["HOME": root + "/home"])
        children.add(server)
        // "Serving HTTP on 127.0.0.1 port N (http://127.0.0.1:N/) ..." once it listens.
        guard let line = try await server.nextLine("http.server says its port"),
              let port = line.split(separator: " ").split(separator: "port").last?.first.flatMap({ Int($0) })
        else { throw TestFailure("http.server did not say its port") }
        self.port = port
    }

    func page(_ name: String) -> String { "http://127.0.0.1:\(port)/\(name).html" }

    var environment: [String: String] {
        var environment = ["HOME": homes.home, "DISPLAY": screen.display, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"]
        environment["DBUS_SESSION_BUS_ADDRESS"] = busAddress.withLock { $0 }
        return environment
    }

    func log(_ name: String) -> String { (try? String(contentsOfFile: root + "/logs/" + name, encoding: .utf8)) ?? "" }

    /// A bus of this site's own, with no services to start.
    func startBus() async throws {
        let configuration = root + "/bus.conf"
        try Data("""
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig><type>session</type><listen>unix:dir=\(root)</listen><auth>EXTERNAL</auth>
            <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
            </busconfig>
            """.utf8).write(to: URL(fileURLWithPath: configuration))
        let bus = try await ChildProcess.start(
            "/usr/bin/dbus-daemon", ["--config-file=" + configuration, "--nofork", "--print-address=1"], environment: environment)
        children.add(bus)
        guard let address = try await bus.nextLine("dbus-daemon says its address"), address.hasPrefix("unix:") else {
            throw TestFailure("dbus-daemon did not start")
        }
        busAddress.withLock { $0 = address }
    }

    /// Writes a desktop entry that runs `program` with `arguments` in this site's environment, and
    /// reads it as the catalog would.
    func entry(_ id: String, _ program: String, _ arguments: [String]) throws -> ApplicationEntry {
        let argv = ["/usr/bin/env", "-i"] + environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } + [program] + arguments
        let exec = ExecLine.inserting([], into: argv)
        let file = root + "/applications/\(id).desktop"
        try Data("""
            [Desktop Entry]
            Type=Application
            Name=\(id)
            Exec=\(exec.replacingOccurrences(of: "\\", with: "\\\\"))
            MimeType=x-scheme-handler/http;x-scheme-handler/https;

            """.utf8).write(to: URL(fileURLWithPath: file))
        return ApplicationEntry(
            id: id, filePath: file, name: id, participates: false, schemes: ["http", "https"], contentTypes: [], activityTypes: [],
            isDBusActivatable: false, startupNotify: false, exec: exec, tryExec: nil, executablePath: "/usr/bin/env")
    }

    /// Starts a browser in this site's environment, its standard error to `logs/NAME`.
    func start(_ program: String, _ arguments: [String], log: String) async throws -> ChildProcess {
        let process = try await ChildProcess.start(program, arguments, environment: environment, errors: URL(fileURLWithPath: root + "/logs/" + log))
        children.add(process)
        return process
    }

    /// The browser context of the Chromium page showing `url`, once there is one (DevTools).
    func chromiumPage(_ url: String, _ userData: String) async throws -> (url: String, context: String) {
        var found: String?
        var last = ""
        try await waitUntil("Chromium shows \(url)", seconds: 60, context: "targets: \(last)\n\(log("chromium.log").suffix(3000))") {
            let run = try await runProgram(Built.python, [RealBrowserProfileTests.fixtures.path + "/devtools_targets.py", userData], environment: [:])
            last = run.output + run.errors
            let targets = (try? JSONSerialization.jsonObject(with: Data(run.output.utf8))) as? [[String: Any]] ?? []
            found = targets.first { $0["type"] as? String == "page" && $0["url"] as? String == url }?["browserContextId"] as? String
            return found != nil
        }
        return (url, found ?? "")
    }

    /// The Firefox window with a tab showing `url`, once there is one (Marionette).
    func firefoxWindow(showing url: String, _ port: String) async throws -> (private: Bool, urls: [String]) {
        var found: (Bool, [String])?
        var last = ""
        try await waitUntil("Firefox shows \(url)", seconds: 60, context: "windows: \(last)\n\(log("firefox.log").suffix(3000))") {
            let run = try await runProgram(Built.python, [RealBrowserProfileTests.fixtures.path + "/marionette_windows.py", port], environment: [:])
            last = run.output + run.errors
            let windows = (try? JSONSerialization.jsonObject(with: Data(run.output.utf8))) as? [[String: Any]] ?? []
            found = windows.lazy.compactMap { window -> (Bool, [String])? in
                guard let urls = window["urls"] as? [String], urls.contains(url) else { return nil }
                return (window["private"] as? Bool ?? false, urls)
            }.first
            return found != nil
        }
        return found ?? (false, [])
    }

    /// Waits until `running` is again the only browser main process of this site: a launch that
    /// handed its link over has ended, and none started a second browser.
    func waitUntilAlone(_ running: ChildProcess, _ name: String, _ userData: String?) async throws {
        var seen: [Int32] = []
        try await waitUntil("\(name) pid \(running.pid) is the only browser of the site", seconds: 60, context: "browsers: \(seen)") {
            seen = self.processes().filter { process in
                process.name == name && !process.arguments.contains { $0.hasPrefix("--type=") || $0 == "-contentproc" }
            }.map(\.pid)
            return seen == [running.pid]
        }
    }

    /// The live processes whose environment holds this site's home: everything started here.
    func processes() -> [(pid: Int32, name: String, arguments: [String])] {
        let marker = Data(("HOME=" + homes.home + "\0").utf8)
        let pids = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap(Int32.init)
        return pids.compactMap { pid in
            guard let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ"), environ.range(of: marker) != nil,
                  let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")"), !stat[close...].hasPrefix(") Z"),
                  let name = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)
            else { return nil }
            let arguments = (FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") ?? Data()).split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return (pid, name.trimmingCharacters(in: .newlines), arguments)
        }
    }

    func close() {
        children.killAll()
        // The browsers' helpers (zygotes, crash handlers, content processes) by the site's home, until none is left.
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let left = processes()
            if left.isEmpty { break }
            for process in left { kill(process.pid, SIGKILL) }
            usleep(50_000)
        }
        screen.stop()
        try? FileManager.default.removeItem(atPath: root)
    }
}
