public import Desktop

/// Where `waypost install` puts things, for one user or for everyone below a prefix.
public struct InstallLayout: Sendable, Hashable {
    /// `<data>/applications`: the handler's desktop entry.
    public let applications: String
    /// `<data>/dbus-1/services`: the D-Bus activation file.
    public let services: String
    /// `<data>/systemd/user`: the optional systemd user unit.
    public let systemdUnits: String
    /// The `mimeapps.list` whose defaults are handed over.
    public let mimeAppsList: String
    /// Where the previous defaults are recorded (`TakeoverRecord`).
    public let record: String

    /// The user's: `$XDG_DATA_HOME/…` and `$XDG_CONFIG_HOME/mimeapps.list`.
    /// - Throws: `GIOLoadError`: the directories are GLib's, those GIO reads.
    public static func user() throws(GIOLoadError) -> InstallLayout {
        let directories = try XDGDirectories()
        return InstallLayout(dataDirectory: directories.dataHome, mimeAppsList: directories.configHome + "/mimeapps.list")
    }

    /// Everyone's, below a data directory such as `/usr/local/share` (which must be in
    /// `$XDG_DATA_DIRS`); the defaults go to its `applications/mimeapps.list`, which GLib reads
    /// after the users' own.
    public static func system(prefix: String) -> InstallLayout {
        let prefix = prefix.count > 1 && prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix
        return InstallLayout(dataDirectory: prefix, mimeAppsList: prefix + "/applications/mimeapps.list")
    }

    init(dataDirectory: String, mimeAppsList: String) {
        applications = dataDirectory + "/applications"
        services = dataDirectory + "/dbus-1/services"
        systemdUnits = dataDirectory + "/systemd/user"
        self.mimeAppsList = mimeAppsList
        record = TakeoverRecord.path(inDataDirectory: dataDirectory)
    }

    public var handlerEntry: String { applications + "/" + HandlerFiles.desktopFileID }
    public var serviceFile: String { services + "/" + HandlerFiles.busName + ".service" }
    public var systemdUnit: String { systemdUnits + "/" + HandlerFiles.systemdUnitName }
}
