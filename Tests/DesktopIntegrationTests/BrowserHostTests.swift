import Foundation
import Testing
import TestSupport

/// The browser host through pipes, no browser: a choice the user makes holds for the very next link,
/// and a flood of requests is answered with a bounded number in flight.
@Suite(.serialized) struct BrowserHostTests {
    static let flood = ThrowawayDesktop.fixtures.appendingPathComponent("host_flood.py").path

    @Test func aFloodOfRequestsIsAnsweredWithinBoundedMemory() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await BrowserExtensionTests().installShop(desktop)
        let count = 20_000
        let run = try await desktop.run(
            ThrowawayDesktop.python, [Self.flood, String(count), ThrowawayDesktop.waypost, BrowserExtensionTests.chromiumCaller[0]])
        let result = try #require(
            try? JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Int], "\(run.output)\(run.errors)")
        #expect(result["answered"] == count, "\(result)")
        // One answer in flight holds a task and a bus call (about 6 KB); 20,000 at once held 130 MB.
        #expect((result["peak_kb"] ?? .max) < 64 * 1024, "the host peaked at \(result["peak_kb"] ?? 0) KB")
    }

    @Test func keepInBrowserHoldsForTheNextLinkFromAnyOpener() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        try await BrowserExtensionTests().installShop(desktop)
        // A fresh desktop has no rules directory: the daemon makes it before watching it (GIO polls
        // a missing one every 4 s); the host asks the daemon after writing the rule anyway.
        #expect(FileManager.default.fileExists(atPath: desktop.root.appendingPathComponent("config/waypost/associations").path))
        let replies = try await BrowserExtensionTests().talk(desktop, [
            ["send": ["id": 1, "type": "keep-in-browser", "domain": "shop.example"]],
        ], caller: BrowserExtensionTests.chromiumCaller)
        #expect(replies[0]["kept"] as? [String] == ["shop.example"], "\(replies[0])")
        // The extension has its answer: the next link, from gio open, goes to the browser, as the
        // daemon's Routed says once it is decided.
        let monitor = try await ChildProcess.start(ThrowawayDesktop.waypost, ["monitor", "--count", "1"], environment: desktop.environment)
        defer { monitor.kill() }
        #expect(try await monitor.nextLine("waypost monitor watches")?.hasPrefix("watching") == true)
        let open = try await desktop.run("/usr/bin/gio", ["open", "https://shop.example/product/5"])
        #expect(open.status == 0, "\(open.errors)")
        let routed = try await monitor.nextLine("waypost monitor's next line") ?? ""
        #expect(routed.hasPrefix("https://shop.example/product/5 → org.example.Browser"), "\(routed)\n\(desktop.busLog)")
        #expect(desktop.received("org.example.Shop").isEmpty)
    }
}
