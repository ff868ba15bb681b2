// A real Flatpak app, built offline from the host's files, taking part in Waypost: built and
// installed once for the suite (the `.flatpakApp` trait), in a throwaway installation.
import Foundation
import TestSupport
import Testing

/// The suite's Flatpak app: a runtime made of the host's python3 and what it loads, and an app that
/// runs `Tests/Apps/sample_app.py` through `flatpak_app.py`, with a filtered session bus (talk to
/// io.waypost.Dispatcher; no `--socket=session-bus`, so its bus peer is `xdg-dbus-proxy`). Its
/// exported entry (`X-Waypost=true`, scheme `flatpak-notes`) runs `flatpak run … %u`.
struct FlatpakApp: Sendable {
    static let id = "io.waypost.test.FlatpakNotes"
    static let scheme = "flatpak-notes"

    /// What the suite needs besides the Swift build (`make deps`).
    static let tools = [
        "/usr/bin/flatpak", "/usr/bin/bwrap", "/usr/bin/xdg-dbus-proxy", "/usr/bin/python3", "/usr/bin/gio",
        "/usr/bin/update-desktop-database",
    ]
    /// WAYPOST_REQUIRE_FLATPAK=1 (set by `make test`) makes the tests fail rather than skip where the
    /// tools are missing.
    static var runsHere: Bool {
        tools.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
            || ProcessInfo.processInfo.environment["WAYPOST_REQUIRE_FLATPAK"] == "1"
    }

    static let apps = Built.packageRoot.appendingPathComponent("Tests/Apps")
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// Holds `repo/`, the build trees, `flatpak/` (the installation) and `system-share/`.
    let root: URL
    /// The installation, for `FLATPAK_USER_DIR`.
    var installation: URL { root.appendingPathComponent("flatpak") }

    /// The session's environment additions: the installation, its exports first among the data
    /// directories (where GIO and the daemon find its entry, as on a desktop with Flatpak), and no
    /// system bus (flatpak would otherwise proxy the machine's into the sandbox).
    var environment: [String: String] {
        [
            "FLATPAK_USER_DIR": installation.path,
            "XDG_DATA_DIRS": installation.appendingPathComponent("exports/share").path + ":" + root.appendingPathComponent("system-share").path,
            "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=" + root.appendingPathComponent("no-system-bus").path,
        ]
    }

    /// Builds the runtime and the app and installs both (`Fixtures/build-flatpak-app.sh`).
    static func build() async throws -> FlatpakApp {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("waypost-flatpak-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let app = FlatpakApp(root: root)
        do {
            try app.linkSystemData()
            let build = try await runProgram(
                "/bin/bash", [fixtures.appendingPathComponent("build-flatpak-app.sh").path, root.path, apps.path],
                environment: ["PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "LANG": "C.UTF-8"])
            guard build.status == 0 else { throw TestFailure("building the Flatpak app failed:\n\(build.output)\(build.errors)") }
        } catch {
            app.remove()
            throw error
        }
        return app
    }

    /// `/usr/share` without its `applications`, as `PrivateSession` gives every session (the
    /// session's own is replaced, since its data directories must also name the installation's exports).
    private func linkSystemData() throws {
        let share = root.appendingPathComponent("system-share")
        try FileManager.default.createDirectory(at: share, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: "/usr/share") where name != "applications" {
            try FileManager.default.createSymbolicLink(
                at: share.appendingPathComponent(name), withDestinationURL: URL(fileURLWithPath: "/usr/share/\(name)"))
        }
    }

    /// Removes the repository, the build trees and the installation.
    func remove() { try? FileManager.default.removeItem(at: root) }

    /// The app of the running suite (set by the `.flatpakApp` trait).
    @TaskLocal static var current: FlatpakApp?

    static var suiteApp: FlatpakApp {
        get throws {
            guard let app = current else { throw TestFailure("the suite needs the .flatpakApp trait") }
            return app
        }
    }
}

/// Builds the Flatpak app once before the suite's first test and removes it after its last.
struct FlatpakAppTrait: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard FlatpakApp.runsHere else { return try await function() }  // the tests are disabled then
        let app = try await FlatpakApp.build()
        defer { app.remove() }
        try await FlatpakApp.$current.withValue(app) { try await function() }
    }
}

extension Trait where Self == FlatpakAppTrait {
    static var flatpakApp: Self { FlatpakAppTrait() }
}
