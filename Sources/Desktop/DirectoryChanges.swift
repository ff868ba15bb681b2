/// Watches directories for files created, changed, moved or removed in them, so that a daemon can
/// re-read only what it derived from them (association files, the verification cache).
public enum DirectoryChanges {
    /// Calls `handler` with the directory's path whenever something in one of `directories` changes.
    ///
    /// GIO's file monitors (inotify) run on a thread of their own with a GLib main loop; a directory
    /// that does not exist yet is watched too, and reported once it appears. Returns once every
    /// monitor exists, so no change after the call is missed. Not for short-lived commands: inotify
    /// watches delay process exit.
    /// - Throws: `GIOLoadError` when GIO cannot be opened.
    public static func watch(_ directories: [String], _ handler: @escaping @Sendable (String) -> Void) async throws(GIOLoadError) {
        try GIO.load()
        await DirectoryMonitorLoop.watch(directories, handler)
    }
}
