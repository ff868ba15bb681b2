public import Desktop

/// A browser Waypost knows the profiles and window options of, recognised by its program's name.
public struct Browser: Sendable, Hashable {
    public enum Family: Sendable, Hashable {
        /// Chromium and its kin (Chrome, Brave, Edge, Vivaldi): one user data directory, `Local State`.
        case chromium
        /// Firefox and its forks: `profiles.ini`.
        case firefox
    }

    public let family: Family
    /// The program's name it was recognised by (`chromium`, `firefox-esr`).
    public let program: String
    /// Where its profiles are listed, in order of preference: Chromium's user data directory (the
    /// entry's `--user-data-dir=`, else its default), Firefox's directories that hold `profiles.ini`.
    public let profileDirectories: [String]

    public init(family: Family, program: String, profileDirectories: [String]) {
        (self.family, self.program, self.profileDirectories) = (family, program, profileDirectories)
    }

    /// The browser an entry runs, from the names of the programs it starts (`programs`: the `Exec`
    /// program and what a wrapper script execs, as `InstalledPrograms.signatures(of:)` resolves them)
    /// and its `Exec` arguments (`--user-data-dir=`); nil for a program of no family known here.
    public static func recognise(programs: [String], execArguments: [String], homes: BrowserHomes) -> Browser? {
        for program in programs.map(baseName) {
            if let directory = chromiumDirectories[program] {
                // Chromium reads the last `--user-data-dir=` of its command line.
                let given = execArguments.last { $0.hasPrefix("--user-data-dir=") }.map { String($0.dropFirst("--user-data-dir=".count)) }
                let directory = given.flatMap { $0.isEmpty ? nil : $0 } ?? homes.configHome + "/" + directory
                return Browser(family: .chromium, program: program, profileDirectories: [directory])
            }
            if let roots = firefoxDirectories[program] {
                let directories = roots.map { root in root.inConfig ? homes.configHome + "/" + root.path : homes.home + "/" + root.path }
                return Browser(family: .firefox, program: program, profileDirectories: directories)
            }
        }
        return nil
    }

    /// The browser `entry` runs, its programs resolved as GIO resolves `Exec` (a Debian wrapper
    /// such as `/usr/bin/chromium` is followed to the program it execs).
    /// - Throws: `GIOLoadError` when GLib cannot be opened.
    public static func of(_ entry: ApplicationEntry, homes: BrowserHomes) throws(GIOLoadError) -> Browser? {
        let arguments = try entry.launchArguments() ?? []
        var programs: [String] = []
        // As written too: a program not installed where GIO looks still names the browser.
        if let shape = LaunchShape.of(execArguments: arguments), case .program(let written) = shape.kind { programs.append(written) }
        for signature in try InstalledPrograms.signatures(of: entry) {
            switch signature.kind {
            case .program(let path): programs.append(path)
            case .script(_, let script): programs.append(script)
            }
        }
        if let path = entry.executablePath { programs.append(path) }
        return recognise(programs: programs, execArguments: arguments, homes: homes)
    }

    /// Chromium's kin by program name, and their user data directory under `$XDG_CONFIG_HOME`.
    static let chromiumDirectories: [String: String] = [
        "chromium": "chromium", "chromium-browser": "chromium",
        "google-chrome": "google-chrome", "google-chrome-stable": "google-chrome", "chrome": "google-chrome",
        "google-chrome-beta": "google-chrome-beta", "google-chrome-unstable": "google-chrome-unstable",
        "brave": "BraveSoftware/Brave-Browser", "brave-browser": "BraveSoftware/Brave-Browser",
        "brave-browser-stable": "BraveSoftware/Brave-Browser", "brave-browser-beta": "BraveSoftware/Brave-Browser-Beta",
        "brave-browser-nightly": "BraveSoftware/Brave-Browser-Nightly",
        "microsoft-edge": "microsoft-edge", "microsoft-edge-stable": "microsoft-edge", "msedge": "microsoft-edge",
        "microsoft-edge-beta": "microsoft-edge-beta", "microsoft-edge-dev": "microsoft-edge-dev",
        "vivaldi": "vivaldi", "vivaldi-stable": "vivaldi", "vivaldi-bin": "vivaldi", "vivaldi-snapshot": "vivaldi-snapshot",
    ]

    /// Firefox and its forks by program name, and where `profiles.ini` may be: under the home
    /// directory (Firefox keeps using `~/.mozilla` where it exists) or `$XDG_CONFIG_HOME` (newer Firefox).
    static let firefoxDirectories: [String: [(path: String, inConfig: Bool)]] = {
        let mozilla: [(path: String, inConfig: Bool)] = [(".mozilla/firefox", false), ("mozilla/firefox", true)]
        return [
            "firefox": mozilla, "firefox-esr": mozilla, "firefox-bin": mozilla, "firefox-nightly": mozilla,
            "firefox-developer-edition": mozilla,
            "librewolf": [(".librewolf", false), ("librewolf", true)],
        ]
    }()
}

/// The directories a user's browsers keep their files under.
public struct BrowserHomes: Sendable, Hashable {
    /// `$HOME`.
    public var home: String
    /// `$XDG_CONFIG_HOME`, `~/.config` by default.
    public var configHome: String

    public init(home: String, configHome: String) {
        (self.home, self.configHome) = (home, configHome)
    }
}

func baseName(_ path: String) -> String {
    path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
}
