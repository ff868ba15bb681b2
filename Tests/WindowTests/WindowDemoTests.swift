import Foundation
import TestSupport
import Testing

/// `make demo`'s windows part, on Xvfb as CI runs it: every step ends with the window it names
/// active, and leaves a screenshot of the screen (looked at here for existence and size only; a
/// person looks at what it shows).
@Suite struct WindowDemoTests {
    @Test(.enabled(if: ContactsWindowTests.runsHere))
    func everyStepEndsWithItsWindowActiveAndAScreenshot() async throws {
        let shots = FileManager.default.temporaryDirectory.appendingPathComponent("waypost-demo-windows-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: shots) }
        var environment = ProcessInfo.processInfo.environment.filter { ["PATH", "LANG", "TMPDIR"].contains($0.key) }
        environment["WAYPOST_DEMO_XVFB"] = "1"
        environment["WAYPOST_DEMO_SHOTS"] = shots.path
        let script = WindowDesktop.packageRoot.appendingPathComponent("Examples/demo-windows.sh").path
        let (status, output, errors) = try await runProgram("/bin/bash", [script, WindowDesktop.binDirectory.path], environment: environment)
        #expect(status == 0, "\(output)\(errors)")
        #expect(!output.contains("(expected"), "a step did not end with its window active:\n\(output)")

        let expected = [
            "Ada Lovelace – Contacts", "Bob Kahn – Contacts", "Ada Lovelace – Contacts", "Dan Bricklin – Contacts",
            "Dan Bricklin – Contacts", "Large Ice Cream", "Small Ice Cream", "Large Ice Cream",
        ]
        let steps = output.split(separator: "\n").filter { $0.contains(" active: ") }
        #expect(steps.count == expected.count, "\(output)")
        for (step, title) in zip(steps, expected) {
            #expect(step.contains("active: \"\(title)\""), "\(step)")
        }
        #expect(output.contains("screenshots: \(shots.path)"), "\(output)")
        for number in 1...expected.count {
            let png = try Data(contentsOf: shots.appendingPathComponent(String(format: "%02d.png", number)))
            // PNG signature, then IHDR's width and height: the whole 1024×768 screen.
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]), "step \(number)")
            #expect(png.count > 10_000 && Array(png[16..<24]) == [0, 0, 4, 0, 0, 0, 3, 0], "step \(number): \(png.count) bytes")
        }
    }
}
