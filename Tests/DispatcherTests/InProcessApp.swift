import DBus
import Foundation
import Synchronization
import TestSupport
import WaypostContract

/// A participating app served by this test process itself: its desktop entry runs the test binary,
/// so it may register; it serves `io.waypost.Application1` on its own connection and hands the test
/// every activity it receives with its exact D-Bus types.
final class InProcessApp: Sendable {
    struct Received: Sendable {
        var member: String
        var scene: String
        var type: String
        var activity: [String: Variant]
        var platformData: [String: Variant]
    }

    let id: String
    let bus: Connection
    let received: AsyncStream<Received>
    private let deliver: AsyncStream<Received>.Continuation
    private final class Counter: Sendable { let value = Mutex(0) }
    private let deliveries = Counter()
    /// How many activities it acknowledged: counted before it answers, so an opener's call that
    /// returned finds its delivery counted.
    var delivered: Int { deliveries.value.withLock { $0 } }

    static let program = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path

    /// Installs the entry (with `entryGroups`, more key-file text after its group), connects, serves,
    /// registers and declares one window group, "main".
    init(_ session: some TestDesktop, id: String, name: String? = nil, activityTypes: [String], entryGroups: String = "") async throws {
        self.id = id
        try await session.writeEntry(id: id, """
            [Desktop Entry]
            Type=Application
            Name=\(name ?? id)
            Icon=\(id)
            Exec=\(Self.program)
            X-Waypost=true
            X-Waypost-Activity-Types=\(activityTypes.joined(separator: ";"));

            """ + entryGroups)
        bus = try await session.connect()
        (received, deliver) = AsyncStream.makeStream(of: Received.self)
        let deliver = deliver
        let bus = bus
        let created = Counter()
        let deliveries = deliveries
        try bus.export("/app", interfaces: [Interface(
            Contract.Application1.interface,
            methods: [
                Contract.Application1.continueUserActivity.exported { call in
                    let (scene, type, activity, platform) = try call.arguments(
                        String.self, String.self, [String: Variant].self, [String: Variant].self)
                    deliver.yield(Received(member: "ContinueUserActivity", scene: scene, type: type, activity: activity, platformData: platform))
                    deliveries.value.withLock { $0 += 1 }
                    return try call.reply()
                },
                Contract.Application1.createScene.exported { call in
                    let (_, event, platform) = try call.arguments(String.self, [String: Variant].self, [String: Variant].self)
                    let scene = "created-\(created.value.withLock { $0 += 1; return $0 })"
                    _ = try await bus.call(
                        destination: Contract.busName, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
                        member: Contract.Dispatcher1.addScene.name, scene, "main")
                    var activity = event
                    let type = (try? activity["activity-type"]?.decode(as: String.self)) ?? ""
                    activity["activity-type"] = nil
                    deliver.yield(Received(member: "CreateScene", scene: scene, type: type, activity: activity, platformData: platform))
                    deliveries.value.withLock { $0 += 1 }
                    return try call.reply(scene)
                },
            ])])
        try await call(Contract.Dispatcher1.registerApplication, id, ObjectPath("/app"), [String: Variant]())
        try await call(Contract.Dispatcher1.declareScenes, [Contract.Declaration(id: "main", kind: .windowGroup).structure])
    }

    /// Opens a scene that takes any activity (allowing `*`) unless it prefers `preferring`.
    func openScene(_ scene: String, preferring: [String] = []) async throws {
        try await call(Contract.Dispatcher1.addScene, scene, "main")
        try await call(Contract.Dispatcher1.setExternalEvents, scene, [Contract.Modifier(preferring: preferring, allowing: ["*"]).structure])
    }

    func publish(_ scene: String, _ type: String, _ activity: [String: Variant]) async throws {
        try await call(Contract.Dispatcher1.setCurrentActivity, scene, type, activity)
    }

    func call<each Argument: BusValue>(_ member: Contract.Member, _ arguments: repeat each Argument) async throws {
        _ = try await bus.call(
            destination: Contract.busName, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
            member: member.name, repeat each arguments, timeout: .seconds(30))
    }

    /// The next activity the app received.
    func next() async throws -> Received {
        for await received in received { return received }
        throw TestFailure("\(id) stopped receiving")
    }
}

extension TestDesktop {
    /// Calls one of the dispatcher's members as an opener.
    func dispatcher<each Argument: BusValue>(
        _ bus: Connection, _ member: Contract.Member, _ arguments: repeat each Argument
    ) async throws -> Message {
        try await bus.call(
            destination: Contract.busName, path: Contract.objectPath, interface: Contract.Dispatcher1.interface,
            member: member.name, repeat each arguments, timeout: .seconds(30))
    }

    func savedActivities(_ bus: Connection, app: String = "") async throws -> [Contract.SavedActivity] {
        try await dispatcher(bus, Contract.Dispatcher1.listSavedActivities, app).decode([[String: Variant]].self).map { try Contract.SavedActivity($0) }
    }

    func search(_ bus: Connection, _ terms: [String]) async throws -> [Contract.SavedActivity] {
        try await dispatcher(bus, Contract.Dispatcher1.searchActivities, terms, UInt32(0)).decode([[String: Variant]].self)
            .map { try Contract.SavedActivity($0) }
    }
}
