import Foundation
import Synchronization
import TestSupport
import Testing

/// Offers as a flood makes them: any process may open `waypost-handoff:` URLs,
/// so each caller's unverified offers are bounded, at most 32 offers are kept, and what the
/// notification server shows follows what is kept — evicted and expired offers leave the screen.
/// One device (no KDE Connect is needed to open a URL), the tests' own notification server (its
/// lines are the screen), and Fixtures/offer_flood.py as the flood: processes of their own, each a caller.
@Suite(.serialized)
struct HandoffFloodTests {
    static let budgetExceeded = "io.waypost.Error.BudgetExceeded"

    @Test("one caller's unverified offers: 8 kept, the rest refused with BudgetExceeded and nothing shown for them")
    func perCaller() async throws {
        let device = try await Device(name: "flood-solo")
        defer { device.close() }
        try #require(await device.waypost("install", "--user").status == 0)
        let screen = try await ServerScreen.start(on: device)
        let flood = try await Flood.start(on: device, callers: 1, batch: 20, prefix: "Solo", once: true)
        let total = try await flood.finished()
        #expect(total.offered == 8, "\(total)\n\(device.busLog)")
        #expect(total.refused == [Self.budgetExceeded: 12], "\(total)")
        #expect(try await HandoffOverKDEConnectTests.offers(on: device, count: 8).count == 8)
        try await waitUntil("the server shows the 8 offers", context: device.busLog) { screen.live == 8 }
        #expect(screen.most == 8)
    }

    @Test("a flood from many callers: at most 32 offers kept and as many on screen at any moment; another app's Open answered while it runs; an unrelated search finds none of them")
    func flood() async throws {
        let device = try await Device(name: "flood")
        defer { device.close() }
        try await device.installApp(
            "org.example.Notes", activityTypes: ["com.example.notes.edit"], scenes: [(id: "list", modifiers: [([], ["*"])])],
            schemes: ["notes"])
        try #require(await device.waypost("install", "--user").status == 0)
        try await device.start("org.example.Notes")
        let screen = try await ServerScreen.start(on: device)

        let flood = try await Flood.start(on: device, callers: 16, batch: 4, prefix: "Flood", once: false)
        try #require(try await flood.process.nextLine("the flood starts") == "flooding")
        // Another app's link, while every caller keeps 4 offers in flight.
        let opened = try await device.waypost("open", "notes://list")
        #expect(opened.status == 0, "\(opened)")
        #expect(device.received("org.example.Notes").map { $0["uri"] as? String } == ["notes://list"])
        // The flood went on after that answer: it was in flight all along. And on, for 800 more
        // offers made and replaced at once, whose receives interleave.
        for _ in 0..<200 { try #require(try await flood.process.nextLine("the flood's next batch") == "batch") }
        flood.process.send(SIGTERM)
        let total = try await flood.finished()
        #expect(total.offered > 32, "offers were replaced by newer ones: \(total)")
        #expect(Set(total.refused.keys).isSubset(of: [Self.budgetExceeded]), "\(total)")

        let list = try await device.waypost("handoff", "list")
        let kept = list.output.split(separator: "\n").count
        #expect(kept <= 32 && kept > 0, "\(list)")
        // What the server shows is what is kept, and never was more than that.
        try await waitUntil("the server shows the \(kept) offers kept", context: device.busLog) { screen.live == kept }
        #expect(screen.most <= 32, "at most 32 on screen, \(screen.most) were")

        let provider = ("io.waypost.Dispatcher", "/io/waypost/Dispatcher/SearchProvider", "org.gnome.Shell.SearchProvider2")
        let unrelated = try await device.busCall(provider.0, provider.1, provider.2 + ".GetInitialResultSet", "array:string:zebra")
        #expect(unrelated.status == 0, "\(unrelated)")
        #expect(!unrelated.output.contains("handoff:"), "\(unrelated)")
        let matching = try await device.busCall(provider.0, provider.1, provider.2 + ".GetInitialResultSet", "array:string:flood")
        #expect(matching.output.contains("handoff:"), "\(matching)")

        // The first offer was replaced by newer ones, and accepting it says so.
        let first = try await device.waypost("handoff", "accept", "1")
        #expect(first.status == 1)
        #expect(first.errors.contains("replaced by newer offers"), "\(first)")
    }

    @Test("a waypost-handoff link is planned as an offer: Explain says so and holds nothing; Open holds it, as an offer")
    func planned() async throws {
        let device = try await Device(name: "flood-planned")
        defer { device.close() }
        try #require(await device.waypost("install", "--user").status == 0)
        let url = "waypost-handoff:v1/" + Flood.payload(title: "Planned")
        let explained = try await device.waypost("explain", url)
        #expect(explained.status == 0, "\(explained)")
        #expect(explained.output.hasPrefix(#"{"action": "offer", "app-id": "io.waypost.Handoff", "rule": "none""#), "\(explained)")
        #expect(try await device.waypost("handoff", "list").output.isEmpty, "Explain holds nothing")
        let opened = try await device.waypost("open", "--verbose", url)
        #expect(opened.status == 0, "\(opened)")
        #expect(opened.output.contains("io.waypost.Handoff [offer, none]"), "\(opened)")
        #expect(try await device.waypost("handoff", "list").output.contains("Planned"))
    }

    @Test("an expired offer's notification is withdrawn; accepting it long after says it expired")
    func expiry() async throws {
        let device = try await Device(name: "flood-expiry")
        defer { device.close() }
        try #require(await device.waypost("install", "--user").status == 0)
        try device.daemonArguments("--handoff-offer-seconds 1")
        let screen = try await ServerScreen.start(on: device)
        let url = "waypost-handoff:v1/" + Flood.payload(title: "Soon gone")
        #expect(try await device.waypost("open", url).status == 0)
        try await waitUntil("the offer is shown", context: device.busLog) { screen.notified == 1 }
        try await waitUntil("its notification is withdrawn as it expires", context: device.busLog) { screen.live == 0 }
        #expect(try await device.waypost("handoff", "list").output.isEmpty)
        // A second offer, made after the first expired, expires in turn: a lifetime has passed since.
        #expect(try await device.waypost("open", "waypost-handoff:v1/" + Flood.payload(title: "Later")).status == 0)
        try await waitUntil("the second offer is shown", context: device.busLog) { screen.notified == 2 }
        try await waitUntil("and withdrawn", context: device.busLog) { screen.live == 0 }
        let accepted = try await device.waypost("handoff", "accept", "1")
        #expect(accepted.status == 1)
        #expect(accepted.errors.contains("the handoff offer 1 expired"), "\(accepted)")
        #expect(!accepted.errors.contains("no saved activity"), "\(accepted)")
    }
}

/// The tests' own notification server on a device, and what it shows, from its lines ("notified ID …",
/// "closed ID"): the server reads the daemon's calls in order, so the most it showed at once is exact.
final class ServerScreen: Sendable {
    private struct Screen {
        var live: Set<UInt32> = []
        var most = 0
        var notified = 0
    }

    private let screen = Mutex(Screen())
    let process: ChildProcess

    static let script = Device.fixtures.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Apps/notification_server.py").path

    private init(_ process: ChildProcess) { self.process = process }

    /// Started on `device`'s bus, once it owns org.freedesktop.Notifications (`--queue`: once it waits for it).
    static func start(on device: Device, queue: Bool = false) async throws -> ServerScreen {
        let process = try await ChildProcess.start(
            Device.python, [script] + (queue ? ["--queue"] : []), environment: device.environment,
            errors: device.root.appendingPathComponent("logs/notification-server.stderr"))
        device.spawnedDunst(process)
        try #require(try await process.nextLine("the notification server is ready") == "ready")
        let screen = ServerScreen(process)
        Task {
            for await line in process.lines { screen.read(line) }
        }
        return screen
    }

    private func read(_ line: String) {
        let words = line.split(separator: " ")
        guard words.count >= 2, let id = UInt32(words[1]) else { return }
        screen.withLock { screen in
            switch words[0] {
            case "notified":
                screen.notified += 1
                screen.live.insert(id)
                screen.most = max(screen.most, screen.live.count)
            case "closed": screen.live.remove(id)
            default: break
            }
        }
    }

    var live: Int { screen.withLock { $0.live.count } }
    var most: Int { screen.withLock { $0.most } }
    var notified: Int { screen.withLock { $0.notified } }
}

/// Fixtures/offer_flood.py on a device's bus.
struct Flood {
    let process: ChildProcess

    static func start(on device: Device, callers: Int, batch: Int, prefix: String, once: Bool) async throws -> Flood {
        let process = try await ChildProcess.start(
            Device.python, [Device.fixtures.appendingPathComponent("offer_flood.py").path, String(callers), String(batch), prefix]
                + (once ? ["--once"] : []),
            environment: device.environment, errors: device.root.appendingPathComponent("logs/flood.stderr"))
        device.spawnedDunst(process)
        return Flood(process: process)
    }

    /// Its totals once it ended: offers made, and refusals by error name.
    func finished() async throws -> (offered: Int, refused: [String: Int]) {
        while let line = try await process.nextLine("the flood's next line") {
            guard line == "done" else { continue }
            let totals = try #require(try await process.nextLine("the flood's totals"))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(totals.utf8)) as? [String: Any])
            return (object["offered"] as? Int ?? -1, object["refused"] as? [String: Int] ?? [:])
        }
        throw TestFailure("the flood ended without its totals")
    }

    /// A canonical payload (sorted keys, no spaces) in base64url, as the flood makes them.
    static func payload(title: String, info: String = "{}") -> String {
        let json = "{\"device\":\"flood\",\"info\":\(info),\"sent\":0,\"title\":\"\(title)\",\"type\":\"com.example.flood\"}"
        return Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
