import DBus
import Foundation
import Synchronization
import TestSupport
import Testing

/// A private desktop session for one test, after the dispatcher tests' `DesktopSession`: its own
/// `dbus-daemon` (the lab desktop), a throwaway HOME and XDG directories with real
/// desktop entries, and the dispatcher installed as a D-Bus activatable service.
///
/// Apps under test run in this process, so their desktop entries name this test runner as their
/// program: the dispatcher checks `/proc/<pid>/exe` of whoever registers.
final class KitSession: Sendable {
    private let session: PrivateSession
    var root: URL { session.root }
    var environment: [String: String] { session.environment }
    var address: String { session.address }

    /// Where `waypost` and the sample apps are: beside the one under test.
    static let binDirectory = Built.waypost.deletingLastPathComponent()
    static let testRunner = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    static let waypost = Built.waypost
    static let packageRoot = Built.packageRoot

    init(deliveryTimeout: Double = 10) async throws {
        let service = """
            [D-BUS Service]
            Name=io.waypost.Dispatcher
            Exec=\(Self.waypost.path) daemon --verbose --launch-timeout 5 --delivery-timeout \(deliveryTimeout)

            """
        session = try await PrivateSession(name: "waypost-kit") { root in
            try service.write(
                to: root.appendingPathComponent("data/dbus-1/services/io.waypost.Dispatcher.service"),
                atomically: true, encoding: .utf8)
        }
    }

    /// Stops the bus (the dispatcher exits with it) and removes the session's files.
    func close() { session.close() }

    deinit { close() }

    /// What the dispatcher logged (it inherits the bus's stderr), for failure messages.
    var busLog: String { session.busLog }

    func connect() async throws -> Connection { try await Connection(address: address) }

    /// Installs a participating app run by this test process, handling `schemes`.
    func installInProcessApp(_ id: String, schemes: [String], activityTypes: [String] = []) async throws {
        var entry = """
            [Desktop Entry]
            Type=Application
            Name=\(id)
            Exec=\(Self.testRunner.path)
            MimeType=\(schemes.map { "x-scheme-handler/\($0);" }.joined())
            X-Waypost=true

            """
        if !activityTypes.isEmpty { entry += "X-Waypost-Activity-Types=\(activityTypes.joined(separator: ";"));\n" }
        try entry.write(to: root.appendingPathComponent("data/applications/\(id).desktop"), atomically: true, encoding: .utf8)
        _ = try await runProgram(
            "/usr/bin/update-desktop-database", [root.appendingPathComponent("data/applications").path], environment: environment)
    }

    // MARK: The dispatcher, as openers and `waypost status` see it

    /// `Open`, as an opener calls it; the outcome's strings.
    func open(_ uri: String, with connection: Connection) async throws -> [String: String] {
        let reply = try await connection.call(
            destination: "io.waypost.Dispatcher", path: "/io/waypost/Dispatcher", interface: "io.waypost.Dispatcher1",
            member: "Open", uri, [String: Variant](), timeout: .seconds(30))
        return ExplainedPlan.strings(try reply.decode([String: Variant].self))
    }

    /// The open scenes in search order, each with its app, owner and united sets.
    func scenes(with connection: Connection) async throws -> [SceneStatus] {
        let reply = try await connection.call(
            destination: "io.waypost.Dispatcher", path: "/io/waypost/Dispatcher", interface: "io.waypost.Dispatcher1",
            member: "Status")
        let (_, scenes) = try reply.decode([[String: Variant]].self, [[String: Variant]].self)
        return scenes.map { scene in
            let strings = ExplainedPlan.strings(scene)
            let modifiers = (try? scene["modifiers"]?.decode(as: [Structure<[String], [String]>].self)) ?? []
            return SceneStatus(
                app: strings["app-id"] ?? "", id: strings["scene-id"] ?? "", declaration: strings["declaration-id"] ?? "",
                preferring: Set(modifiers.flatMap { $0.fields.0 }), allowing: Set(modifiers.flatMap { $0.fields.1 }))
        }
    }

    /// The process id of the running dispatcher, or nil when none runs.
    func dispatcherPID(with connection: Connection) async throws -> Int32? {
        guard let owner = try await connection.nameOwner(of: "io.waypost.Dispatcher") else { return nil }
        return Int32(bitPattern: try await connection.processID(of: owner))
    }
}

/// A scene as the dispatcher's `Status` lists it.
struct SceneStatus: Hashable {
    var app: String
    var id: String
    var declaration: String
    var preferring: Set<String>
    var allowing: Set<String>
}



/// What the scenes of an in-process app received, in order.
final class Inbox: Sendable {
    private let events = Mutex<[(scene: String, event: String)]>([])

    func record(_ scene: String, _ event: String) { events.withLock { $0.append((scene, event)) } }
    var all: [(scene: String, event: String)] { events.withLock { $0 } }
    func received(by scene: String) -> [String] { all.filter { $0.scene == scene }.map(\.event) }
}
