import Foundation
import Testing
import TestSupport

/// `waypost install --browser`, `doctor` and `uninstall --browser` on a throwaway desktop, and the
/// structure of each browser's extension as installed (what Chromium and Firefox require of it).
@Suite struct BrowserInstallTests {
    static let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("browser")
    static let chromiumID = "dlcbkgibophkfedgdgmpjniaejihejlf"
    static let firefoxID = "browser-extension@waypost.io"

    func json(_ url: URL) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any], "\(url.path)")
    }

    @Test func installWritesTheExtensionAndTheHostManifestsDoctorReportsThemUninstallRemovesThem() async throws {
        let desktop = try await ThrowawayDesktop()
        defer { desktop.close() }
        let install = try await desktop.waypost("install", "--browser")
        #expect(install.status == 0, "\(install.errors)")
        let host = desktop.root.appendingPathComponent("data/waypost/browser-host")
        let manifests = [
            "chromium": desktop.root.appendingPathComponent("config/chromium/NativeMessagingHosts/io.waypost.browser_host.json"),
            "chrome": desktop.root.appendingPathComponent("config/google-chrome/NativeMessagingHosts/io.waypost.browser_host.json"),
            "firefox": desktop.root.appendingPathComponent("home/.mozilla/native-messaging-hosts/io.waypost.browser_host.json"),
        ]
        for (browser, file) in manifests {
            let manifest = try json(file)
            #expect(manifest["name"] as? String == "io.waypost.browser_host", "\(browser)")
            #expect(manifest["type"] as? String == "stdio")
            #expect(manifest["path"] as? String == host.path, "an absolute path to the host: \(manifest)")
            if browser == "firefox" {
                #expect(manifest["allowed_extensions"] as? [String] == [Self.firefoxID])
            } else {
                #expect(manifest["allowed_origins"] as? [String] == ["chrome-extension://\(Self.chromiumID)/"])
            }
        }
        #expect(FileManager.default.isExecutableFile(atPath: host.path))
        #expect(try String(contentsOf: host, encoding: .utf8).contains("'\(ThrowawayDesktop.waypost)' browser-host \"$@\""))

        // The installed copies are the files in browser/, each browser with its manifest.
        for (browser, manifest) in [("chromium", "manifest.chromium.json"), ("firefox", "manifest.firefox.json")] {
            let directory = desktop.root.appendingPathComponent("data/waypost/browser-extension/\(browser)")
            for name in ["background.js", "content.js", "popup.html", "popup.js"] {
                #expect(try Data(contentsOf: directory.appendingPathComponent(name)) == Data(contentsOf: Self.source.appendingPathComponent(name)),
                        "\(browser)/\(name) is browser/\(name): run `make browser-extension` after changing browser/")
            }
            #expect(try Data(contentsOf: directory.appendingPathComponent("manifest.json")) == Data(contentsOf: Self.source.appendingPathComponent(manifest)))
        }

        let doctor = try await desktop.waypost("doctor")
        for line in ["Chromium: the host manifest", "Google Chrome: the host manifest", "Firefox: the host manifest", "the browser host", "the Firefox extension is in"] {
            #expect(doctor.output.contains("ok   " + line), "\(line)\n\(doctor.output)")
        }
        let again = try await desktop.waypost("install", "--browser")
        #expect(!again.output.contains("wrote"), "a second install changes nothing: \(again.output)")

        let uninstall = try await desktop.waypost("uninstall", "--browser")
        #expect(uninstall.status == 0, "\(uninstall.errors)")
        for file in Array(manifests.values) + [host] {
            #expect(!FileManager.default.fileExists(atPath: file.path), "\(file.path)")
        }
        #expect(!FileManager.default.fileExists(atPath: desktop.root.appendingPathComponent("data/waypost/browser-extension").path))
        let after = try await desktop.waypost("doctor")
        #expect(after.output.contains("note the browser extension is not installed"), "\(after.output)")
    }

    /// Every file a manifest names exists, and the popup's script too.
    func expectFilesNamed(by manifest: [String: Any], in directory: URL) throws {
        var named: [String] = []
        if let background = manifest["background"] as? [String: Any] {
            named += (background["scripts"] as? [String]) ?? []
            named += [(background["service_worker"] as? String)].compactMap { $0 }
        }
        for script in (manifest["content_scripts"] as? [[String: Any]]) ?? [] { named += (script["js"] as? [String]) ?? [] }
        if let popup = (manifest["action"] as? [String: Any])?["default_popup"] as? String { named.append(popup) }
        #expect(named.count >= 3, "\(manifest)")
        for file in named {
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent(file).path), "the manifest names \(file)")
        }
        let popup = try String(contentsOf: directory.appendingPathComponent("popup.html"), encoding: .utf8)
        #expect(popup.contains(#"<script src="popup.js"></script>"#))
    }

    @Test func theFirefoxExtensionHasWhatFirefoxRequires() throws {
        let manifest = try json(Self.source.appendingPathComponent("manifest.firefox.json"))
        #expect(manifest["manifest_version"] as? Int == 3)
        let gecko = (manifest["browser_specific_settings"] as? [String: Any])?["gecko"] as? [String: Any]
        #expect(gecko?["id"] as? String == Self.firefoxID, "the id the host manifest allows")
        // Firefox runs background scripts, not a service worker, and has no `key`.
        let background = try #require(manifest["background"] as? [String: Any])
        #expect(background["scripts"] as? [String] == ["background.js"] && background["service_worker"] == nil)
        #expect(manifest["key"] == nil)
        #expect((manifest["permissions"] as? [String])?.contains("nativeMessaging") == true)
        // Content scripts in Manifest V3 Firefox need the hosts as host permissions.
        #expect(manifest["host_permissions"] as? [String] == ["http://*/*", "https://*/*"])
        try expectFilesNamed(by: manifest, in: Self.source)
        #expect(manifest["version"] as? String == (try json(Self.source.appendingPathComponent("manifest.chromium.json")))["version"] as? String)
    }

    @Test func theChromiumExtensionsKeyGivesTheIDTheHostManifestAllows() async throws {
        let manifest = try json(Self.source.appendingPathComponent("manifest.chromium.json"))
        #expect(manifest["manifest_version"] as? Int == 3)
        #expect((manifest["background"] as? [String: Any])?["service_worker"] as? String == "background.js")
        #expect((manifest["permissions"] as? [String])?.contains("nativeMessaging") == true)
        try expectFilesNamed(by: manifest, in: Self.source)
        // Chromium's id of an unpacked extension with a key: SHA-256 of the key's DER bytes, its first
        // 32 hex digits written with the letters a–p.
        let key = try #require(manifest["key"] as? String)
        let digest = try await runProgram(
            ThrowawayDesktop.python,
            ["-c", "import base64, hashlib, sys; print(''.join(chr(97 + int(c, 16)) for c in hashlib.sha256(base64.b64decode(sys.argv[1])).hexdigest()[:32]))", key],
            environment: ["PATH": "/usr/bin:/bin"])
        #expect(digest.output.trimmingCharacters(in: .whitespacesAndNewlines) == Self.chromiumID, "\(digest.errors)")
    }
}
