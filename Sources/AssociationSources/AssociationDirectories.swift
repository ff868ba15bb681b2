/// Where association files are looked for, from the XDG base-directory variables.
///
/// Per the specification: an unset or empty variable takes its default (`~/.local/share`,
/// `/usr/local/share:/usr/share`, `~/.config`, `~/.cache`), and relative paths are ignored.
public struct AssociationDirectories: Sendable, Equatable {
    /// `waypost/associations` under `$XDG_DATA_HOME`, then under each of `$XDG_DATA_DIRS`: files a
    /// package or the user installed, trusted as they are; for a domain, the first found wins.
    public let installed: [String]
    /// `$XDG_CONFIG_HOME/waypost/associations`: the user's own rules.
    public let user: String
    /// `$XDG_CACHE_HOME/waypost/associations`: fetched files and their verification.
    public let cache: String

    static let subdirectory = "waypost/associations"

    /// - Parameters:
    ///   - environment: the XDG variables and `HOME`.
    ///   - home: the home directory when `HOME` is unset or relative (nil: the password database's).
    public init(environment: [String: String], home: String? = nil) {
        let homeDirectory = Self.absolute(environment["HOME"]) ?? home ?? FileSystem.homeFromPasswordDatabase() ?? "/"
        let dataHome = Self.absolute(environment["XDG_DATA_HOME"]) ?? Self.join(homeDirectory, ".local/share")
        var dataDirectories = (environment["XDG_DATA_DIRS"] ?? "").split(separator: ":").compactMap { Self.absolute(String($0)) }
        if dataDirectories.isEmpty { dataDirectories = ["/usr/local/share", "/usr/share"] }
        var installed: [String] = []
        for directory in [dataHome] + dataDirectories {
            let path = Self.join(directory, Self.subdirectory)
            if !installed.contains(path) { installed.append(path) }
        }
        self.installed = installed
        user = Self.join(Self.absolute(environment["XDG_CONFIG_HOME"]) ?? Self.join(homeDirectory, ".config"), Self.subdirectory)
        cache = Self.join(Self.absolute(environment["XDG_CACHE_HOME"]) ?? Self.join(homeDirectory, ".cache"), Self.subdirectory)
    }

    /// `path` when it is set and absolute, without trailing slashes; nil otherwise.
    private static func absolute(_ path: String?) -> String? {
        guard var path, path.hasPrefix("/") else { return nil }
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return path
    }

    private static func join(_ directory: String, _ relative: String) -> String {
        directory.hasSuffix("/") ? directory + relative : directory + "/" + relative
    }
}

extension AssociationDirectories {
    /// The directories of this process's environment.
    public static func current() -> AssociationDirectories {
        var environment: [String: String] = [:]
        for name in ["HOME", "XDG_DATA_HOME", "XDG_DATA_DIRS", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"] {
            if let value = FileSystem.environmentValue(name) { environment[name] = value }
        }
        return AssociationDirectories(environment: environment)
    }
}
