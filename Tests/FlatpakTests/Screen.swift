// The portal desktop's screen: Xvfb, and openbox managing its windows.
import Foundation
import TestSupport

/// Xvfb with openbox managing it, for the portal's windows.
final class Screen: Sendable {
    let display: String
    private let xvfb: ChildProcess
    private let windowManager = ChildProcesses()

    init() async throws {
        // Xvfb writes the display it took to -displayfd once it accepts connections; `exec`: the pid
        // signalled is Xvfb's.
        xvfb = try await ChildProcess.start(
            "/bin/sh", ["-c", "exec /usr/bin/Xvfb -displayfd 3 -screen 0 1024x768x24 -nolisten tcp 3>&1"], environment: [:])
        guard let number = try? await nextLine(of: xvfb), !number.isEmpty else {
            xvfb.kill()
            throw TestFailure("Xvfb did not start")
        }
        display = ":\(number)"
    }

    /// openbox runs its --startup command once it manages the screen's windows.
    func startWindowManager(environment: [String: String], readyFile: URL) async throws {
        windowManager.add(try await ChildProcess.start(
            "/usr/bin/openbox", ["--sm-disable", "--startup", "/usr/bin/touch \(readyFile.path)"], environment: environment))
        try await waitUntil("openbox manages \(display)") { FileManager.default.fileExists(atPath: readyFile.path) }
    }

    /// SIGTERM for Xvfb: it removes its lock file and socket.
    func stop() {
        windowManager.killAll()
        xvfb.send(SIGTERM)
    }
}
