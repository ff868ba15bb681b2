import DBus
import Foundation
import Testing
import TestSupport

private let tickInterface: InterfaceName = "org.waypost.Ticker"

/// How many match rules the bus holds for `connection` (org.freedesktop.DBus.Debug.Stats).
private func matchRules(of connection: Connection, askedBy observer: Connection) async throws -> UInt32 {
    let stats = try await observer.call(
        destination: .bus, path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus.Debug.Stats",
        member: "GetConnectionStats", connection.uniqueName.rawValue
    ).decode([String: Variant].self)
    return try stats["MatchRules"]?.decode(as: UInt32.self) ?? 0
}

@Suite(.privateBus) struct SignalTests {
    @Test func subscribersGetMatchingSignalsAndEndingTheStreamRemovesTheRule() async throws {
        let bus = try PrivateBus.suiteBus
        let (emitter, listener, observer) = try await (bus.connect(), bus.connect(), bus.connect())
        let rule = MatchRule(path: "/ticker", interface: tickInterface, member: "Ticked")
        var received: [UInt32] = []
        do {
            let signals = try await listener.signals(matching: rule)
            #expect(try await matchRules(of: listener, askedBy: observer) == 1)
            try emitter.emit(path: "/ticker", interface: tickInterface, member: "Other", UInt32(99))
            for count in UInt32(1)...3 {
                try emitter.emit(path: "/ticker", interface: tickInterface, member: "Ticked", count)
            }
            received = try await withDeadline("three ticks") {
                var received: [UInt32] = []
                for try await signal in signals {
                    #expect(signal.sender == emitter.uniqueName)
                    #expect(signal.member == "Ticked")
                    received.append(try signal.decode(UInt32.self))
                    if received.count == 3 { break }
                }
                return received
            }
        }
        #expect(received == [1, 2, 3])
        // The stream is gone, so RemoveMatch is on its way (sent without waiting for a reply).
        try await waitUntil("the bus has removed the rule") { try await matchRules(of: listener, askedBy: observer) == 0 }
        #expect(try await matchRules(of: listener, askedBy: observer) == 0)
    }

    /// While the bus reads nothing, the socket fills: what cannot be written waits in libdbus's
    /// queue, a message begun is finished once the bus reads again, and nothing is lost or reordered.
    @Test func aBusThatStopsReadingForAWhileGetsEverySignalInOrder() async throws {
        let bus = try await PrivateBus()  // its own: the suite's other tests must not stall
        defer { bus.stop() }
        let (emitter, listener) = try await (bus.connect(), bus.connect())
        let signals = try await listener.signals(matching: MatchRule(path: "/ticker", interface: tickInterface))
        let padding = String(repeating: "p", count: 200)
        let large = String(repeating: "L", count: 600_000)
        func emit(_ counts: Range<UInt32>) throws {
            for count in counts {
                try emitter.emit(
                    path: "/ticker", interface: tickInterface, member: "Ticked", count, count == 1_500 ? large : padding)
            }
        }
        // Every one of the first half is emitted while the bus reads nothing.
        bus.pause()
        try emit(0..<3_000)
        bus.resume()
        // Straight on, while libdbus still writes what it queued: these must go after it.
        try emit(3_000..<6_000)
        let received = try await withDeadline("every signal received", seconds: 20) {
            var received: [(count: UInt32, length: Int)] = []
            for try await signal in signals {
                let (count, text) = try signal.decode(UInt32.self, String.self)
                received.append((count, text.count))
                if received.count == 6_000 { break }
            }
            return received
        }
        #expect(received.map(\.count) == Array(0..<6_000))
        #expect(received.allSatisfy { $0.length == ($0.count == 1_500 ? large.count : padding.count) })
    }

    @Test func cancellingTheConsumingTaskRemovesTheRule() async throws {
        let bus = try PrivateBus.suiteBus
        let (listener, observer) = try await (bus.connect(), bus.connect())
        let consumer = Task {
            let signals = try await listener.signals(matching: MatchRule(interface: tickInterface))
            for try await _ in signals {}
        }
        try await waitUntil("the bus has the rule") { try await matchRules(of: listener, askedBy: observer) == 1 }
        consumer.cancel()
        _ = try await withDeadline("the consumer ends") { await consumer.result }
        try await waitUntil("the bus has removed the rule") { try await matchRules(of: listener, askedBy: observer) == 0 }
        #expect(try await matchRules(of: listener, askedBy: observer) == 0)
    }

    @Test func anInvalidRuleIsRefusedByTheBus() async throws {
        let listener = try await PrivateBus.suiteBus.connect()
        let error = await #expect(throws: BusError.self) {
            _ = try await listener.signals(matching: MatchRule(arguments: [64: "x"]))
        }
        #expect(error?.name == .matchRuleInvalid)
    }

    @Test func argumentMatchesFilterLocallyToo() async throws {
        let bus = try PrivateBus.suiteBus
        let (emitter, listener) = try await (bus.connect(), bus.connect())
        let apps = try await listener.signals(matching: MatchRule(interface: tickInterface, arguments: [1: "app"]))
        try emitter.emit(path: "/ticker", interface: tickInterface, member: "Named", UInt32(1), "other")
        try emitter.emit(path: "/ticker", interface: tickInterface, member: "Named", UInt32(2), "app")
        let (count, name) = try await next(apps, "the signal naming the app").decode(UInt32.self, String.self)
        #expect(count == 2 && name == "app")
    }

    @Test func nameOwnersAreWatchedAndNamesRequestedAndReleased() async throws {
        let bus = try PrivateBus.suiteBus
        let (owner, rival, watcher) = try await (bus.connect(), bus.connect(), bus.connect())
        let name: BusName = "org.waypost.Watched"
        let changes = try await watcher.nameOwnerChanges(for: name)
        #expect(try await watcher.nameOwner(of: name) == nil)

        #expect(try await owner.requestName(name) == .primaryOwner)
        #expect(try await owner.requestName(name) == .alreadyOwner)
        #expect(try await rival.requestName(name, flags: .doNotQueue) == .exists)
        #expect(try await rival.requestName(name) == .inQueue)
        #expect(try await watcher.nameOwner(of: name) == owner.uniqueName)
        #expect(try await watcher.releaseName(name) == .notOwner)
        #expect(try await watcher.releaseName("org.waypost.Nobody") == .nonExistent)
        #expect(try await owner.releaseName(name) == .released)  // the queued rival takes it
        try await rival.releaseName(name).assertReleased()

        let seen = try await withDeadline("three changes of owner") {
            var seen: [NameOwnerChange] = []
            for try await change in changes {
                seen.append(change)
                if seen.count == 3 { break }
            }
            return seen
        }
        #expect(seen == [
            NameOwnerChange(name: name, oldOwner: nil, newOwner: owner.uniqueName),
            NameOwnerChange(name: name, oldOwner: owner.uniqueName, newOwner: rival.uniqueName),
            NameOwnerChange(name: name, oldOwner: rival.uniqueName, newOwner: nil),
        ])
    }

    @Test func theSendersProcessAndUserAreKnown() async throws {
        let bus = try PrivateBus.suiteBus
        let (asker, other) = try await (bus.connect(), bus.connect())
        #expect(try await asker.processID(of: other.uniqueName) == UInt32(getpid()))
        #expect(try await asker.unixUser(of: other.uniqueName) == UInt32(getuid()))
        let gone = await #expect(throws: BusError.self) { try await asker.processID(of: ":1.9999") }
        #expect(gone?.name == .nameHasNoOwner)
    }

    @Test func whenTheBusGoesAwayCallsStreamsAndWaitersLearnIt() async throws {
        let ownBus = try await PrivateBus()
        defer { ownBus.stop() }
        let connection = try await ownBus.connect()
        let service = try await ownBus.connect()
        let arrivals = Beacon()
        try service.export("/slow", interfaces: [
            Interface(tickInterface, methods: [
                Method("Hang") { call in
                    arrivals.signal()
                    await stallUntilCancelled()
                    return try call.reply()
                }
            ])
        ])
        let signals = try await connection.signals(matching: MatchRule(interface: tickInterface))
        let destination = service.uniqueName
        let call = Task {
            try await connection.call(destination: destination, path: "/slow", interface: tickInterface, member: "Hang")
        }
        let waiter = Task { try await connection.waitUntilClosed() }
        try await arrivals.next("the call reaches its handler")
        ownBus.stop()
        let reason = try await withDeadline("the connection learns the bus is gone") { try await waiter.value }
        guard case .disconnected(let error) = reason else {
            Issue.record("expected a disconnection, got \(reason)")
            return
        }
        #expect(error.name == .disconnected)
        let callError = await #expect(throws: BusError.self) { try await withDeadline("the call fails") { try await call.value } }
        #expect(callError?.name == .disconnected)
        await #expect(throws: BusError.self) { try await withDeadline("the signals end") { for try await _ in signals {} } }
        #expect(!connection.isConnected)
    }
}

extension ReleaseNameReply {
    fileprivate func assertReleased(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(self == .released, sourceLocation: sourceLocation)
    }
}
