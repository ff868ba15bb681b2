/// Where association files are looked for, below the XDG base directories the caller resolved
/// (the daemon and the command line take them from GLib, as GIO does for desktop entries).
public struct AssociationDirectories: Sendable, Equatable {
    /// `waypost/associations` under `$XDG_DATA_HOME`, then under each of `$XDG_DATA_DIRS`: files a
    /// package or the user installed, trusted as they are; for a domain, the first found wins.
    public let installed: [String]
    /// `$XDG_CONFIG_HOME/waypost/associations`: the user's own rules.
    public let user: String
    /// `$XDG_CACHE_HOME/waypost/associations`: fetched files and their verification.
    public let cache: String

    static let subdirectory = "waypost/associations"

    /// - Parameters: the base directories, absolute; a data directory named twice counts once.
    public init(dataHome: String, dataDirectories: [String], configHome: String, cacheHome: String) {
        var installed: [String] = []
        for directory in [dataHome] + dataDirectories {
            let path = Self.join(directory, Self.subdirectory)
            if !installed.contains(path) { installed.append(path) }
        }
        self.installed = installed
        user = Self.join(configHome, Self.subdirectory)
        cache = Self.join(cacheHome, Self.subdirectory)
    }

    private static func join(_ directory: String, _ relative: String) -> String {
        var directory = Substring(directory)
        while directory.count > 1, directory.hasSuffix("/") { directory.removeLast() }
        return directory + "/" + relative
    }
}
