import Foundation
import Testing
import TestSupport

/// The browser host under a flood of requests: it answers every one, holding only a bounded number
/// in flight (the rest wait in the browser's pipe), so its memory does not grow with the flood.
@Suite(.serialized) struct BrowserHostFloodTests {
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
}
