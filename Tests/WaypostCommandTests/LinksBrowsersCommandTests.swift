import Foundation
import Testing
import TestSupport

/// Runs the built `waypost links browsers` on a throwaway desktop: a Chromium entry with its own
/// user data directory, a Firefox ESR entry with profiles.ini, and an https handler that is no browser.
@Suite("waypost links browsers")
struct LinksBrowsersCommandTests {
    @Test("each browser with its profiles, the default marked, and the destinations to write")
    func listsBrowsersAndProfiles() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("waypost-browsers-cli-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let files: [String: String] = [
            "data/applications/test-chromium.desktop": """
                [Desktop Entry]
                Type=Application
                Name=Test Chromium
                Exec=/usr/bin/chromium --user-data-dir=\(root)/chromium %U
                MimeType=x-scheme-handler/https;
                """,
            "data/applications/test-firefox.desktop": """
                [Desktop Entry]
                Type=Application
                Name=Test Firefox
                Exec=\(root)/bin/firefox-esr %u
                MimeType=x-scheme-handler/https;
                """,
            "data/applications/test-viewer.desktop": """
                [Desktop Entry]
                Type=Application
                Name=Test Viewer
                Exec=/bin/cat %u
                MimeType=x-scheme-handler/https;
                """,
            // A name with an escape sequence in it: shown, never sent to the terminal.
            "chromium/Local State": #"{"profile": {"info_cache": {"Default": {"name": "Person 1"}, "Profile 1": {"name": "Work\u001b[31m"}}, "last_used": "Profile 1"}}"#,
            "bin/firefox-esr": "#!/bin/sh\nexit 0\n",
            "home/.mozilla/firefox/profiles.ini": "[Profile0]\nName=personal\nIsRelative=1\nPath=p.personal\nDefault=1\n",
        ]
        for (path, text) in files {
            let file = URL(fileURLWithPath: root + "/" + path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        try FileManager.default.createDirectory(atPath: root + "/system", withIntermediateDirectories: true)
        // Firefox known by its program's name, installed on this machine or not (GIO lists no entry
        // whose program is missing).
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: root + "/bin/firefox-esr")
        // GIO learns who opens a scheme from mimeinfo.cache, as installed packages leave it.
        let update = try await runProgram("/usr/bin/update-desktop-database", [root + "/data/applications"], environment: ["PATH": "/usr/bin:/bin"])
        try #require(update.status == 0, "\(update.errors)")
        let (status, output, errors) = try await runProgram(
            ExplainCommandTests.binary.path, ["links", "browsers"],
            environment: [
                "HOME": root + "/home", "XDG_CONFIG_HOME": root + "/config", "XDG_DATA_HOME": root + "/data",
                "XDG_DATA_DIRS": root + "/system", "XDG_CONFIG_DIRS": root + "/system", "PATH": "/usr/bin:/bin",
            ])
        #expect(status == 0, "\(errors)")
        #expect(output.contains("""
            test-chromium: Test Chromium (chromium, profiles from \(root)/chromium/Local State)
              test-chromium\tits usual window
              test-chromium#profile=Person 1\tdirectory Default
              test-chromium#profile=Work\u{FFFD}[31m\tdirectory Profile 1\tdefault
              test-chromium#private\ta private window
            """), "\(output)")
        #expect(output.contains("""
            test-firefox: Test Firefox (firefox-esr, profiles from \(root)/home/.mozilla/firefox/profiles.ini)
              test-firefox\tits usual window
              test-firefox#profile=personal\tdirectory p.personal\tdefault
              test-firefox#private\ta private window
            """), "\(output)")
        #expect(output.contains("test-viewer: Test Viewer (no browser whose profiles Waypost knows)\n  test-viewer\tits usual window"), "\(output)")
        #expect(!output.contains("\u{1B}"))
    }
}
