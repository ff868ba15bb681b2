public import Desktop

extension BrowserProfiles {
    /// The largest browser file read: Chromium's `Local State` grows with its settings, never near this.
    static let sizeLimit = 8 << 20

    /// Reads the profiles `browser` lists in its own files: Chromium's `Local State` in its user
    /// data directory; Firefox's `profiles.ini` in the first of its directories that has one. None
    /// found gives no profiles (a browser never started), with the first place looked at as source.
    /// - Throws: `malformed` or `unreadable` naming the file.
    public static func read(_ browser: Browser) throws(BrowserProfileError) -> BrowserProfiles {
        let name = browser.family == .chromium ? "Local State" : "profiles.ini"
        for directory in browser.profileDirectories {
            let file = directory + "/" + name
            let bytes: [UInt8]?
            do { bytes = try Files.read(file, limit: sizeLimit) } catch {
                throw .unreadable(file: file, reason: error.description)
            }
            guard let bytes else { continue }
            let profiles = try browser.family == .chromium
                ? ChromiumLocalState.profiles(bytes, file: file) : FirefoxProfilesINI.profiles(bytes, file: file)
            return BrowserProfiles(browser: browser, profiles: profiles, source: file)
        }
        return BrowserProfiles(browser: browser, profiles: [], source: (browser.profileDirectories.first ?? "") + "/" + name)
    }

    /// The profiles of the browser `entry` runs.
    /// - Throws: `notABrowser` for an entry of no browser known here; what `read` throws.
    public static func read(of entry: ApplicationEntry, homes: BrowserHomes) throws(BrowserProfileError) -> BrowserProfiles {
        guard let browser = try? Browser.of(entry, homes: homes) else { throw .notABrowser(app: entry.id) }
        return try read(browser)
    }
}

extension BrowserProfiles {
    /// Parses `Local State` bytes (no I/O): see `read`.
    public static func chromium(_ browser: Browser, localState bytes: [UInt8], file: String) throws(BrowserProfileError) -> BrowserProfiles {
        BrowserProfiles(browser: browser, profiles: try ChromiumLocalState.profiles(bytes, file: file), source: file)
    }

    /// Parses `profiles.ini` bytes (no I/O): see `read`.
    public static func firefox(_ browser: Browser, profilesINI bytes: [UInt8], file: String) throws(BrowserProfileError) -> BrowserProfiles {
        BrowserProfiles(browser: browser, profiles: try FirefoxProfilesINI.profiles(bytes, file: file), source: file)
    }
}
