// bus-bench: bus round trips through Waypost's DBus module, beside libdbus in C, on one private bus.
//
//   bus-bench                        run everything and print the figures
//   bus-bench echo-service ADDRESS NAME pool|connection-thread
//                                    (internal) the Swift echo service, run as its own process
//
// Swift figures come twice: with tasks on the global concurrent pool (the default), and with the
// client's calls and the service's handlers on each connection's own thread (`ConnectionExecutor`).
//
// The C programs are the yardsticks in Benchmarks/yardsticks (`echo-server`, `call-client`), built into
// a temporary directory and run in the same run, on the same bus, so ratios are fair.
import BenchSupport
import CMallocInfo
import DBus
import Foundation

// The Swift services answer at the C echo-server's path and interface, so call-client can call both.
let echoPath = try ObjectPath(Yardsticks.path)
let echoInterface = try InterfaceName(Yardsticks.interface)
let swiftEchoName: BusName = "org.waypost.BenchEcho"
let swiftLoopEchoName: BusName = "org.waypost.BenchEchoOnConnectionThread"
let cEchoName = try BusName(Yardsticks.echoName)
let argument = Yardsticks.argument

// MARK: The Swift echo service (child process)

func serveEcho(address: String, name: BusName, onConnectionThread: Bool) async throws -> Never {
    let connection = try await Connection(address: address)
    try connection.export(echoPath, interfaces: [
        Interface(echoInterface, methods: [
            Method("Echo", arguments: [Argument("text", "s")], returns: [Argument("text", "s")]) { call in
                let text = try call.arguments(String.self)
                return try call.reply(text)
            }
        ])
    ], executor: onConnectionThread ? connection.executor : nil)
    guard try await connection.requestName(name, flags: .doNotQueue) == .primaryOwner else {
        FileHandle.standardError.write(Data("name \(name) not acquired\n".utf8))
        exit(1)
    }
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    _ = try await connection.waitUntilClosed()
    exit(0)
}

// MARK: Measuring

func sequentialCalls(_ connection: Connection, to destination: BusName, count: Int) async throws -> Latency {
    var samples: [Double] = []
    samples.reserveCapacity(count)
    let clock = ContinuousClock()
    for _ in 0..<count {
        let start = clock.now
        let reply = try await connection.call(
            destination: destination, path: echoPath, interface: echoInterface, member: "Echo", argument)
        let elapsed = clock.now - start
        guard try reply.decode(String.self) == argument else { fatalError("wrong echo") }
        samples.append(elapsed.microseconds)
    }
    return Latency(samples: samples)
}

/// Calls per second with `clients` connections, each making sequential calls at the same time.
func throughput(address: String, to destination: BusName, clients: Int, callsEach: Int) async throws -> Double {
    var connections: [Connection] = []
    for _ in 0..<clients { connections.append(try await Connection(address: address)) }
    for connection in connections { _ = try await sequentialCalls(connection, to: destination, count: 200) }
    let start = ContinuousClock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for connection in connections {
            group.addTask(executorPreference: connection.executor) {
                _ = try await sequentialCalls(connection, to: destination, count: callsEach)
            }
        }
        try await group.waitForAll()
    }
    let seconds = (ContinuousClock.now - start) / .seconds(1)
    for connection in connections { connection.close() }
    return Double(clients * callsEach) / seconds
}

func heapInUse() -> Int { Int(mallinfo2().uordblks) }

// MARK: Driver

func main() async throws {
    let arguments = CommandLine.arguments
    if arguments.count == 5, arguments[1] == "echo-service" {
        try await serveEcho(
            address: arguments[2], name: try BusName(arguments[3]), onConnectionThread: arguments[4] == "connection-thread")
    }

    let sequentialCount = 20_000
    let memoryCount = 100_000
    let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("bus-bench-\(getpid())")
    try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: temporary) }

    let bus = try PrivateBus(socketDirectory: temporary)
    let address = bus.address
    var children: [Process] = []
    defer {
        for child in children where child.isRunning { child.terminate() }
        bus.stop()
    }

    let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    let swiftService = try start(me, ["echo-service", address, swiftEchoName.rawValue, "pool"], address: address, waitFor: "ready")
    children.append(swiftService)
    children.append(try start(
        me, ["echo-service", address, swiftLoopEchoName.rawValue, "connection-thread"], address: address, waitFor: "ready"))

    let yardsticks = try Yardsticks(buildingInto: temporary.appendingPathComponent("yardsticks"))
    children.append(try yardsticks.startEchoServer(address: address))

    let rounds = 5
    let perRound = sequentialCount / rounds
    print("bus-bench: private bus, \(rounds) rounds of \(perRound) sequential Echo(s) calls per figure, the figures interleaved")
    print("within each round so that the machine's drift hits all alike; after 2,000 warm-up calls each")
    print("")
    let client = try await Connection(address: address)
    func onThread(_ destination: BusName, count: Int) async throws -> Latency {
        try await withTaskExecutorPreference(client.executor) {
            try await sequentialCalls(client, to: destination, count: count)
        }
    }
    _ = try await sequentialCalls(client, to: swiftEchoName, count: 2_000)
    _ = try await onThread(swiftLoopEchoName, count: 2_000)
    _ = try await onThread(cEchoName, count: 2_000)
    var pool = Latency(samples: []), threads = Latency(samples: []), swiftToC = Latency(samples: [])
    var cToC: [Double] = [], cToSwift: [Double] = []
    var poolRatios: [Double] = [], threadRatios: [Double] = []
    for _ in 0..<rounds {
        let roundPool = try await sequentialCalls(client, to: swiftEchoName, count: perRound)
        let roundThreads = try await onThread(swiftLoopEchoName, count: perRound)
        pool.samples += roundPool.samples
        threads.samples += roundThreads.samples
        swiftToC.samples += try await onThread(cEchoName, count: perRound).samples
        let c = try yardsticks.meanMicroseconds(calls: perRound, to: cEchoName.rawValue, address: address)
        cToC.append(c)
        cToSwift.append(try yardsticks.meanMicroseconds(calls: perRound, to: swiftLoopEchoName.rawValue, address: address))
        poolRatios.append(roundPool.mean / c)
        threadRatios.append(roundThreads.mean / c)
    }
    func line(_ label: String, _ latency: Latency) -> String {
        "\(label)  median \(format(latency.median)) µs  p99 \(format(latency.p99)) µs  mean \(format(latency.mean)) µs  (\(Int(1e6 / latency.mean)) calls/s)"
    }
    print(line("Swift client -> Swift service, on each connection's thread", threads))
    print(line("Swift client -> Swift service, tasks on the global pool   ", pool))
    print(line("Swift client -> C service, on the connection's thread     ", swiftToC))
    print("C client -> C service                                       mean \(format(median(cToC))) µs (median of the rounds' means; call-client)")
    print("C client -> Swift service, on the connection's thread       mean \(format(median(cToSwift))) µs (median of the rounds' means; call-client)")
    print("")
    let listed = { (ratios: [Double]) in ratios.map { String(format: "%.2f", $0) }.joined(separator: " ") }
    print("ratio Swift->Swift / C->C, on the connection's thread: \(String(format: "%.2f", median(threadRatios)))x   (median of rounds: \(listed(threadRatios)))   target <= 1.30x")
    print("ratio Swift->Swift / C->C, tasks on the global pool:   \(String(format: "%.2f", median(poolRatios)))x   (median of rounds: \(listed(poolRatios)))")
    print("ratio Swift->C / C->C (client side): \(String(format: "%.2f", swiftToC.mean / median(cToC)))x; C->Swift / C->C (service side): \(String(format: "%.2f", median(cToSwift) / median(cToC)))x")
    print("")
    let calls = 8_000
    let one = try await throughput(address: address, to: swiftLoopEchoName, clients: 1, callsEach: calls)
    let four = try await throughput(address: address, to: swiftLoopEchoName, clients: 4, callsEach: calls / 4 * 2)
    print("throughput Swift clients -> Swift service (connection threads): 1 client \(Int(one)) calls/s, 4 clients \(Int(four)) calls/s")
    func cThroughput(_ clients: Int, _ each: Int) throws -> Double {
        let warmUp = 200
        let began = ContinuousClock.now
        let processes = try (0..<clients).map { _ in
            try start(yardsticks.callClient, yardsticks.callClientArguments(calls: each, to: cEchoName.rawValue, warmUp: warmUp), address: address)
        }
        for process in processes { process.waitUntilExit() }
        return Double(clients * (each + warmUp)) / ((ContinuousClock.now - began) / .seconds(1))
    }
    print("throughput C clients -> C service:         1 client \(Int(try cThroughput(1, calls))) calls/s, 4 clients \(Int(try cThroughput(4, calls / 4 * 2))) calls/s (incl. process start)")

    print("")
    let rssBefore = residentKiB(), heapBefore = heapInUse()
    let serviceBefore = residentKiB(of: "\(swiftService.processIdentifier)")
    _ = try await sequentialCalls(client, to: swiftEchoName, count: memoryCount)
    let rssAfter = residentKiB(), heapAfter = heapInUse()
    let serviceAfter = residentKiB(of: "\(swiftService.processIdentifier)")
    print("memory over \(memoryCount) calls: client RSS \(rssBefore) -> \(rssAfter) KiB, client heap in use \(heapBefore / 1024) -> \(heapAfter / 1024) KiB; service RSS \(serviceBefore) -> \(serviceAfter) KiB")
    client.close()
}

try await main()
