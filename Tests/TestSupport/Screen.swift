// The tests' one way to a screen: an X server of their own, and a window manager where windows need one.
public import Foundation

/// Xvfb on a display of its own, and openbox managing it once `startWindowManager` is called.
/// `stop()` ends both (SIGTERM for Xvfb: it removes its lock file and socket).
public final class VirtualScreen: Sendable {
    /// The display, `:N`.
    public let display: String
    private let xvfb: ChildProcess
    private let windowManager = ChildProcesses()

    /// Starts Xvfb; returns once it accepts connections.
    /// - Parameters:
    ///   - size: the screen, `WIDTHxHEIGHTxDEPTH`.
    ///   - errors: where Xvfb's standard error goes; discarded when nil.
    public init(size: String = "1024x768x24", errors: URL? = nil) async throws {
        // Xvfb writes the display it took to -displayfd once it accepts connections, then closes that
        // descriptor: a copy of stdout, so that stdout stays open (ChildProcess signals a child only
        // until its output ends). `exec`: the pid signalled is Xvfb's.
        let xvfb = try await ChildProcess.start(
            "/bin/sh", ["-c", "exec /usr/bin/Xvfb -displayfd 3 -screen 0 \(size) -nolisten tcp 3>&1"], environment: [:],
            errors: errors)
        guard let number = try? await xvfb.nextLine("Xvfb says its display"), !number.isEmpty else {
            xvfb.kill()
            throw TestFailure("Xvfb did not start")
        }
        self.xvfb = xvfb
        display = ":\(number)"
    }

    /// Starts openbox on this screen, in `environment` with DISPLAY set to it, and returns once it
    /// manages the screen's windows and focuses new ones: it runs its --startup command (touching
    /// `readyFile`) only then, and a window mapped before is managed unfocused.
    public func startWindowManager(environment: [String: String], readyFile: URL) async throws {
        windowManager.add(try await ChildProcess.start(
            "/usr/bin/openbox", ["--sm-disable", "--startup", "/usr/bin/touch \(readyFile.path)"],
            environment: environment.merging(["DISPLAY": display]) { $1 }))
        try await waitUntil("openbox manages \(display)") { FileManager.default.fileExists(atPath: readyFile.path) }
    }

    public func stop() {
        windowManager.killAll()
        xvfb.send(SIGTERM)
    }
}
