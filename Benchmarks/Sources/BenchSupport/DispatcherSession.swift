public import DBus
public import Foundation

/// The `waypost daemon` under test on a private bus, its HOME and XDG data, config, cache and state
/// directories under `root` (applications in `root/data/applications`; never the user's activity
/// store or association cache) and the system's entries beside them; a client connection once the
/// daemon holds its name. Children started with `adopt` are killed with it.
public final class DispatcherSession {
    public static let name: BusName = "io.waypost.Dispatcher"

    public let bus: PrivateBus
    public let daemon: Process
    /// What children need to join the session: the XDG directories and the bus's address.
    public let environment: [String: String]
    public let client: Connection
    private var children: [Process] = []

    /// - Parameter more: environment beside (or instead of) those directories.
    public init(root: URL, waypost: String, more: [String: String] = [:]) async throws {
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = root.appendingPathComponent("home").path
        environment["XDG_DATA_HOME"] = root.appendingPathComponent("data").path
        environment["XDG_CONFIG_HOME"] = root.appendingPathComponent("config").path
        environment["XDG_CACHE_HOME"] = root.appendingPathComponent("cache").path
        environment["XDG_STATE_HOME"] = root.appendingPathComponent("state").path
        environment["XDG_DATA_DIRS"] = "/usr/share"
        environment.merge(more) { $1 }
        bus = try PrivateBus(socketDirectory: root, environment: environment)
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        self.environment = environment
        daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: waypost)
        daemon.arguments = ["daemon"]
        daemon.environment = environment
        do {
            try daemon.run()
            client = try await Connection(address: bus.address)
            try await Self.waitForName(client)
        } catch {
            if daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) }
            bus.stop()
            throw error
        }
    }

    /// Kills `child` with the session.
    public func adopt(_ child: Process) { children.append(child) }

    public func stop() {
        for child in children + [daemon] where child.isRunning { kill(child.processIdentifier, SIGKILL) }
        bus.stop()
    }

    private static func waitForName(_ connection: Connection) async throws {
        for _ in 0..<500 {
            if (try? await connection.nameOwner(of: name)) != nil { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw BenchError("the daemon never took \(name)")
    }
}
