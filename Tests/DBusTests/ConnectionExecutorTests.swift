import DBus
import Dispatch
import Synchronization
import Testing
import TestSupport

private let interface: InterfaceName = "org.waypost.Test"
private let path: ObjectPath = "/org/waypost/OnThread"

/// State that lives on a connection's thread, as an actor whose executor is that thread.
private actor Tally {
    let connection: Connection
    private var calls = 0
    private var offThread = 0

    init(on connection: Connection) { self.connection = connection }

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        connection.executor.serial.asUnownedSerialExecutor()
    }

    func count() -> Int {
        calls += 1
        if !connection.executor.isCurrent { offThread += 1 }
        return calls
    }

    var offThreadCount: Int { offThread }
}

@Suite(.privateBus) struct ConnectionExecutorTests {
    @Test func handlersAndCallersOnTheConnectionThreadAnswerAndMayBeCalledBackInto() async throws {
        // outer (on `service`) calls inner (on `helper`), which calls `service` back before answering;
        // every handler and the client run on their own connection's thread.
        let service = try await PrivateBus.suiteBus.connect()
        let helper = try await PrivateBus.suiteBus.connect()
        let client = try await PrivateBus.suiteBus.connect()
        let (serviceName, helperName) = (service.uniqueName, helper.uniqueName)
        let offThread = Counter()
        @Sendable func onThread(_ connection: Connection) {
            if !connection.executor.isCurrent { offThread.increment() }
        }
        try service.export(path, interfaces: [
            Interface(interface, methods: [
                Method("Outer", returns: [Argument("answer", "s")]) { call in
                    onThread(service)
                    let inner = try await service.call(
                        destination: helperName, path: path, interface: interface, member: "Inner")
                    onThread(service)
                    return try call.reply("outer(" + (try inner.decode(String.self)) + ")")
                },
                Method("Callback", returns: [Argument("answer", "s")]) { call in
                    onThread(service)
                    return try call.reply("callback")
                },
            ])
        ], executor: service.executor)
        try helper.export(path, interfaces: [
            Interface(interface, methods: [
                Method("Inner", returns: [Argument("answer", "s")]) { call in
                    let back = try await helper.call(
                        destination: serviceName, path: path, interface: interface, member: "Callback")
                    onThread(helper)
                    return try call.reply("inner(" + (try back.decode(String.self)) + ")")
                }
            ])
        ], executor: helper.executor)

        let answers = try await withDeadline("every answer", seconds: 10) {
            try await withTaskExecutorPreference(client.executor) {
                var answers: [String] = []
                for _ in 0..<50 {
                    let reply = try await client.call(
                        destination: serviceName, path: path, interface: interface, member: "Outer")
                    onThread(client)
                    answers.append(try reply.decode(String.self))
                }
                return answers
            }
        }
        #expect(answers == Array(repeating: "outer(inner(callback))", count: 50))
        #expect(offThread.value == 0)
        for connection in [service, helper, client] { connection.close() }
    }

    @Test func anActorOnTheConnectionThreadServesConcurrentCallsOneAtATime() async throws {
        let service = try await PrivateBus.suiteBus.connect()
        let client = try await PrivateBus.suiteBus.connect()
        let tally = Tally(on: service)
        try service.export(path, interfaces: [
            Interface(interface, methods: [
                Method("Count", returns: [Argument("count", "u")]) { call in
                    try call.reply(UInt32(await tally.count()))
                }
            ])
        ], executor: service.executor)
        let serviceName = service.uniqueName
        let counts = try await withDeadline("every count") {
            try await withThrowingTaskGroup(of: [UInt32].self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        var seen: [UInt32] = []
                        for _ in 0..<50 {
                            seen.append(try await client.call(
                                destination: serviceName, path: path, interface: interface, member: "Count"
                            ).decode(UInt32.self))
                        }
                        return seen
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
        }
        // Each call saw a different count: the actor ran one call at a time, and every call was answered.
        #expect(counts.sorted() == Array(1...400).map(UInt32.init))
        #expect(await tally.offThreadCount == 0)
        service.close()
        client.close()
    }

    @Test func aMethodAnsweringAtOnceRunsOnTheConnectionThreadUnlessItsObjectNamesAnotherExecutor() async throws {
        let service = try await PrivateBus.suiteBus.connect()
        let other = try await PrivateBus.suiteBus.connect()
        let client = try await PrivateBus.suiteBus.connect()
        let offService = Counter()
        let offOther = Counter()
        func acknowledge(on expected: Connection, counting misses: Counter) -> Method {
            .answeringAtOnce("Acknowledge", arguments: [Argument("token", "u")], returns: [Argument("token", "u")]) { call in
                if !expected.executor.isCurrent { misses.increment() }
                let token = try call.arguments(UInt32.self)
                return try call.reply(token)
            }
        }
        let elsewhere: ObjectPath = "/org/waypost/Elsewhere"
        // No executor: a task would run on the global pool; at once, it runs on the service's thread.
        try service.export(path, interfaces: [Interface(interface, methods: [acknowledge(on: service, counting: offService)])])
        // Another connection's executor, named for this object: its handler runs there, as a task.
        try service.export(
            elsewhere, interfaces: [Interface(interface, methods: [acknowledge(on: other, counting: offOther)])],
            executor: other.executor)
        let serviceName = service.uniqueName
        for token in UInt32(1)...20 {
            for objectPath in [path, elsewhere] {
                let reply = try await client.call(
                    destination: serviceName, path: objectPath, interface: interface, member: "Acknowledge", token)
                #expect(try reply.decode(UInt32.self) == token)
            }
        }
        #expect(offService.value == 0)
        #expect(offOther.value == 0)
        for connection in [service, other, client] { connection.close() }
    }

    @Test func aMethodAnsweringAtOnceWaitsBehindCallsThatArrivedBeforeIt() async throws {
        // Both calls are read in one go: the first one's task is queued on the connection's thread
        // when the second arrives, and the second must not overtake it.
        let service = try await PrivateBus.suiteBus.connect()
        let client = try await PrivateBus.suiteBus.connect()
        let order = Mutex<[String]>([])
        let answered = Beacon()
        try service.export(path, interfaces: [
            Interface(interface, methods: [
                Method("First") { call in
                    order.withLock { $0.append("first") }
                    answered.signal()
                    return try call.reply()
                },
                Method.answeringAtOnce("Second") { call in
                    order.withLock { $0.append("second") }
                    answered.signal()
                    return try call.reply()
                },
            ])
        ], executor: service.executor)
        // The service's thread is held until both calls wait in its socket.
        let held = Beacon()
        let release = DispatchSemaphore(value: 0)
        service.executor.afterPendingInput {
            held.signal()
            release.wait()
        }
        try await held.next("the service's thread is held")
        let serviceName = service.uniqueName
        try client.send(destination: serviceName, path: path, interface: interface, member: "First")
        try client.send(destination: serviceName, path: path, interface: interface, member: "Second")
        // The bus handles one sender's messages in order: once it answered this, it passed both on.
        _ = try await client.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetId")
        release.signal()
        try await answered.next("the first call is answered")
        try await answered.next("the second call is answered")
        #expect(order.withLock { $0 } == ["first", "second"])
        service.close()
        client.close()
    }

    @Test func workWaitingOnAClosedConnectionsThreadStillRuns() async throws {
        let service = try await PrivateBus.suiteBus.connect()
        let closing = try await PrivateBus.suiteBus.connect()
        let arrivals = Beacon()
        try service.export(path, interfaces: [
            Interface(interface, methods: [
                Method("Stall") { call in
                    arrivals.signal()
                    await stallUntilCancelled()
                    return try call.reply()
                }
            ])
        ])
        let serviceName = service.uniqueName
        let pending = Task(executorPreference: closing.executor) {
            try await closing.call(destination: serviceName, path: path, interface: interface, member: "Stall")
        }
        try await arrivals.next("the call reaches its handler")
        closing.close()
        let error = await #expect(throws: BusError.self) { try await withDeadline { try await pending.value } }
        #expect(error?.name == .disconnected)
        // The thread is gone; its executor still runs what is sent to it, actors included.
        let tally = Tally(on: closing)
        #expect(try await withDeadline { await tally.count() } == 1)
        // A yield queues the task on its preferred executor again: only the queue after close can run it.
        let resumed = try await withDeadline {
            await withTaskExecutorPreference(closing.executor) {
                await Task.yield()
                return closing.executor.isCurrent
            }
        }
        #expect(resumed == false)  // it ran, and not on the ended loop thread
        service.close()
    }
}
