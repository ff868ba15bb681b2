public import Planning

/// One profile of a browser, as the browser's own files list it.
public struct BrowserProfile: Sendable, Hashable {
    /// The name the browser shows (Chromium's "Work", Firefox's `Name=`).
    public let name: String
    /// Its directory: Chromium's under the user data directory ("Profile 1"), Firefox's `Path=`.
    public let directory: String
    /// The one the browser opens when told none (Chromium's last used, Firefox's default).
    public let isDefault: Bool

    public init(name: String, directory: String, isDefault: Bool = false) {
        (self.name, self.directory, self.isDefault) = (name, directory, isDefault)
    }

    /// The directory's last component: Firefox's `Path=` is `Profiles/abcd1234.work`.
    var directoryName: String { baseName(directory) }
}

/// A browser's profiles and the arguments that open a link in one of them or in a private window.
public struct BrowserProfiles: Sendable, Hashable {
    public let browser: Browser
    /// In the browser's order (Chromium: `Default` first, then "Profile N"; Firefox: the file's).
    public let profiles: [BrowserProfile]
    /// The file they were read from (`Local State`, `profiles.ini`), or where none was found.
    public let source: String

    public init(browser: Browser, profiles: [BrowserProfile], source: String) {
        (self.browser, self.profiles, self.source) = (browser, profiles, source)
    }

    /// The profile `name` means: by shown name (exactly, then ignoring case), then by directory
    /// ("Profile 1", Firefox's `abcd1234.work`; exactly, then ignoring case).
    /// - Throws: `unknownProfile` naming the browser, `name`, the known profiles and the file.
    public func profile(named name: String) throws(BrowserProfileError) -> BrowserProfile {
        let lowered = name.lowercased()
        let found = profiles.first { $0.name == name } ?? profiles.first { $0.name.lowercased() == lowered }
            ?? profiles.first { $0.directory == name || $0.directoryName == name }
            ?? profiles.first { $0.directory.lowercased() == lowered || $0.directoryName.lowercased() == lowered }
        guard let found else {
            throw .unknownProfile(browser: browser.program, profile: name, known: profiles.map(\.name), source: source)
        }
        return found
    }

    /// What the browser's command line needs for `window`: Chromium `--profile-directory=DIR` or
    /// `--incognito`; Firefox `-P NAME` or `--private-window` (which must come right before the link).
    /// Empty for `.usual`. A running browser takes them over itself: Chromium's process singleton
    /// and Firefox's remoting (per profile) hand the link to the window already open.
    /// - Throws: `unknownProfile` for a profile not listed.
    public func arguments(for window: BrowserWindow) throws(BrowserProfileError) -> [String] {
        switch (window, browser.family) {
        case (.usual, _): return []
        case (.privateWindow, .chromium): return ["--incognito"]
        case (.privateWindow, .firefox): return ["--private-window"]
        case (.profile(let name), .chromium): return ["--profile-directory=" + (try profile(named: name)).directory]
        case (.profile(let name), .firefox): return ["-P", (try profile(named: name)).name]
        }
    }
}

/// Why a browser's profiles could not be found or used; each case names the value at fault.
public enum BrowserProfileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The entry runs no browser whose profiles Waypost knows.
    case notABrowser(app: String)
    /// No profile of `browser` is called `profile`; `known` lists their names, read from `source`.
    case unknownProfile(browser: String, profile: String, known: [String], source: String)
    /// The browser's file is not what the browser writes.
    case malformed(file: String, reason: String)
    /// The browser's file exists but cannot be read.
    case unreadable(file: String, reason: String)

    public var description: String {
        switch self {
        case .notABrowser(let app):
            "\(app) is not a browser whose profiles and private windows Waypost knows (Chromium, Chrome, Brave, Edge, Vivaldi, Firefox, LibreWolf)"
        case .unknownProfile(let browser, let profile, let known, let source):
            "\(browser) has no profile '\(profile)'"
                + (known.isEmpty ? " (none is listed in \(source))" : "; its profiles: " + known.map { "'\($0)'" }.joined(separator: ", "))
        case .malformed(let file, let reason): "\(file) is malformed: \(reason)"
        case .unreadable(let file, let reason): "\(file) cannot be read: \(reason)"
        }
    }
}
