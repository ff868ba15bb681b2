// A real systemd user manager for one private session (`ModelledDesktop.systemd`): what GNOME and
// Plasma sessions run, on machines that boot no systemd.
import CLinux
import DBus
import Foundation
import Glibc

enum UserManager {
    /// Starts `systemd --user` for the session at `root`, running the session's bus.
    ///
    /// Three things make it the session's alone. It runs in a mount namespace of its own, where
    /// `/run/systemd/system` exists (the manager refuses to start on a machine that did not boot
    /// systemd) and the machine's environment generators are hidden (Flatpak's adds the machine's
    /// exported apps to `XDG_DATA_DIRS`). It starts `lab.target`, not `default.target` (which the
    /// machine's packages fill: PipeWire and more), and its units come first from the session's
    /// `config/systemd/user`: the bus socket in the session's runtime directory, and the bus itself
    /// with the session's configuration. And it lives in a control group of its own, made at the
    /// root of each hierarchy: a manager moves every process of the group it starts in into its
    /// `init.scope`, which for a test would be the test runner and every other session.
    /// - Returns: the manager, and its control groups (for `stop`).
    static func start(root: URL, environment: [String: String], busConfiguration: URL) async throws -> (ChildProcess, [String]) {
        let units = root.appendingPathComponent("config/systemd/user")
        try FileManager.default.createDirectory(at: units, withIntermediateDirectories: true)
        let log = root.appendingPathComponent("logs/bus.log").path
        let files = [
            "dbus.socket": "[Unit]\nDescription=The session's bus socket\n\n[Socket]\nListenStream=%t/bus\n",
            "dbus.service": """
                [Unit]
                Description=The session's bus
                Requires=dbus.socket

                [Service]
                Type=notify
                NotifyAccess=main
                ExecStart=/usr/bin/dbus-daemon --config-file=\(busConfiguration.path) --address=systemd: --nofork --nopidfile --systemd-activation
                StandardError=append:\(log)

                """,
            "lab.target": "[Unit]\nDescription=The session\nRequires=dbus.socket\nAfter=dbus.socket\n",
            // What the daemon's unit logs goes where the lab session's bus log is.
            "waypost.service.d/log.conf": "[Service]\nStandardOutput=append:\(log)\nStandardError=append:\(log)\n",
        ]
        for (name, text) in files {
            let file = units.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        let group = "waypost-session-\(UUID().uuidString)"
        let groups = hierarchies().map { "\($0)/\(group)" }
        guard !groups.isEmpty else { throw TestFailure("no control group hierarchy under /sys/fs/cgroup for a user manager") }
        let generators = "/usr/lib/systemd/user-environment-generators"
        let script = """
            set -e
            for group in \(groups.joined(separator: " ")); do mkdir "$group"; echo $$ > "$group/cgroup.procs"; done
            exec unshare --mount --propagation private /bin/sh -c '
              set -e
              mkdir -p /run/systemd && mount -t tmpfs tmpfs /run/systemd && mkdir /run/systemd/system
              if [ -d \(generators) ]; then mount -t tmpfs tmpfs \(generators); fi
              exec /usr/lib/systemd/systemd --user --unit=lab.target'
            """
        var managerEnvironment = environment
        managerEnvironment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(root.path)/runtime/bus"
        let manager = try await ChildProcess.start(
            "/bin/sh", ["-c", script], environment: managerEnvironment, errors: URL(fileURLWithPath: log))
        return (manager, groups)
    }

    /// The bus's address, once the manager listens on its socket and is itself on the bus (the
    /// first connection starts the bus; the manager then connects).
    static func busAddress(root: URL, context: URL) async throws -> String {
        let socket = root.appendingPathComponent("runtime/bus").path
        let log = { (try? String(contentsOf: context, encoding: .utf8)) ?? "" }
        try await waitUntil("the user manager listens on the bus socket", context: log()) { FileManager.default.fileExists(atPath: socket) }
        let address = "unix:path=\(socket)"
        let connection = try await Connection(address: address)
        defer { connection.close() }
        try await waitUntil("the user manager is on its bus", context: log()) {
            let reply = try await connection.call(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "NameHasOwner", "org.freedesktop.systemd1", timeout: .seconds(5))
            return try reply.decode(Bool.self)
        }
        return address
    }

    /// Kills every process in the manager's groups (what it started would outlive a manager killed
    /// alone), round after round until none is left (one may have forked meanwhile), each round
    /// waiting until its processes have exited; then removes the groups.
    static func stop(groups: [String]) {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let pids = groups.flatMap(processes(below:)).filter { $0 != getpid() }
            if pids.isEmpty { break }
            // A pidfd, opened before the kill, reads once its process has exited.
            var exits = pids.compactMap { pid -> pollfd? in
                let descriptor = waypost_pidfd_open(pid)
                kill(pid, SIGKILL)
                return descriptor < 0 ? nil : pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            }
            defer { for exit in exits { close(exit.fd) } }
            while exits.contains(where: { $0.revents == 0 }), ContinuousClock.now < deadline {
                if poll(&exits, nfds_t(exits.count), 1000) < 0, errno != EINTR { break }
            }
        }
        for group in groups {
            let below = ((try? FileManager.default.subpathsOfDirectory(atPath: group)) ?? [])
                .map { "\(group)/\($0)" }.filter { isGroup($0) }
            // Deepest first: a group with groups below it cannot go.
            for path in (below.sorted { $0.count > $1.count }) + [group] { rmdir(path) }
        }
    }

    /// The writable hierarchies a manager tracks its units in: systemd's own (v1) and the unified one.
    private static func hierarchies() -> [String] {
        let base = "/sys/fs/cgroup"
        if FileManager.default.fileExists(atPath: "\(base)/cgroup.procs") { return [base] }  // unified alone
        return ["\(base)/systemd", "\(base)/unified"].filter { FileManager.default.fileExists(atPath: "\($0)/cgroup.procs") }
    }

    private static func isGroup(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    private static func processes(below group: String) -> [pid_t] {
        let groups = [group] + (((try? FileManager.default.subpathsOfDirectory(atPath: group)) ?? []).map { "\(group)/\($0)" }.filter { isGroup($0) })
        return groups.flatMap { path in
            ((try? String(contentsOfFile: "\(path)/cgroup.procs", encoding: .utf8)) ?? "").split(separator: "\n").compactMap { pid_t($0) }
        }
    }
}
