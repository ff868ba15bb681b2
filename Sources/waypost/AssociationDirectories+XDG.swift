import AssociationSources
import Desktop

extension AssociationDirectories {
    /// Below the XDG directories as GLib resolved them: the same ones GIO reads entries from.
    init(_ xdg: XDGDirectories) {
        self.init(dataHome: xdg.dataHome, dataDirectories: xdg.systemDataDirectories, configHome: xdg.configHome, cacheHome: xdg.cacheHome)
    }
}
