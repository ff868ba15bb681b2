import DBus
import Foundation
import Synchronization
import Testing
import TestSupport

private let interface: InterfaceName = "org.waypost.Peer"
private let path: ObjectPath = "/org/waypost/Peer"

/// What one side of a pair serves: an echo that says who called, a method that fails, one that hangs.
private func serve(on connection: Connection, arrivals: Beacon? = nil, executor: (any TaskExecutor)? = nil) throws {
    try connection.export(path, interfaces: [
        Interface(interface, methods: [
            Method("Echo", arguments: [Argument("text", "s")], returns: [Argument("text", "s"), Argument("caller", "s")]) { call in
                let text = try call.arguments(String.self)
                return try call.reply(text, call.sender.rawValue)
            },
            Method("Refuse") { _ in throw BusError("org.waypost.Error.Refused", "not today") },
            Method("Hang") { call in
                arrivals?.signal()
                await stallUntilCancelled()
                return try call.reply()
            },
        ], signals: [SignalDeclaration("Ticked", arguments: [Argument("count", "u")])],
        properties: [Property("Answer", "u") { .uint32(42) }])
    ], executor: executor)
}

private func echo(_ text: String, from caller: Connection, to callee: Connection) async throws -> (String, String) {
    try await caller.call(destination: callee.uniqueName, path: path, interface: interface, member: "Echo", text)
        .decode(String.self, String.self)
}

/// Two connections with no bus between them (`Connection.pair`): what the daemon and the apps use
/// of a bus, proved on a real pair. No test here starts a `dbus-daemon`.
@Suite struct PeerConnectionTests {
    @Test func callsGoBothWaysWithRepliesAndErrorsAndTheCallerIsTheOtherSide() async throws {
        let (first, second) = try await Connection.pair()
        defer { first.close(); second.close() }
        #expect(first.uniqueName != second.uniqueName)
        try serve(on: first)
        try serve(on: second)

        #expect(try await echo("to the first", from: second, to: first) == ("to the first", second.uniqueName.rawValue))
        #expect(try await echo("to the second", from: first, to: second) == ("to the second", first.uniqueName.rawValue))

        let refused = await #expect(throws: BusError.self) {
            try await second.call(destination: first.uniqueName, path: path, interface: interface, member: "Refuse")
        }
        #expect(refused == BusError("org.waypost.Error.Refused", "not today"))
        let unknown = await #expect(throws: BusError.self) {
            try await first.call(destination: second.uniqueName, path: "/nowhere", interface: interface, member: "Echo", "x")
        }
        #expect(unknown?.name == .unknownObject)
        let timedOut = await #expect(throws: BusError.self) {
            try await first.call(
                destination: second.uniqueName, path: path, interface: interface, member: "Hang", timeout: .milliseconds(50))
        }
        #expect(timedOut?.name == .noReply)
    }

    /// The pair keeps the names a bus would: requested, released, replaced, told as they change;
    /// a call for a name the peer does not own is refused as the bus refuses it.
    @Test func namesAreKeptByThePairAndACallGoesOnlyToANameThePeerOwns() async throws {
        let (first, second) = try await Connection.pair()
        defer { first.close(); second.close() }
        try serve(on: first)
        let name: BusName = "org.waypost.Service"
        let secondHears = try await second.nameOwnerChanges(for: name)
        let firstHears = try await first.nameOwnerChanges(for: nil)
        let unowned = await #expect(throws: BusError.self) {
            try await second.call(destination: name, path: path, interface: interface, member: "Echo", "x")
        }
        #expect(unowned?.name == .serviceUnknown)
        #expect(try await second.nameOwner(of: name) == nil)

        #expect(try await first.requestName(name, flags: .doNotQueue) == .primaryOwner)
        #expect(try await first.requestName(name) == .alreadyOwner)
        #expect(try await second.requestName(name) == .exists)
        #expect(try await second.nameOwner(of: name) == first.uniqueName)
        let reply = try await second.call(destination: name, path: path, interface: interface, member: "Echo", "hi")
        #expect(try reply.decode(String.self, String.self) == ("hi", second.uniqueName.rawValue))
        let acquired = NameOwnerChange(name: name, oldOwner: nil, newOwner: first.uniqueName)
        #expect(try await next(secondHears, "the other side hears the name taken") == acquired)
        #expect(try await next(firstHears, "the owner hears the name taken") == acquired)

        #expect(try await second.releaseName(name) == .notOwner)
        #expect(try await first.releaseName(name) == .released)
        #expect(try await first.releaseName(name) == .nonExistent)
        #expect(try await next(secondHears, "the name released") == NameOwnerChange(name: name, oldOwner: first.uniqueName, newOwner: nil))
        #expect(try await first.requestName(name, flags: .allowReplacement) == .primaryOwner)
        #expect(try await second.requestName(name, flags: .replaceExisting) == .primaryOwner)
        _ = try await next(secondHears, "the name taken again")
        #expect(try await next(secondHears, "the name taken over")
            == NameOwnerChange(name: name, oldOwner: first.uniqueName, newOwner: second.uniqueName))

        #expect(try await second.nameOwner(of: first.uniqueName) == first.uniqueName)
        #expect(try await second.nameOwner(of: second.uniqueName) == second.uniqueName)
        #expect(try await second.nameOwner(of: ":1.42") == nil)
        let unique = await #expect(throws: BusError.self) { try await first.requestName(":peer.0") }
        #expect(unique?.name == .invalidArgs)
        // No bus answers for itself.
        let bus = await #expect(throws: BusError.self) {
            try await first.call(destination: .bus, path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "GetId")
        }
        #expect(bus?.name == .serviceUnknown)
    }

    @Test func exportedObjectsAreIntrospectedAndTheirPropertiesRead() async throws {
        let (first, second) = try await Connection.pair()
        defer { first.close(); second.close() }
        try serve(on: first)
        let xml = try await second.call(
            destination: first.uniqueName, path: path, interface: "org.freedesktop.DBus.Introspectable", member: "Introspect"
        ).decode(String.self)
        #expect(xml.contains("<interface name=\"org.waypost.Peer\">"))
        #expect(xml.contains("<method name=\"Echo\">"))
        let answer = try await second.call(
            destination: first.uniqueName, path: path, interface: "org.freedesktop.DBus.Properties", member: "Get",
            interface.rawValue, "Answer"
        ).decode(Variant.self)
        #expect(answer == .uint32(42))
        // libdbus answers org.freedesktop.DBus.Peer on a peer connection too.
        _ = try await second.call(destination: first.uniqueName, path: "/", interface: "org.freedesktop.DBus.Peer", member: "Ping")
    }

    @Test func signalsOfOneSideReachTheOtherMatchedThereWithNoBus() async throws {
        let (emitter, listener) = try await Connection.pair()
        defer { emitter.close(); listener.close() }
        let ticks = try await listener.signals(matching: MatchRule(path: path, interface: interface, member: "Ticked"))
        let named = try await listener.signals(matching: MatchRule(interface: interface, arguments: [1: "app"]))
        let fromPeer = try await listener.signals(matching: MatchRule(sender: emitter.uniqueName, interface: interface))
        let fromStranger = try await listener.signals(matching: MatchRule(sender: ":1.42", interface: interface))
        try emitter.emit(path: path, interface: interface, member: "Other", UInt32(99))
        try emitter.emit(path: path, interface: interface, member: "Named", UInt32(1), "other")
        try emitter.emit(path: path, interface: interface, member: "Named", UInt32(2), "app")
        for count in UInt32(1)...3 { try emitter.emit(path: path, interface: interface, member: "Ticked", count) }
        // Addressed to a name nobody owns, it goes nowhere, as on a bus; to the listener's, it arrives.
        try emitter.emit(path: path, interface: interface, member: "Ticked", UInt32(5), destination: "org.waypost.Listener")
        #expect(try await listener.requestName("org.waypost.Listener") == .primaryOwner)
        try emitter.emit(path: path, interface: interface, member: "Ticked", UInt32(4), destination: "org.waypost.Listener")

        let received = try await withDeadline("four ticks") {
            var received: [UInt32] = []
            for try await signal in ticks {
                #expect(signal.sender == emitter.uniqueName)
                received.append(try signal.decode(UInt32.self))
                if received.count == 4 { break }
            }
            return received
        }
        #expect(received == [1, 2, 3, 4])
        let app = try await next(named, "the signal naming the app")
        #expect(try app.decode(UInt32.self, String.self) == (UInt32(2), "app"))
        #expect(try await next(fromPeer, "the first signal from the peer").member == "Other")
        // A later signal reaches the stranger's subscription only if the rule's sender is ignored.
        emitter.close()
        let strangers = try await withDeadline("the stranger's stream ends") {
            var count = 0
            do { for try await _ in fromStranger { count += 1 } } catch {}
            return count
        }
        #expect(strangers == 0)
    }

    @Test func monitoringIsRefusedWithNoBus() async throws {
        let (first, second) = try await Connection.pair()
        defer { first.close(); second.close() }
        let refused = await #expect(throws: BusError.self) { try await first.monitor(matching: [MatchRule(kind: .methodCall)]) }
        #expect(refused?.name == .notSupported)
    }

    @Test func eachSideKnowsThePeersProcessAndUserFromTheSocket() async throws {
        let (accepting, connecting) = try await Connection.pair()
        defer { accepting.close(); connecting.close() }
        // The connecting side's libdbus reads no credentials: SO_PEERCRED gives them there.
        for (side, peer) in [(accepting, connecting), (connecting, accepting)] {
            #expect(try await side.processID(of: peer.uniqueName) == UInt32(getpid()))
            #expect(try await side.unixUser(of: peer.uniqueName) == UInt32(getuid()))
            let name = try BusName("org.waypost.Side\(peer === accepting ? "A" : "C")")
            #expect(try await peer.requestName(name) == .primaryOwner)
            #expect(try await side.processID(of: name) == UInt32(getpid()))
            let stranger = await #expect(throws: BusError.self) { try await side.processID(of: ":1.9999") }
            #expect(stranger?.name == .nameHasNoOwner)
        }
    }

    @Test func handlersAndCallersRunOnTheirConnectionsThreadAndMayCallBack() async throws {
        // outer (on `service`) calls back into `client` before it answers; all on their own threads.
        let (service, client) = try await Connection.pair()
        defer { service.close(); client.close() }
        let offThread = Counter()
        @Sendable func onThread(_ connection: Connection) {
            if !connection.executor.isCurrent { offThread.increment() }
        }
        let clientName = client.uniqueName
        try service.export(path, interfaces: [
            Interface(interface, methods: [
                Method("Outer", returns: [Argument("answer", "s")]) { call in
                    onThread(service)
                    let back = try await service.call(destination: clientName, path: path, interface: interface, member: "Back")
                    onThread(service)
                    return try call.reply("outer(" + (try back.decode(String.self)) + ")")
                }
            ])
        ], executor: service.executor)
        try client.export(path, interfaces: [
            Interface(interface, methods: [
                Method.answeringAtOnce("Back", returns: [Argument("answer", "s")]) { call in
                    onThread(client)
                    return try call.reply("back")
                }
            ])
        ], executor: client.executor)
        let serviceName = service.uniqueName
        let answers = try await withDeadline("every answer") {
            try await withTaskExecutorPreference(client.executor) {
                var answers: [String] = []
                for _ in 0..<20 {
                    let reply = try await client.call(destination: serviceName, path: path, interface: interface, member: "Outer")
                    onThread(client)
                    answers.append(try reply.decode(String.self))
                }
                return answers
            }
        }
        #expect(answers == Array(repeating: "outer(back)", count: 20))
        #expect(offThread.value == 0)
    }

    /// Either side may close: the other learns it as a connection loses its bus, and its bus-like
    /// streams report the peer gone.
    @Test(arguments: [true, false])
    func closingOneSideEndsTheOthersCallsStreamsAndWaiters(closingTheAcceptingSide: Bool) async throws {
        let (accepting, connecting) = try await Connection.pair()
        let (closing, left) = closingTheAcceptingSide ? (accepting, connecting) : (connecting, accepting)
        defer { left.close() }
        let arrivals = Beacon()
        try serve(on: closing, arrivals: arrivals)
        let signals = try await left.signals(matching: MatchRule(interface: interface))
        let everyone = try await left.nameOwnerChanges(for: nil)
        let service = try await left.nameOwnerChanges(for: "io.waypost.Dispatcher")
        let closingName = closing.uniqueName
        #expect(try await closing.requestName("io.waypost.Dispatcher") == .primaryOwner)
        let taken = NameOwnerChange(name: "io.waypost.Dispatcher", oldOwner: nil, newOwner: closingName)
        #expect(try await next(everyone, "the service taken") == taken)
        #expect(try await next(service, "the service taken, for its watcher") == taken)
        let call = Task { try await left.call(destination: closingName, path: path, interface: interface, member: "Hang") }
        let waiter = Task { try await left.waitUntilClosed() }
        try await arrivals.next("the call reaches its handler")

        closing.close()
        #expect(try await withDeadline("the closing side's end") { try await closing.waitUntilClosed() } == .closedLocally)
        let reason = try await withDeadline("the other side's end") { try await waiter.value }
        guard case .disconnected(let error) = reason else {
            Issue.record("expected a disconnection, got \(reason)")
            return
        }
        #expect(error.name == .disconnected)
        let callError = await #expect(throws: BusError.self) { try await withDeadline("the call fails") { try await call.value } }
        #expect(callError?.name == .disconnected)
        await #expect(throws: BusError.self) { try await withDeadline("the signals end") { for try await _ in signals {} } }
        // As a bus says it: the names the peer owned, then its own.
        let gone = NameOwnerChange(name: "io.waypost.Dispatcher", oldOwner: closingName, newOwner: nil)
        #expect(try await next(everyone, "the service leaving") == gone)
        #expect(try await next(everyone, "the peer leaving") == NameOwnerChange(name: closingName, oldOwner: closingName, newOwner: nil))
        #expect(try await next(service, "the service leaving, for its watcher") == gone)
        #expect(try await left.nameOwner(of: "io.waypost.Dispatcher") == nil)
        #expect(!left.isConnected)
        await #expect(throws: BusError.self) { try await left.processID(of: closingName) }
    }

    @Test func pairsNeverShareAName() async throws {
        let pairs = try await withDeadline("three pairs") {
            try await [Connection.pair(), Connection.pair(), Connection.pair()]
        }
        defer { for (first, second) in pairs { first.close(); second.close() } }
        let names = pairs.flatMap { [$0.0.uniqueName, $0.1.uniqueName] }
        #expect(Set(names).count == 6)
    }
}
