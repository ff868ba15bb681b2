// bus-bench: bus round trips through Waypost's DBus module, beside libdbus in C, on one private bus.
//
//   bus-bench                        run everything and print the figures
//   bus-bench echo-service ADDRESS   (internal) the Swift echo service, run as its own process
//
// The C programs come from ../shared/baselines (next to the project root) when it exists; they are
// built into a temporary directory and run in the same run, on the same bus, so ratios are fair.
import CMallocInfo
import DBus
import Foundation

let echoPath: ObjectPath = "/org/perfanchors/Echo"
let echoInterface: InterfaceName = "org.perfanchors.Echo"
let swiftEchoName: BusName = "org.waypost.BenchEcho"
let cEchoName: BusName = "org.perfanchors.Echo"
let argument = "myscheme://hello"

// MARK: The Swift echo service (child process)

func serveEcho(address: String) async throws -> Never {
    let connection = try await Connection(address: address)
    try connection.export(echoPath, interfaces: [
        Interface(echoInterface, methods: [
            Method("Echo", arguments: [Argument("text", "s")], returns: [Argument("text", "s")]) { call in
                let text = try call.arguments(String.self)
                return try call.reply(text)
            }
        ])
    ])
    guard try await connection.requestName(swiftEchoName, flags: .doNotQueue) == .primaryOwner else {
        FileHandle.standardError.write(Data("name \(swiftEchoName) not acquired\n".utf8))
        exit(1)
    }
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    _ = try await connection.waitUntilClosed()
    exit(0)
}

// MARK: Measuring

struct Latency {
    var samples: [Double]  // microseconds
    var median: Double { percentile(0.5) }
    var p99: Double { percentile(0.99) }
    var mean: Double { samples.reduce(0, +) / Double(samples.count) }
    func percentile(_ p: Double) -> Double {
        let sorted = samples.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }
}

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
        samples.append(Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6)
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
            group.addTask { _ = try await sequentialCalls(connection, to: destination, count: callsEach) }
        }
        try await group.waitForAll()
    }
    let seconds = (ContinuousClock.now - start) / .seconds(1)
    for connection in connections { connection.close() }
    return Double(clients * callsEach) / seconds
}

func residentKiB(of pid: String = "self") -> Int {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? -1
    }
    return -1
}

func heapInUse() -> Int { Int(mallinfo2().uordblks) }

// MARK: Processes

func start(_ executable: String, _ arguments: [String], address: String, waitFor line: String? = nil) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    environment["DBUS_SESSION_BUS_ADDRESS"] = address
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    if let line {
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains(line) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw BenchError("\(executable) exited before saying '\(line)'") }
            seen.append(chunk)
        }
    }
    return process
}

func runToEnd(_ executable: String, _ arguments: [String], address: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    environment["DBUS_SESSION_BUS_ADDRESS"] = address
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `rt_client` prints `… us_per_call=80.12 calls_per_s=12481`.
func field(_ name: String, in line: String) -> Double? {
    for part in line.split(separator: " ") where part.hasPrefix(name + "=") {
        return Double(part.dropFirst(name.count + 1))
    }
    return nil
}

func baselinesDirectory() -> String? {
    // Benchmarks/ is inside the project root; the baselines sit in ../shared/baselines from the root,
    // or at /work/shared/baselines on the team's machines.
    let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).deletingLastPathComponent()
    for candidate in [root.deletingLastPathComponent().appendingPathComponent("shared/baselines").path,
                      "/work/shared/baselines"]
    where FileManager.default.fileExists(atPath: candidate + "/rt_client.c") {
        return candidate
    }
    return nil
}

func format(_ value: Double) -> String { String(format: "%.1f", value) }

// MARK: Driver

func main() async throws {
    let arguments = CommandLine.arguments
    if arguments.count == 3, arguments[1] == "echo-service" { try await serveEcho(address: arguments[2]) }

    let sequentialCount = 20_000
    let memoryCount = 100_000
    let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("bus-bench-\(getpid())")
    try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: temporary) }

    // A private session bus, never the user's.
    let daemon = Process()
    daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
    daemon.arguments = ["--session", "--nofork", "--print-address=1", "--address=unix:dir=\(temporary.path)"]
    let daemonOutput = Pipe()
    daemon.standardOutput = daemonOutput
    daemon.standardError = FileHandle.nullDevice
    try daemon.run()
    var addressData = Data()
    while !addressData.contains(UInt8(ascii: "\n")) { addressData.append(daemonOutput.fileHandleForReading.availableData) }
    let address = String(decoding: addressData, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    var children: [Process] = []
    defer {
        for child in children where child.isRunning { child.terminate() }
        kill(daemon.processIdentifier, SIGKILL)
    }

    let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    let swiftService = try start(me, ["echo-service", address], address: address, waitFor: "ready")
    children.append(swiftService)

    var cBin: String?
    if let baselines = baselinesDirectory() {
        let bin = temporary.appendingPathComponent("baselines").path
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/make")
        make.arguments = ["-s", "-C", baselines, "BIN=\(bin)"]
        make.standardOutput = FileHandle.nullDevice
        try make.run()
        make.waitUntilExit()
        if make.terminationStatus == 0 {
            cBin = bin
            children.append(try start(bin + "/echo_service", [], address: address, waitFor: "ready"))
        }
    }

    print("bus-bench: private bus, \(sequentialCount) sequential Echo(s) calls per figure, after 2,000 warm-up calls")
    print("")
    let client = try await Connection(address: address)
    _ = try await sequentialCalls(client, to: swiftEchoName, count: 2_000)
    let swiftToSwift = try await sequentialCalls(client, to: swiftEchoName, count: sequentialCount)
    print("Swift client -> Swift service  median \(format(swiftToSwift.median)) µs  p99 \(format(swiftToSwift.p99)) µs  mean \(format(swiftToSwift.mean)) µs  (\(Int(1e6 / swiftToSwift.mean)) calls/s)")

    var cRoundTrip: Double?
    if let cBin {
        _ = try await sequentialCalls(client, to: cEchoName, count: 2_000)
        let swiftToC = try await sequentialCalls(client, to: cEchoName, count: sequentialCount)
        print("Swift client -> C service      median \(format(swiftToC.median)) µs  p99 \(format(swiftToC.p99)) µs  mean \(format(swiftToC.mean)) µs")
        let cToC = try runToEnd(cBin + "/rt_client", ["\(sequentialCount)", cEchoName.rawValue, "Echo"], address: address)
        let cToSwift = try runToEnd(cBin + "/rt_client", ["\(sequentialCount)", swiftEchoName.rawValue, "Echo"], address: address)
        cRoundTrip = field("us_per_call", in: cToC)
        print("C client -> C service          mean \(format(cRoundTrip ?? .nan)) µs   (rt_client)")
        print("C client -> Swift service      mean \(format(field("us_per_call", in: cToSwift) ?? .nan)) µs   (rt_client)")
        if let c = cRoundTrip {
            print("")
            print("ratio Swift->Swift / C->C (means): \(String(format: "%.2f", swiftToSwift.mean / c))x   target <= 1.30x")
            print("ratio Swift->C / C->C (means, client side only): \(String(format: "%.2f", swiftToC.mean / c))x")
        }
    } else {
        print("(no ../shared/baselines: C figures skipped)")
    }

    print("")
    let calls = 8_000
    let one = try await throughput(address: address, to: swiftEchoName, clients: 1, callsEach: calls)
    let four = try await throughput(address: address, to: swiftEchoName, clients: 4, callsEach: calls / 4 * 2)
    print("throughput Swift clients -> Swift service: 1 client \(Int(one)) calls/s, 4 clients \(Int(four)) calls/s")
    if let cBin {
        func cThroughput(_ clients: Int, _ each: Int) throws -> Double {
            let began = ContinuousClock.now
            let processes = try (0..<clients).map { _ in
                try start(cBin + "/rt_client", ["\(each)", cEchoName.rawValue, "Echo"], address: address)
            }
            for process in processes { process.waitUntilExit() }
            return Double(clients * (each + 200)) / ((ContinuousClock.now - began) / .seconds(1))
        }
        print("throughput C clients -> C service:         1 client \(Int(try cThroughput(1, calls))) calls/s, 4 clients \(Int(try cThroughput(4, calls / 4 * 2))) calls/s (incl. process start)")
    }

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
