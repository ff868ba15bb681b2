import Foundation
import TestSupport
import Testing

/// `make demo`'s search part, run as users run it: each result picked through GNOME Shell's
/// interface reached the window that shows it, or a window of the app started for it.
@Suite("the search demo")
struct SearchDemoTests {
    @Test("results found as GNOME Shell finds them continue into the right window, the app started when it is not running")
    func searchDemo() async throws {
        let script = KitSession.packageRoot.appendingPathComponent("Examples/demo-search.sh")
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        let (status, output, stderr) = try await runProgram("/bin/bash", [script.path, KitSession.binDirectory.path], environment: environment)
        #expect(status == 0, "\(stderr)\n\(output)")
        let lines = output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        func row(_ prefix: String) -> String? { lines.first { $0.hasPrefix(prefix) } }
        #expect(row("GetInitialResultSet    ice")?.contains("Large Ice Cream (Ice Cream (Waypost sample)), Small Ice Cream") == true, "\(output)")
        #expect(row("GetSubsearchResultSet  ice lar")?.contains("Large Ice Cream") == true, "\(output)")
        #expect(row("ActivateResult         Large Ice Cream")?.contains("size 3) ✓") == true, "\(output)")
        #expect(row("ActivateResult         Ada Lovelace")?.hasSuffix("✓") == true, "\(output)")
        // Started for the result: a new window, which read the size from the user info.
        #expect(row("ActivateResult         Small Ice Cream")?.contains("size 1) ✓") == true, "\(output)")
    }
}
