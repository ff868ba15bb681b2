import Desktop

/// The files that put saved user activities into the desktops' searches: GNOME Shell's search
/// provider key file, KRunner's D-Bus plugin, and the visible entry GNOME requires the provider to
/// name (it skips a provider whose `DesktopId` is hidden, as the handler's `NoDisplay` entry is).
/// `waypost install` writes them below the data directory it installs to; `uninstall` removes them.
public enum SearchProviderFiles {
    public static let providerFileName = "io.waypost.Dispatcher.search-provider.ini"
    public static let pluginFileName = "io.waypost.Dispatcher.desktop"
    /// The provider's own entry: GNOME shows its name and icon above the results.
    public static let activitiesEntryID = "io.waypost.Activities.desktop"

    public static func gnomeProvider() -> String {
        """
        [Shell Search Provider]
        DesktopId=\(activitiesEntryID)
        BusName=\(HandlerFiles.busName)
        ObjectPath=/io/waypost/Dispatcher/SearchProvider
        Version=2

        """
    }

    public static func krunnerPlugin() -> String {
        """
        [Desktop Entry]
        Type=Service
        Name=Recent Activities
        Comment=Pick up what you were doing in apps that take part in Waypost
        Icon=document-open-recent
        X-KDE-ServiceTypes=Plasma/Runner
        X-KDE-PluginInfo-Name=\(HandlerFiles.busName)
        X-KDE-PluginInfo-Version=1
        X-KDE-PluginInfo-EnabledByDefault=true
        X-Plasma-API=DBus2
        X-Plasma-DBusRunner-Service=\(HandlerFiles.busName)
        X-Plasma-DBusRunner-Path=/io/waypost/Dispatcher/KRunner

        """
    }

    /// Lists the saved activities in a terminal when started from the app grid.
    public static func activitiesEntry(program: String) -> String {
        """
        [Desktop Entry]
        Type=Application
        Name=Recent Activities
        Comment=Pick up what you were doing in apps that take part in Waypost
        Exec=\(HandlerFiles.execQuoted(program)) activities list
        TryExec=\(program)
        Icon=document-open-recent
        Terminal=true
        Categories=Utility;

        """
    }
}

extension InstallLayout {
    /// The data directory this layout installs below.
    var dataDirectory: String { String(applications.dropLast("/applications".count)) }
    public var searchProvider: String { dataDirectory + "/gnome-shell/search-providers/" + SearchProviderFiles.providerFileName }
    public var krunnerPlugin: String { dataDirectory + "/krunner/dbusplugins/" + SearchProviderFiles.pluginFileName }
    public var activitiesEntry: String { applications + "/" + SearchProviderFiles.activitiesEntryID }
    /// What `install` writes for the desktops' searches, and `uninstall` removes.
    var searchFiles: [String] { [searchProvider, krunnerPlugin, activitiesEntry] }
}

extension Installer {
    /// Writes the search provider files that differ from what is there, each a line of the report.
    func writeSearchProviders(_ report: inout Report) throws(KeyFileError) {
        let files = [
            (layout.searchProvider, SearchProviderFiles.gnomeProvider()),
            (layout.krunnerPlugin, SearchProviderFiles.krunnerPlugin()),
            (layout.activitiesEntry, SearchProviderFiles.activitiesEntry(program: program)),
        ]
        for (path, text) in files {
            let bytes = Array(text.utf8)
            if try Files.read(path) == bytes { continue }
            try Files.write(bytes, to: path)
            report.changes.append("wrote \(path)")
        }
    }
}

extension Doctor {
    /// Whether GNOME Shell and KRunner can find the search provider. GNOME reads providers only from
    /// the system data directories (`$XDG_DATA_DIRS`), so a `--user` install alone is not enough.
    func searchFindings() -> [Finding] {
        var findings: [Finding] = []
        let systemProviders = directories.systemDataDirectories.map {
            $0 + "/gnome-shell/search-providers/" + SearchProviderFiles.providerFileName
        }
        if let found = systemProviders.first(where: Files.exists) {
            findings.append(Finding(.ok, "GNOME Shell's search finds saved activities through \(found)"))
        } else if Files.exists(layout.searchProvider) {
            findings.append(Finding(
                .note, "\(layout.searchProvider) is not in a system data directory, and GNOME Shell reads search providers only from those",
                fix: "run `sudo make install` (or `waypost install --system`) to have saved activities in GNOME's search"))
        } else {
            findings.append(Finding(.note, "no GNOME Shell search provider is installed", fix: "run `\(installCommand)`"))
        }
        let plugins = ([directories.dataHome] + directories.systemDataDirectories).map {
            $0 + "/krunner/dbusplugins/" + SearchProviderFiles.pluginFileName
        }
        if let found = plugins.first(where: Files.exists) {
            findings.append(Finding(.ok, "KRunner finds saved activities through \(found)"))
        } else {
            findings.append(Finding(.note, "no KRunner plugin for saved activities is installed", fix: "run `\(installCommand)`"))
        }
        return findings
    }
}
