public import Desktop
import FoundationEssentials
import NativeMessaging

/// Waypost's browser extension as `waypost install --browser` installs it: the unpacked extension
/// for Chromium/Chrome and for Firefox (the same scripts, each with its manifest), the host
/// program the browsers start, and each browser's native-messaging host manifest naming it and the
/// one extension id allowed to use it.
public enum BrowserExtension {
    /// The files every browser's copy holds besides its manifest.
    static let scripts = ["background.js", "content.js", "popup.html", "popup.js"]

    /// The files of one browser's unpacked extension: name → bytes.
    public static func files(for browser: Browser) -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for name in scripts { files[name] = Array(sources[name]!.utf8) }
        files["manifest.json"] = Array(sources[browser == .firefox ? "manifest.firefox.json" : "manifest.chromium.json"]!.utf8)
        return files
    }

    /// The browsers whose host manifests Waypost writes.
    public enum Browser: String, Sendable, Hashable, CaseIterable {
        case chromium, chrome, firefox

        public var name: String {
            switch self {
            case .chromium: "Chromium"
            case .chrome: "Google Chrome"
            case .firefox: "Firefox"
            }
        }
    }

    /// The host manifest for `browser`: the host's name, the program it runs, the one extension
    /// allowed (Chrome's `allowed_origins`, Firefox's `allowed_extensions`).
    public static func hostManifest(for browser: Browser, program: String) -> [UInt8] {
        struct Manifest: Encodable {
            let name = BrowserCaller.hostName
            let description = "Waypost: hands links an installed app owns to that app"
            let path: String
            let type = "stdio"
            let allowedOrigins: [String]?
            let allowedExtensions: [String]?
            enum CodingKeys: String, CodingKey {
                case name, description, path, type
                case allowedOrigins = "allowed_origins", allowedExtensions = "allowed_extensions"
            }
        }
        let manifest = browser == .firefox
            ? Manifest(path: program, allowedOrigins: nil, allowedExtensions: [BrowserCaller.firefoxAddonID])
            : Manifest(path: program, allowedOrigins: ["chrome-extension://\(BrowserCaller.chromiumExtensionID)/"], allowedExtensions: nil)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try! encoder.encode(manifest)) + [UInt8(ascii: "\n")]  // strings only: always encodes
    }

    /// The program a host manifest names: browsers run it with their own arguments, and a
    /// manifest's `path` takes no arguments of its own, so a two-line script adds `browser-host`.
    public static func hostScript(program: String) -> [UInt8] {
        let quoted = program.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''")
        return Array("#!/bin/sh\n# Waypost's native-messaging host (written by waypost install --browser).\nexec '\(quoted)' browser-host \"$@\"\n".utf8)
    }
}

/// Where the browser extension's files go, for one user or for everyone.
public struct BrowserLayout: Sendable, Hashable {
    /// `<data>/waypost/browser-extension`, holding `chromium/` and `firefox/`.
    public let extensionDirectory: String
    /// `<data>/waypost/browser-host`, the program the host manifests name.
    public let hostProgram: String
    /// Each browser's host manifest.
    public let hostManifests: [BrowserExtension.Browser: String]

    /// The user's: under `$XDG_DATA_HOME`; manifests in `$XDG_CONFIG_HOME/chromium`,
    /// `$XDG_CONFIG_HOME/google-chrome` and `~/.mozilla`.
    public static func user(_ directories: XDGDirectories, home: String) -> BrowserLayout {
        let file = BrowserCaller.hostName + ".json"
        return BrowserLayout(dataDirectory: directories.dataHome, hostManifests: [
            .chromium: directories.configHome + "/chromium/NativeMessagingHosts/" + file,
            .chrome: directories.configHome + "/google-chrome/NativeMessagingHosts/" + file,
            .firefox: home + "/.mozilla/native-messaging-hosts/" + file,
        ])
    }

    /// Everyone's: the extension below the data directory `prefix`; manifests where the browsers
    /// read system-wide ones.
    public static func system(prefix: String) -> BrowserLayout {
        let file = BrowserCaller.hostName + ".json"
        return BrowserLayout(dataDirectory: prefix, hostManifests: [
            .chromium: "/etc/chromium/native-messaging-hosts/" + file,
            .chrome: "/etc/opt/chrome/native-messaging-hosts/" + file,
            .firefox: "/usr/lib/mozilla/native-messaging-hosts/" + file,
        ])
    }

    init(dataDirectory: String, hostManifests: [BrowserExtension.Browser: String]) {
        extensionDirectory = dataDirectory + "/waypost/browser-extension"
        hostProgram = dataDirectory + "/waypost/browser-host"
        self.hostManifests = hostManifests
    }

    /// The unpacked extension of `browser` (Chrome's is Chromium's).
    public func extensionDirectory(for browser: BrowserExtension.Browser) -> String {
        extensionDirectory + (browser == .firefox ? "/firefox" : "/chromium")
    }
}

extension Installer {
    /// Writes the unpacked extension, the host program and each browser's host manifest; running
    /// it again changes nothing.
    /// - Throws: `InstallError.file` naming the file that could not be written.
    public func installBrowser(_ browser: BrowserLayout) throws(InstallError) -> Report {
        var report = Report()
        do {
            for kind in [BrowserExtension.Browser.chromium, .firefox] {
                for (name, bytes) in BrowserExtension.files(for: kind).sorted(by: { $0.key < $1.key }) {
                    try write(bytes, to: browser.extensionDirectory(for: kind) + "/" + name, mode: 0o644, report: &report)
                }
            }
            try write(BrowserExtension.hostScript(program: program), to: browser.hostProgram, mode: 0o755, report: &report)
            for kind in BrowserExtension.Browser.allCases {
                try write(BrowserExtension.hostManifest(for: kind, program: browser.hostProgram), to: browser.hostManifests[kind]!, mode: 0o644, report: &report)
            }
        } catch { throw .file(error) }
        if !report.changes.isEmpty {
            report.changes.append("""
                add the extension: Chromium or Chrome — chrome://extensions, Developer mode, "Load unpacked", \
                \(browser.extensionDirectory(for: .chromium)); Firefox — about:debugging, "Load Temporary Add-on", \
                \(browser.extensionDirectory(for: .firefox))/manifest.json (see docs/browser-extension.md)
                """)
        }
        return report
    }

    /// Removes what `installBrowser` wrote (the browsers' own copies of a loaded extension stay theirs).
    public func uninstallBrowser(_ browser: BrowserLayout) throws(InstallError) -> Report {
        var report = Report()
        var files: [String] = []
        for kind in [BrowserExtension.Browser.chromium, .firefox] {
            files += BrowserExtension.files(for: kind).keys.sorted().map { browser.extensionDirectory(for: kind) + "/" + $0 }
        }
        files += [browser.hostProgram] + BrowserExtension.Browser.allCases.map { browser.hostManifests[$0]! }
        do {
            for file in files where Files.exists(file) {
                try Files.remove(file)
                report.changes.append("removed \(file)")
            }
        } catch { throw .file(error) }
        for directory in [browser.extensionDirectory(for: .chromium), browser.extensionDirectory(for: .firefox), browser.extensionDirectory] {
            Files.removeEmptyDirectory(directory)
        }
        return report
    }

    private func write(_ bytes: [UInt8], to path: String, mode: UInt32, report: inout Report) throws(KeyFileError) {
        if try Files.read(path) == bytes, Files.isExecutable(path) == (mode & 0o100 != 0) { return }
        try Files.write(bytes, to: path, mode: mode)
        report.changes.append("wrote \(path)")
    }
}

extension Doctor {
    /// Whether the extension, the host program and each host manifest are in place and agree.
    public func browserFindings(_ browser: BrowserLayout, program: String) -> [Finding] {
        let fix = "run `waypost install --browser`"
        var findings: [Finding] = []
        var installed = 0
        for kind in BrowserExtension.Browser.allCases {
            let path = browser.hostManifests[kind]!
            guard let bytes = (try? Files.read(path)) ?? nil else { continue }
            installed += 1
            if bytes == BrowserExtension.hostManifest(for: kind, program: browser.hostProgram) {
                findings.append(Finding(.ok, "\(kind.name): the host manifest \(path) lets Waypost's extension start \(browser.hostProgram)"))
            } else {
                findings.append(Finding(.problem, "\(kind.name): the host manifest \(path) differs from Waypost's", fix: fix))
            }
        }
        guard installed > 0 else {
            return [Finding(.note, "the browser extension is not installed (links clicked in a browser stay there)",
                            fix: "run `waypost install --browser` for links clicked in Chromium, Chrome or Firefox to open in the app that owns them")]
        }
        if (try? Files.read(browser.hostProgram)) ?? nil == BrowserExtension.hostScript(program: program), Files.isExecutable(browser.hostProgram) {
            findings.append(Finding(.ok, "the browser host \(browser.hostProgram) runs \(program) browser-host"))
        } else {
            findings.append(Finding(.problem, "the browser host \(browser.hostProgram) is missing or does not run \(program)", fix: fix))
        }
        for kind in [BrowserExtension.Browser.chromium, .firefox] {
            let directory = browser.extensionDirectory(for: kind)
            let current = BrowserExtension.files(for: kind).allSatisfy { name, bytes in ((try? Files.read(directory + "/" + name)) ?? nil) == bytes }
            findings.append(current
                ? Finding(.ok, "the \(kind == .firefox ? "Firefox" : "Chromium and Chrome") extension is in \(directory)")
                : Finding(.problem, "the extension in \(directory) is missing or not this version's (reload it in the browser after fixing)", fix: fix))
        }
        return findings
    }
}
