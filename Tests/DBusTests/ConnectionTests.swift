import DBus
import Synchronization
import Testing
import TestSupport

import struct Foundation.Data

private let testInterface: InterfaceName = "org.waypost.Test"
private let testPath: ObjectPath = "/org/waypost/Test"

/// A method answering with its own argument, for any type.
private func echo<Value: BusValue>(_ name: MemberName, _ type: Value.Type) -> Method {
    Method(name, arguments: [Argument("value", Value.busSignature)], returns: [Argument("value", Value.busSignature)]) {
        call in
        let value = try call.arguments(Value.self)
        return try call.reply(value)
    }
}

private struct Local: Error {}

/// The objects most tests talk to, served on their own connection.
final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

/// - Parameters:
///   - arrivals: told by `Stall` and `AwaitGate` as soon as their call reaches them.
///   - gate: what `AwaitGate` waits for before it answers.
private func startService(
    on connection: Connection, counter: Counter? = nil, arrivals: Beacon? = nil, gate: Beacon? = nil
) throws {
    let methods: [Method] = [
        echo("EchoByte", UInt8.self), echo("EchoBool", Bool.self), echo("EchoInt16", Int16.self),
        echo("EchoUInt16", UInt16.self), echo("EchoInt32", Int32.self), echo("EchoUInt32", UInt32.self),
        echo("EchoInt64", Int64.self), echo("EchoUInt64", UInt64.self), echo("EchoDouble", Double.self),
        echo("EchoString", String.self), echo("EchoPath", ObjectPath.self), echo("EchoSignature", Signature.self),
        echo("EchoStrings", [String].self), echo("EchoNested", [[String: [Int32]]].self),
        echo("EchoMap", [String: Variant].self), echo("EchoVariant", Variant.self),
        echo("EchoStruct", Structure<String, Int32, [Double]>.self),
        Method("Count", arguments: [Argument("token", "u")], returns: [Argument("token", "u")]) { call in
            counter?.increment()
            let token = try call.arguments(UInt32.self)
            return try call.reply(token)
        },
        // A call in flight for as long as a test needs one: it says it arrived, then never answers.
        Method("Stall") { call in
            arrivals?.signal()
            await stallUntilCancelled()
            return try call.reply()
        },
        // Answers only once the test opened the gate.
        Method("AwaitGate") { call in
            arrivals?.signal()
            try await gate?.next("the test opens the gate")
            return try call.reply()
        },
        Method("Refuse") { _ in throw BusError("org.waypost.Error.Refused", "not today") },
        Method("FailLocally") { _ in throw Local() },
        Method("WantsInt", arguments: [Argument("option", "v")]) { call in
            _ = try call.arguments(Variant.self).decode(as: Int32.self)
            return try call.reply()
        },
        Method("WrongReply", returns: [Argument("text", "s")]) { call in try call.reply(Int32(1)) },
        Method("EmptyReply", returns: [Argument("text", "s")]) { call in try call.reply() },
        Method("Sender", returns: [Argument("sender", "s")]) { call in try call.reply(call.sender.rawValue) },
        // The same failures from handlers that answer at once, on the connection's thread.
        Method.answeringAtOnce("RefuseAtOnce") { _ in throw BusError("org.waypost.Error.Refused", "not today") },
        Method.answeringAtOnce("FailLocallyAtOnce") { _ in throw Local() },
        Method.answeringAtOnce("WantsIntAtOnce", arguments: [Argument("option", "v")]) { call in
            _ = try call.arguments(Variant.self).decode(as: Int32.self)
            return try call.reply()
        },
        Method.answeringAtOnce("WrongReplyAtOnce", returns: [Argument("text", "s")]) { call in try call.reply(Int32(1)) },
        Method.answeringAtOnce("EmptyReplyAtOnce", returns: [Argument("text", "s")]) { call in try call.reply() },
    ]
    try connection.export(
        testPath,
        interfaces: [
            Interface(
                testInterface, methods: methods,
                signals: [SignalDeclaration("Ticked", arguments: [Argument("count", "u")])],
                properties: [
                    Property("Version", "s") { .string("1.0") },
                    Property("Features", "as") { Variant(["routing", "scenes"]) },
                ])
        ])
}

@Suite(.privateBus) struct ConnectionTests {
    let service: Connection
    let client: Connection
    let arrivals = Beacon()
    let gate = Beacon()

    init() async throws {
        service = try await PrivateBus.suiteBus.connect()
        client = try await PrivateBus.suiteBus.connect()
        try startService(on: service, arrivals: arrivals, gate: gate)
    }

    func call<Value: BusValue>(_ member: MemberName, _ value: Value) async throws -> Value {
        try await client.call(
            destination: service.uniqueName, path: testPath, interface: testInterface, member: member, value
        ).decode(Value.self)
    }

    @Test func everyTypeRoundTripsOverTheBus() async throws {
        #expect(try await call("EchoByte", UInt8.max) == .max)
        #expect(try await call("EchoBool", true) == true)
        #expect(try await call("EchoInt16", Int16.min) == .min)
        #expect(try await call("EchoUInt16", UInt16.max) == .max)
        #expect(try await call("EchoInt32", Int32.min) == .min)
        #expect(try await call("EchoUInt32", UInt32.max) == .max)
        #expect(try await call("EchoInt64", Int64.min) == .min)
        #expect(try await call("EchoUInt64", UInt64.max) == .max)
        #expect(try await call("EchoDouble", -2.5) == -2.5)
        #expect(try await call("EchoString", "wörld 🌍") == "wörld 🌍")
        #expect(try await call("EchoPath", ObjectPath("/a/b")) == "/a/b")
        #expect(try await call("EchoSignature", Signature("a(sv)")) == "a(sv)")
        #expect(try await call("EchoStrings", [String]()) == [])
        #expect(try await call("EchoStrings", ["x", ""]) == ["x", ""])
        let nested: [[String: [Int32]]] = [["a": [1, 2]], [:], ["b": []]]
        #expect(try await call("EchoNested", nested) == nested)
        let map: [String: Variant] = [
            "s": "x", "i": 1, "empty": .array(element: "s", []), "inner": .variant(.dictionary(key: "s", value: "v", [:])),
        ]
        #expect(try await call("EchoMap", map) == map)
        #expect(try await call("EchoMap", [String: Variant]()) == [:])
        #expect(try await call("EchoVariant", Variant.structure([.byte(1), .string("two")])) == .structure([.byte(1), .string("two")]))
        let echoed = try await call("EchoStruct", Structure(("s", Int32(4), [0.5])))
        #expect(echoed.fields.0 == "s" && echoed.fields.1 == 4 && echoed.fields.2 == [0.5])
    }

    @Test func aMessageOverTheBusLimitIsACleanError() async throws {
        // The fixture's bus accepts at most 1 MiB per message.
        let sender = try await PrivateBus.suiteBus.connect()
        let big = String(repeating: "x", count: 2 << 20)
        let error = await #expect(throws: BusError.self) {
            try await sender.call(
                destination: service.uniqueName, path: testPath, interface: testInterface, member: "EchoString", big,
                timeout: .seconds(5))
        }
        // dbus-daemon drops a connection that sends an oversized message; the caller learns it cleanly.
        #expect(error?.name == .disconnected)
        #expect(try await withDeadline { try await sender.waitUntilClosed() } != .closedLocally)
        // Nobody else suffers.
        #expect(try await call("EchoString", "still here") == "still here")
    }

    /// Messages larger than the socket takes at once, sent from several tasks together: each is
    /// written whole before the next begins, and comes back intact.
    @Test func largeMessagesFromConcurrentTasksArriveWhole() async throws {
        let texts = (0..<6).map { String(repeating: String(UnicodeScalar(UInt8(ascii: "a") + UInt8($0))), count: 600_000) }
        let echoed = try await withDeadline("every echo") {
            try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for (index, text) in texts.enumerated() {
                    group.addTask { (index, try await self.call("EchoString", text)) }
                }
                var echoed: [Int: String] = [:]
                for try await (index, text) in group { echoed[index] = text }
                return echoed
            }
        }
        for (index, text) in texts.enumerated() { #expect(echoed[index] == text) }
        #expect(try await call("EchoString", "after") == "after")
    }

    @Test func aThousandConcurrentCallsFromEightTasksAreEachAnsweredOnce() async throws {
        let counter = Counter()
        let counting = try await PrivateBus.suiteBus.connect()
        try startService(on: counting, counter: counter)
        let destination = counting.uniqueName
        let answers = try await withDeadline("every answer") {
            try await withThrowingTaskGroup(of: [UInt32].self) { group in
                for task in 0..<8 {
                    group.addTask { [client] in
                        try await withThrowingTaskGroup(of: UInt32.self) { calls in
                            for index in 0..<125 {
                                let token = UInt32(task * 1000 + index)
                                calls.addTask {
                                    try await client.call(
                                        destination: destination, path: testPath, interface: testInterface, member: "Count",
                                        token
                                    ).decode(UInt32.self)
                                }
                            }
                            return try await calls.reduce(into: []) { $0.append($1) }
                        }
                    }
                }
                return try await group.reduce(into: [UInt32]()) { $0 += $1 }
            }
        }
        let expected = (0..<8).flatMap { task in (0..<125).map { UInt32(task * 1000 + $0) } }
        #expect(answers.count == 1000)
        #expect(answers.sorted() == expected.sorted())
        #expect(counter.value == 1000)
        counting.close()
    }

    @Test func aCallTimesOutWithNoReply() async throws {
        // The handler never answers, so only the call's own timeout can end it.
        let (client, destination) = (client, service.uniqueName)
        let error = await #expect(throws: BusError.self) {
            try await withDeadline {
                try await client.call(
                    destination: destination, path: testPath, interface: testInterface, member: "Stall",
                    timeout: .milliseconds(100))
            }
        }
        #expect(error?.name == .noReply)
        #expect(try await call("EchoInt32", Int32(7)) == 7)
    }

    @Test func cancellingTheCallingTaskEndsTheCall() async throws {
        let (client, destination) = (client, service.uniqueName)
        let slow = Task {
            try await client.call(
                destination: destination, path: testPath, interface: testInterface, member: "Stall")
        }
        try await arrivals.next("the call reaches its handler")  // in flight, and never answered
        slow.cancel()
        await #expect(throws: CancellationError.self) { try await withDeadline { try await slow.value } }
        // A task cancelled before calling never sends.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.call(
                destination: destination, path: testPath, interface: testInterface, member: "EchoInt32", Int32(1))
        }
        await #expect(throws: CancellationError.self) { try await withDeadline("the early call ends") { try await early.value } }
        #expect(try await call("EchoInt32", Int32(8)) == 8)
    }

    @Test func handlerErrorsReachTheCallerByName() async throws {
        func failure(_ member: MemberName, _ arguments: Variant? = nil) async -> BusError? {
            await #expect(throws: BusError.self) {
                if let arguments {
                    _ = try await client.call(
                        destination: service.uniqueName, path: testPath, interface: testInterface, member: member, arguments)
                } else {
                    _ = try await client.call(
                        destination: service.uniqueName, path: testPath, interface: testInterface, member: member)
                }
            }
        }
        for answer in ["", "AtOnce"] {
            func member(_ name: String) -> MemberName { MemberName(rawValue: name + answer)! }
            #expect(await failure(member("Refuse")) == BusError("org.waypost.Error.Refused", "not today"))
            #expect(await failure(member("FailLocally"))?.name == .failed)
            let wrongVariant = await failure(member("WantsInt"), .string("three"))
            #expect(wrongVariant?.name == .invalidArgs)
            #expect(wrongVariant?.message.contains("expected 'i'") == true)
            #expect(await failure(member("WrongReply"))?.name == .failed)
            // An empty reply is made by libdbus itself, not read back: its signature is checked too.
            let empty = await failure(member("EmptyReply"))
            #expect(empty?.name == .failed)
            #expect(empty?.message.contains("answered '' where it declares 's'") == true)
        }
        #expect(await failure("Missing")?.name == .unknownMethod)
    }

    @Test func aCallWithTheWrongSignatureGetsInvalidArgsWithoutRunningTheHandler() async throws {
        let error = await #expect(throws: BusError.self) {
            try await client.call(
                destination: service.uniqueName, path: testPath, interface: testInterface, member: "EchoInt32", "seven")
        }
        #expect(error?.name == .invalidArgs)
        #expect(error?.message.contains("'i'") == true)
        let atOnce = await #expect(throws: BusError.self) {
            try await client.call(
                destination: service.uniqueName, path: testPath, interface: testInterface, member: "WantsIntAtOnce", "seven")
        }
        #expect(atOnce?.name == .invalidArgs)
        #expect(atOnce?.message.contains("takes 'v', not 's'") == true)
    }

    @Test func unknownObjectsAndInterfacesGetTheStandardErrors() async throws {
        let noObject = await #expect(throws: BusError.self) {
            try await client.call(
                destination: service.uniqueName, path: "/nowhere", interface: testInterface, member: "EchoInt32", Int32(1))
        }
        #expect(noObject?.name == .unknownObject)
        let noInterface = await #expect(throws: BusError.self) {
            try await client.call(
                destination: service.uniqueName, path: testPath, interface: "org.waypost.Nope", member: "EchoInt32",
                Int32(1))
        }
        #expect(noInterface?.name == .unknownMethod)
        let noService = await #expect(throws: BusError.self) {
            try await client.call(destination: "org.waypost.Absent", path: testPath, interface: testInterface, member: "X")
        }
        #expect(noService?.name == .serviceUnknown)
    }

    @Test func theHandlerSeesTheCallersUniqueName() async throws {
        let reply = try await client.call(
            destination: service.uniqueName, path: testPath, interface: testInterface, member: "Sender")
        #expect(try reply.decode(String.self) == client.uniqueName.rawValue)
    }

    @Test func aPeerThatDisconnectsMidCallLeavesTheCallerWithAnError() async throws {
        let leaving = try await PrivateBus.suiteBus.connect()
        try leaving.export(
            "/leaving",
            interfaces: [
                Interface(testInterface, methods: [
                    Method("Leave") { call in
                        leaving.close()
                        await stallUntilCancelled()
                        return try call.reply()
                    }
                ])
            ])
        // A timeout far beyond the deadline: only the bus's word that the peer left can end the call.
        let (client, destination) = (client, leaving.uniqueName)
        let error = await #expect(throws: BusError.self) {
            try await withDeadline {
                try await client.call(
                    destination: destination, path: "/leaving", interface: testInterface, member: "Leave",
                    timeout: .seconds(3600))
            }
        }
        #expect(error?.name == .noReply)
        #expect(error?.message.contains("disconnected") == true, "\(String(describing: error))")
    }

    @Test func closingOurConnectionFailsItsPendingCallsAndEndsItsWaiters() async throws {
        let closing = try await PrivateBus.suiteBus.connect()
        let destination = service.uniqueName
        let pending = Task {
            try await closing.call(destination: destination, path: testPath, interface: testInterface, member: "Stall")
        }
        let waiter = Task { try await closing.waitUntilClosed() }
        try await arrivals.next("the call reaches its handler")  // in flight, and never answered
        closing.close()
        let error = await #expect(throws: BusError.self) { try await withDeadline("the pending call fails") { try await pending.value } }
        #expect(error?.name == .disconnected)
        #expect(try await withDeadline("the waiter learns of the close") { try await waiter.value } == .closedLocally)
        #expect(!closing.isConnected)
        await #expect(throws: BusError.self) {
            try await closing.call(destination: destination, path: testPath, interface: testInterface, member: "X")
        }
    }

    @Test func workWhileAwaitingRunsOnceBeforeTheCallReturnsAndNotForACallNeverSent() async throws {
        // The handler answers only once the work ran: it must run while the call is in flight.
        let (client, destination, gate) = (client, service.uniqueName, gate)
        let steps = Mutex<[String]>([])
        _ = try await withDeadline {
            try await client.call(
                destination: destination, path: testPath, interface: testInterface, member: "AwaitGate",
                whileAwaiting: {
                    steps.withLock { $0.append("while awaiting") }
                    gate.signal()
                })
        }
        steps.withLock { $0.append("returned") }
        #expect(steps.withLock { $0 } == ["while awaiting", "returned"])

        let closed = try await PrivateBus.suiteBus.connect()
        closed.close()
        _ = try await withDeadline { try await closed.waitUntilClosed() }
        await #expect(throws: BusError.self) {
            try await closed.call(
                destination: service.uniqueName, path: testPath, interface: testInterface, member: "AwaitGate",
                whileAwaiting: { steps.withLock { $0.append("never sent") } })
        }
        #expect(steps.withLock { $0 } == ["while awaiting", "returned"])
    }

    @Test func aHandlerAwaitingAPeerThatCallsBackDoesNotDeadlock() async throws {
        // outer (on `service`) calls inner (on `helper`), which calls back `service` before answering.
        let helper = try await PrivateBus.suiteBus.connect()
        let backPath: ObjectPath = "/org/waypost/Back"
        let (service, serviceName, helperName) = (service, service.uniqueName, helper.uniqueName)
        try service.export(
            backPath,
            interfaces: [
                Interface(testInterface, methods: [
                    Method("Outer", returns: [Argument("answer", "s")]) { call in
                        let inner = try await service.call(
                            destination: helperName, path: backPath, interface: testInterface, member: "Inner")
                        return try call.reply("outer(" + (try inner.decode(String.self)) + ")")
                    },
                    Method("Callback", returns: [Argument("answer", "s")]) { call in try call.reply("callback") },
                ])
            ])
        try helper.export(
            backPath,
            interfaces: [
                Interface(testInterface, methods: [
                    Method("Inner", returns: [Argument("answer", "s")]) { call in
                        let back = try await helper.call(
                            destination: serviceName, path: backPath, interface: testInterface, member: "Callback")
                        return try call.reply("inner(" + (try back.decode(String.self)) + ")")
                    }
                ])
            ])
        let client = client
        let answer = try await withDeadline("the outer call's answer", seconds: 5) {
            try await client.call(
                destination: serviceName, path: backPath, interface: testInterface, member: "Outer"
            ).decode(String.self)
        }
        #expect(answer == "outer(inner(callback))")
        // The calling connection itself is re-entered: it serves Callback while its own call waits.
        let direct = try await withDeadline("the inner call's answer", seconds: 5) {
            try await service.call(
                destination: helperName, path: backPath, interface: testInterface, member: "Inner"
            ).decode(String.self)
        }
        #expect(direct == "inner(callback)")
        service.unexport(backPath)
        helper.close()
    }

    @Test func introspectionIsServedFromTheTable() async throws {
        let reply = try await client.call(
            destination: service.uniqueName, path: testPath, interface: "org.freedesktop.DBus.Introspectable",
            member: "Introspect")
        let xml = try reply.decode(String.self)
        #expect(xml.hasPrefix("<!DOCTYPE node PUBLIC"))
        #expect(xml.contains("<interface name=\"org.waypost.Test\">"))
        #expect(xml.contains("<method name=\"EchoNested\">"))
        #expect(xml.contains("<arg name=\"value\" type=\"aa{sai}\" direction=\"in\"/>"))
        #expect(xml.contains("<signal name=\"Ticked\">"))
        #expect(xml.contains("<property name=\"Features\" type=\"as\" access=\"read\"/>"))
        #expect(xml.contains("<interface name=\"org.freedesktop.DBus.Properties\">"))
        let parent = try await client.call(
            destination: service.uniqueName, path: "/org/waypost", interface: "org.freedesktop.DBus.Introspectable",
            member: "Introspect"
        ).decode(String.self)
        #expect(parent.contains("<node name=\"Test\"/>"))
        #expect(!parent.contains("<interface"))
    }

    @Test func propertiesAreReadThroughTheStandardInterface() async throws {
        let properties: InterfaceName = "org.freedesktop.DBus.Properties"
        let version = try await client.call(
            destination: service.uniqueName, path: testPath, interface: properties, member: "Get",
            testInterface.rawValue, "Version"
        ).decode(Variant.self)
        #expect(version == .string("1.0"))
        let all = try await client.call(
            destination: service.uniqueName, path: testPath, interface: properties, member: "GetAll",
            testInterface.rawValue
        ).decode([String: Variant].self)
        #expect(all == ["Version": "1.0", "Features": .array(element: "s", ["routing", "scenes"])])
        let unknown = await #expect(throws: BusError.self) {
            try await client.call(
                destination: service.uniqueName, path: testPath, interface: properties, member: "Get",
                testInterface.rawValue, "Nope")
        }
        #expect(unknown?.name == .unknownProperty)
        let readOnly = await #expect(throws: BusError.self) {
            try await client.call(
                destination: service.uniqueName, path: testPath, interface: properties, member: "Set",
                testInterface.rawValue, "Version", Variant.string("2"))
        }
        #expect(readOnly?.name == .propertyReadOnly)
    }

    @Test func peerPingAndMachineIdAreAnswered() async throws {
        let peer: InterfaceName = "org.freedesktop.DBus.Peer"
        _ = try await client.call(destination: service.uniqueName, path: testPath, interface: peer, member: "Ping")
        let id = try await client.call(
            destination: service.uniqueName, path: testPath, interface: peer, member: "GetMachineId"
        ).decode(String.self)
        #expect(id.count == 32 && id.allSatisfy(\.isHexDigit))
        // At any path, exported or not, as the specification has it.
        _ = try await client.call(destination: service.uniqueName, path: "/nowhere", interface: peer, member: "Ping")
        let unknown = await #expect(throws: BusError.self) {
            try await client.call(destination: service.uniqueName, path: "/nowhere", interface: peer, member: "Pong")
        }
        #expect(unknown?.name == .unknownMethod)
    }

    @Test func exportingTwiceAtOnePathIsRefused() throws {
        let error = #expect(throws: BusError.self) { try service.export(testPath, interfaces: []) }
        #expect(error?.name == .objectPathInUse)
    }

    @Test func callsWithoutReplyAreRunAndNotAnswered() async throws {
        let counter = Counter()
        let counting = try await PrivateBus.suiteBus.connect()
        try startService(on: counting, counter: counter)
        try client.send(
            destination: counting.uniqueName, path: testPath, interface: testInterface, member: "Count", UInt32(1))
        // A call with a reply afterwards: the bus keeps order per sender, so the first has arrived.
        _ = try await client.call(
            destination: counting.uniqueName, path: testPath, interface: testInterface, member: "Count", UInt32(2))
        #expect(counter.value == 2)
        counting.close()
    }
}
