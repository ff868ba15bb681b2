/// The files that make the desktop hand links to Waypost, rendered with the installed program's
/// absolute path: `waypost install` writes them, and `make install` installs what `waypost
/// handler-file` prints, so both come from here. `desktop/` and `dbus/` in the source tree hold the
/// same text with `@WAYPOST@` left in and no types (a test keeps them equal), for readers.
public enum HandlerFiles {
    public static let busName = "io.waypost.Dispatcher"
    public static let desktopFileID = busName + ".desktop"
    public static let systemdUnitName = "waypost.service"

    /// Offers other devices hand over through KDE Connect, which opens them with `xdg-open`
    /// (docs/handoff.md): Waypost's own scheme, in every copy of the entry.
    public static let handoffType = "x-scheme-handler/waypost-handoff"

    /// The handler's desktop entry. `DBusActivatable` makes GIO openers call
    /// `org.freedesktop.Application.Open` on the daemon (nothing spawned); `Exec` serves openers that
    /// run the entry (xdg-open's generic path, scripts). `StartupNotify=true` because GLib sends the
    /// startup id in `platform_data` only for such entries, and the receiving app needs it to raise
    /// its window. `TryExec` hides the entry when the program is gone.
    public static func desktopEntry(program: String, mimeTypes: [String]) -> String {
        """
        [Desktop Entry]
        Type=Application
        Name=Waypost
        Comment=Opens each link in the right window of the right app
        Exec=\(execQuoted(program)) open %U
        TryExec=\(program)
        DBusActivatable=true
        NoDisplay=true
        StartupNotify=true
        MimeType=\(Set(mimeTypes + [handoffType]).sorted().map { $0 + ";" }.joined())

        """
    }

    /// The D-Bus activation file: the bus starts the daemon on the first call to its name.
    /// `SystemdService` is used only by a bus started with systemd activation (then the unit runs it).
    public static func dbusService(program: String) -> String {
        """
        # D-Bus activation of the Waypost dispatcher; `waypost install` writes it with absolute paths.
        [D-BUS Service]
        Name=\(busName)
        Exec=\(execQuoted(program)) daemon
        SystemdService=\(systemdUnitName)

        """
    }

    /// The systemd user unit the bus asks for when it delegates activation to systemd.
    public static func systemdUnit(program: String) -> String {
        """
        [Unit]
        Description=Waypost link dispatcher
        Documentation=man:waypost(1)

        [Service]
        Type=dbus
        BusName=\(busName)
        ExecStart=\(execQuoted(program)) daemon

        """
    }

    /// A program path as an `Exec` argument: quoted (Desktop Entry / D-Bus rules) when it holds
    /// anything but safe characters.
    static func execQuoted(_ path: String) -> String {
        let safe = path.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "/._-+@".unicodeScalars.contains($0)
        }
        if safe { return path }
        var quoted = "\""
        for character in path {
            if "\"`$\\".contains(character) { quoted += "\\" }
            quoted.append(character)
        }
        return quoted + "\""
    }
}
