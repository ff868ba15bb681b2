/// What Waypost needs to know about one installed desktop entry, read once from its file.
///
/// A snapshot: installing or editing the file later does not change a value already read.
public struct ApplicationEntry: Sendable, Hashable {
    /// The desktop-file id without `.desktop`, e.g. `org.example.Notes` (the D-Bus name when
    /// the entry is `DBusActivatable`).
    public let id: String
    /// The file it was read from.
    public let filePath: String
    /// The localized `Name=`.
    public let name: String
    /// `X-Waypost=true`: the app takes part in Waypost's routing.
    public let participates: Bool
    /// The URL schemes of its `MimeType=x-scheme-handler/<scheme>;` items, lowercased, in file order.
    public let schemes: [String]
    /// Its other `MimeType=` items (file types), in file order.
    public let contentTypes: [String]
    /// Its `X-Waypost-Activity-Types=` list.
    public let activityTypes: [String]
    /// Its `X-Waypost-Associated-Domains=` list as written (`shop.example`, `*.shop.example`): the
    /// https domains whose links it claims. A claim alone gives it nothing: the domain's association
    /// must name the app too (the routing core's `LinkOwnership` checks both).
    public let associatedDomains: [String]
    /// `DBusActivatable=true`: launching goes through `org.freedesktop.Application` on the session bus.
    public let isDBusActivatable: Bool
    /// `StartupNotify=true`: only then does GIO hand an activation token to a D-Bus activated app.
    public let startupNotify: Bool
    /// The `Exec=` value, key-file escapes already undone, field codes still in it.
    public let exec: String?
    /// The `TryExec=` value.
    public let tryExec: String?
    /// The absolute, symlink-free path of the program the entry runs: `Exec`'s first argument
    /// (double-quote rules of the Desktop Entry spec) looked up in `PATH`, or `TryExec`'s when there
    /// is no `Exec`. Comparable with `RunningProgram.executable(ofProcess:)`; nil when not found.
    public let executablePath: String?
    /// `X-Waypost-Executable=`: the absolute path of the program the app's processes really run, for
    /// an entry whose `Exec` starts it through a wrapper Waypost cannot see through (a launcher that
    /// is not a shell script, say). Registration and opener identification accept it besides `Exec`'s.
    public let declaredExecutable: String?
    /// The `Icon=` value: a themed icon name or an absolute path (search results show it).
    public let icon: String?

    /// The desktop-file id with `.desktop`, as GIO and mimeapps.list spell it.
    public var desktopFileID: String { id + ".desktop" }

    /// Whether the entry declares `x-scheme-handler/<scheme>` (compared case-insensitively).
    public func declares(scheme: String) -> Bool { schemes.contains(scheme.lowercased()) }

    public init(
        id: String, filePath: String, name: String, participates: Bool, schemes: [String],
        contentTypes: [String], activityTypes: [String], isDBusActivatable: Bool, startupNotify: Bool,
        exec: String?, tryExec: String?, executablePath: String?, associatedDomains: [String] = [],
        icon: String? = nil, declaredExecutable: String? = nil
    ) {
        self.id = id
        self.filePath = filePath
        self.name = name
        self.participates = participates
        self.schemes = schemes
        self.contentTypes = contentTypes
        self.activityTypes = activityTypes
        self.associatedDomains = associatedDomains
        self.isDBusActivatable = isDBusActivatable
        self.startupNotify = startupNotify
        self.exec = exec
        self.tryExec = tryExec
        self.executablePath = executablePath
        self.icon = icon
        self.declaredExecutable = declaredExecutable
    }
}

/// Why the catalog could not answer; each case carries the value it was given.
public enum CatalogError: Error, Sendable, Hashable {
    /// Not a URL scheme by RFC 3986 (a letter, then letters, digits, `+`, `-`, `.`).
    case invalidScheme(String)
    /// Not usable as a desktop-file id (empty, a `/`, a NUL, or a leading `.`).
    case invalidApplicationID(String)
    /// No desktop entry with this id is installed.
    case notInstalled(applicationID: String)
    /// A file with this id exists but GIO does not load it; `reason` says why.
    case unreadable(applicationID: String, file: String, reason: String)
}

extension CatalogError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .invalidScheme(let scheme): "'\(scheme)' is not a URL scheme"
        case .invalidApplicationID(let id): "'\(id)' is not a desktop-file id"
        case .notInstalled(let id): "no desktop entry '\(id).desktop' is installed"
        case .unreadable(let id, let file, let reason): "desktop entry '\(id)' in \(file) is not usable: \(reason)"
        }
    }
}
